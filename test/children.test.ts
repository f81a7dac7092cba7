/**
 * How tests start the repository's TypeScript entries as processes (test/support/children.ts):
 * on this run's builds, `serve` alone from the CLI's, and never a silently slow start.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CHILDREN, connectStdio, nodeArgs, SOURCE_NODE_ARGS } from './support/children.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('nodeArgs', () => {
  it('runs each entry of CHILDREN from a build of this run that exists', () => {
    for (const source of Object.values(CHILDREN)) {
      const [entry, ...rest] = nodeArgs(join(ROOT, source), 'serve', '--stdio');
      expect(entry).toMatch(/\.js$/);
      expect(existsSync(entry as string), entry).toBe(true);
      expect(rest).toEqual(['serve', '--stdio']);
    }
  });

  it("runs the CLI's other commands from the sources, as bin/elicitkit.js runs them from dist/", () => {
    const cli = join(ROOT, CHILDREN.cli);
    expect(nodeArgs(cli, 'call', 'deploy')).toEqual([...SOURCE_NODE_ARGS, cli, 'call', 'deploy']);
    expect(nodeArgs(cli)).toEqual([...SOURCE_NODE_ARGS, cli]);
  });

  it('refuses a file the run built nothing for, naming where to add it', () => {
    expect(() => nodeArgs(join(ROOT, 'apps/opsdesk/test/serve-crashing.ts'))).toThrow(
      'no build for apps/opsdesk/test/serve-crashing.ts: add it to CHILDREN in test/support/children.ts',
    );
  });

  it('points opsdesk’s shop processes at the built worker', () => {
    expect(process.env.ELICITKIT_SHOP_WORKER).toBe(nodeArgs(join(ROOT, CHILDREN['worker-main']))[0]);
  });
});

describe('connectStdio', () => {
  const client = () => new Client({ name: 't', version: '1' });

  it('says what a child that failed to start wrote on stderr', async () => {
    const failing = "process.stderr.write('unknown option --nope\\n'); process.exit(2)";
    await expect(
      connectStdio(client(), { command: process.execPath, args: ['-e', failing] }, { timeout: 20_000 }),
    ).rejects.toThrow(/the server said on stderr:\nunknown option --nope/);
  });

  it('reads a child’s stderr as it writes: one writing far past a pipe’s 64 KB still starts, its last 64 KB kept', async () => {
    // 1 MB to stderr before it answers: with a pipe nobody read, the child would block on the
    // write and the handshake time out.
    const chatty = `process.stderr.write('x'.repeat(1_048_576) + 'end');
      require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const message = JSON.parse(line);
        if (message.method !== 'initialize') return;
        const result = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'chatty', version: '1' } };
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
      });`;
    const c = client();
    const transport = await connectStdio(c, { command: process.execPath, args: ['-e', chatty] }, { timeout: 20_000 });
    try {
      expect(c.getServerVersion()?.name).toBe('chatty');
      await expect.poll(() => transport.said().endsWith('end')).toBe(true);
      expect(transport.said()).toHaveLength(65_536);
    } finally {
      await c.close();
    }
  });
});
