/**
 * `elicitkit serve --stdio` whose stdin ends while it starts — a client that sends its requests
 * and closes its end at once, or `serve --stdio < requests.jsonl` — answers what it was sent,
 * closes opsdesk and exits 0. Was: the end of stdin came before serve listened for it, so nothing
 * ended the wait: opsdesk was never closed and Node exited 13 (an unsettled top-level await), which
 * a client reads as a crash. The built CLI, its stdin a file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ek-serve-stdin-ended-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve --stdio, stdin ended before it was listened to', () => {
  it('answers the request it was sent and exits 0', async () => {
    const requests = join(dir, 'requests.jsonl');
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'once', version: '1.0.0' } },
    };
    writeFileSync(requests, `${JSON.stringify(initialize)}\n`);
    const child = spawn(process.execPath, [BIN, 'serve', '--stdio', '--data', join(dir, 'data')], {
      stdio: [openSync(requests, 'r'), 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr?.resume();
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    expect(JSON.parse(out.split('\n')[0] ?? '')).toMatchObject({ id: 1, result: { serverInfo: { name: 'opsdesk' } } });
    expect(signal).toBeNull();
    expect(code, 'exit 13: nothing ended the wait for stdin to close').toBe(0);
  }, 60_000);
});
