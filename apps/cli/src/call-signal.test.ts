/**
 * `elicitkit call` stopped by a signal — a CI job's timeout (SIGTERM), Ctrl+C while no question is
 * on screen (SIGINT) — cancels the call, stops the stdio server it started (the SDK's close: stdin
 * ended, then SIGTERM, then SIGKILL) and exits 143 or 130 (docs/cli.md, exit codes), whether the
 * tool was running or the server had not answered yet. The built CLI in a child process, against
 * raw-SDK stdio servers that append their pid to a file when they start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ek-call-signal-'));
const started: number[] = [];

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A tool that takes ten minutes, as a deploy might; the pid is written when it is called, and
 * `cancelled` to `<pids>.cancelled` when the client cancels the call.
 */
const slowServer = (pids: string) => `
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const server = new Server({ name: 'slow', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object', properties: {} } }] }));
server.setRequestHandler('tools/call', async (req, ctx) => {
  ctx.mcpReq.signal.addEventListener('abort', () => appendFileSync(${JSON.stringify(`${pids}.cancelled`)}, 'cancelled'));
  appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');
  await new Promise((r) => setTimeout(r, 600_000));
  return { content: [{ type: 'text', text: 'done' }] };
});
await server.connect(new StdioServerTransport());
`;

/** A server that never answers anything (nor ends when its stdin does); every start writes its pid. */
const deafServer = (pids: string) => `
import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');
process.stdin.resume();
setInterval(() => {}, 60_000);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

function pidsIn(path: string): number[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Resolves once `path` holds at least `count` pids. */
function pidsAppear(path: string, count: number): Promise<number[]> {
  return new Promise((resolve) => {
    const look = () => {
      const pids = pidsIn(path);
      if (pids.length < count) return false;
      watcher.close();
      resolve(pids);
      return true;
    };
    const watcher = watch(dir, look);
    look();
  });
}

/** Resolves true as soon as the process is gone, false if it is still there after `within` ms. */
async function goneWithin(pid: number, within: number): Promise<boolean> {
  const until = Date.now() + within;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

function startCli(
  tool: string,
  revision: string,
  server: string,
  env: Record<string, string> = {},
): { cli: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> } {
  const cli = spawn(
    process.execPath,
    [BIN, 'call', tool, '--revision', revision, '--', process.execPath, '--input-type=module', '-e', server],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let err = '';
  cli.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((resolve) =>
    cli.once('exit', (code, signal) => resolve({ code, signal, err })),
  );
  return { cli, exited };
}

describe('elicitkit call stopped by a signal while the tool runs', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
    // The terminal closed (its window, an SSH connection): was the default, dying at once (129).
    ['SIGHUP', 129],
  ] as const)(
    '%s: the stdio server it started is stopped, and it exits %i',
    async (signal, code) => {
      const pids = join(dir, `slow-${signal}.pids`);
      const { cli, exited } = startCli('slow', '2025-11-25', slowServer(pids));
      const [serverPid] = await pidsAppear(pids, 1);
      started.push(serverPid as number);
      expect(alive(serverPid as number)).toBe(true);
      cli.kill(signal);
      const end = await exited;
      expect(end.signal, 'the CLI died of the signal instead of cleaning up').toBeNull();
      expect(end.code).toBe(code);
      expect(end.err).toContain(`stopped by ${signal}`);
      // The CLI waited for the SDK's close (stdin end, SIGTERM, SIGKILL); the bound only keeps a failure short.
      expect(await goneWithin(serverPid as number, 10_000), `server ${serverPid} still runs, orphaned`).toBe(true);
      expect(read(`${pids}.cancelled`), 'the tool was never told to stop').toBe('cancelled');
    },
    60_000,
  );
});

describe('elicitkit call stopped by a signal while connecting', () => {
  it('SIGTERM before the server answered (auto: its version probe too): every process it started is stopped', async () => {
    const pids = join(dir, 'deaf.pids');
    // auto over stdio probes a sibling process first; both it and the session child must go. The
    // connect deadline is far off: the signal, not the deadline, must end the wait.
    const { cli, exited } = startCli('anything', 'auto', deafServer(pids), { ELICITKIT_CONNECT_TIMEOUT_MS: '600000' });
    const [first] = await pidsAppear(pids, 1);
    started.push(first as number);
    cli.kill('SIGTERM');
    const end = await exited;
    expect(end.signal).toBeNull();
    expect(end.code).toBe(143);
    for (const pid of pidsIn(pids)) {
      started.push(pid);
      expect(await goneWithin(pid, 10_000), `server ${pid} still runs, orphaned`).toBe(true);
    }
  }, 60_000);
});

describe('elicitkit call --timeout-ms: the server working past it', () => {
  it('cancels the call, says why, and exits 1', async () => {
    const pids = join(dir, 'overtime.pids');
    const cli = spawn(
      process.execPath,
      [BIN, 'call', 'slow', '--timeout-ms', '300', '--revision', '2025-11-25', '--', process.execPath].concat([
        '--input-type=module',
        '-e',
        slowServer(pids),
      ]),
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    cli.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
    for (const pid of pidsIn(pids)) started.push(pid);
    expect(code).toBe(1);
    expect(err).toContain('the server worked on the call for more than 300 ms');
    expect(read(`${pids}.cancelled`), 'the tool was never told to stop').toBe('cancelled');
  }, 60_000);
});
