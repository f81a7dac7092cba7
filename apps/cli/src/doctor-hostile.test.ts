// `elicitkit doctor` against hostile or broken stdio servers. Each server is a small
// raw line-JSON-RPC script written to a temp folder and started by doctor as a real child process;
// where a fault would only show in the CLI process itself (its exit, its terminal), the CLI runs as a
// child process too, from the TypeScript sources.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs, SOURCE_NODE_ARGS } from '../../../test/support/children.js';
import { runCli } from '../test/run-cli.js';
import { RUNAWAY_ASKS } from './doctor/answer.js';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
/** What would drive a terminal: C0 controls but the line break, DEL and C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const DRIVES_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\\u001b[2J\\u001b]52;c;Y3VybCBldmlsfHNo\\u0007\\rall good\\u202eevil';

/** A raw line-JSON-RPC MCP server (2025 revisions), no SDK: full control of what crosses the wire. */
const BASE = `
import { createInterface } from 'node:readline';
export function send(msg) { process.stdout.write(JSON.stringify(msg) + '\\n'); }
let nextId = 1000;
const waiting = new Map();
export function request(method, params) {
  const id = nextId++;
  send({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}
export function serve(handlers, { name = 'hostile', version = '1.0.0' } = {}) {
  createInterface({ input: process.stdin }).on('line', async (line) => {
    let m; try { m = JSON.parse(line); } catch { return; }
    if (m.id !== undefined && m.method === undefined) { const w = waiting.get(m.id); waiting.delete(m.id); w?.(m); return; }
    if (m.method === 'initialize') {
      if (handlers.initialize) return handlers.initialize(m);
      const v = m.params?.protocolVersion;
      const ok = ['2025-06-18', '2025-11-25'].includes(v) ? v : '2025-11-25';
      return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: ok, capabilities: { tools: {} }, serverInfo: { name, version } } });
    }
    if (m.id === undefined) return;
    const h = handlers[m.method];
    if (m.method === 'ping' && !h) return send({ jsonrpc: '2.0', id: m.id, result: {} });
    if (!h) return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
    const r = await h(m);
    if (r !== undefined) send({ jsonrpc: '2.0', id: m.id, result: r });
  });
}
`;

const SERVERS: Record<string, string> = {
  // A healthy server that logs 200 KB of debug output to stderr at start-up, then serves one
  // read-only tool that answers at once. Nothing hostile: many real servers log this much.
  'chatty-stderr.mjs': `
import { serve } from './base.mjs';
for (let i = 0; i < 2000; i++) process.stderr.write('[debug] start-up step ' + i + ' ' + '.'.repeat(70) + '\\n');
serve({
  'tools/list': () => ({ tools: [{ name: 'status', description: 'Shows the status of the service', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: false } }] }),
  'tools/call': () => ({ content: [{ type: 'text', text: 'all fine' }], structuredContent: { status: 'done' } }),
});
`,
  // Tool names carrying a screen clear, an OSC 52 clipboard write, a carriage return and U+202E.
  'escape-names.mjs': `
import { serve } from './base.mjs';
serve({
  'tools/list': () => ({ tools: [{ name: 'status${HOSTILE}', description: 'status', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: false } }] }),
  'tools/call': () => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { status: 'done' } }),
});
`,
  // Refuses initialize with a JSON-RPC error whose message carries the same sequences.
  'escape-init-error.mjs': `
import { serve, send } from './base.mjs';
serve({ initialize: (m) => send({ jsonrpc: '2.0', id: m.id, error: { code: -32600, message: 'go away ${HOSTILE}' } }) });
`,
  // One read-only tool that never asks anything and refuses every call alike, under every profile,
  // with JSON-RPC -32602 (doctor's sample argument is not an order it knows).
  'always-error.mjs': `
import { serve, send } from './base.mjs';
serve({
  'tools/list': () => ({ tools: [{ name: 'lookup', description: 'Looks up an order', inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] }, annotations: { readOnlyHint: true, destructiveHint: false } }] }),
  'tools/call': (m) => { send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unknown order' } }); },
});
`,
  // One read-only tool that elicits in an endless loop, 20 questions at a time: as soon as they are
  // answered (accept, decline, cancel or an error), 20 more. The call never returns.
  'ask-loop.mjs': `
import { serve, request } from './base.mjs';
const params = { message: 'Which environment should the report cover?', requestedSchema: { type: 'object', properties: { env: { type: 'string', title: 'Environment', enum: ['dev', 'prod'] } }, required: ['env'] } };
serve({
  'tools/list': () => ({ tools: [{ name: 'loop', description: 'Asks forever', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, destructiveHint: false } }] }),
  'tools/call': async () => { for (;;) await Promise.all(Array.from({ length: 20 }, () => request('elicitation/create', params))); },
});
`,
};

let dir: string;
const server = (file: string) => ['--', process.execPath, join(dir, file)];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ek-doctor-hostile-'));
  writeFileSync(join(dir, 'base.mjs'), BASE);
  for (const [file, text] of Object.entries(SERVERS)) writeFileSync(join(dir, file), text);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The CLI as a person runs it: its own process, its exit code, what it printed. Past `killAfterMs`
 * it is killed (SIGKILL: a busy event loop never runs doctor's SIGTERM handler) and `killed` says so.
 */
function cliProcess(
  args: string[],
  killAfterMs = 55_000,
): Promise<{ code: number | null; out: string; err: string; killed: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      nodeArgs(CLI, ...args),
      { maxBuffer: 64 * 1024 * 1024, timeout: killAfterMs, killSignal: 'SIGKILL' },
      (error, out, err) => {
        const e = error as { code?: number; killed?: boolean } | null;
        resolve({ code: e ? (e.code ?? null) : 0, out, err, killed: e?.killed === true });
      },
    );
  });
}

describe('doctor against a stdio server that writes to its stderr', () => {
  // Was: the child's stderr was piped (target.ts transportFor) and never read.
  // Once the server has written more than a pipe holds (~64 KB), closing the connection waits for
  // a 'close' event that never comes, on timers that are unref'd: the event loop empties and Node
  // ends the CLI with exit code 13 (unsettled top-level await) before any report is printed.
  it('prints its report and exits 0 for a healthy server that logs 200 KB to stderr', async () => {
    const r = await cliProcess([
      'doctor',
      '--json',
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '2000',
      ...server('chatty-stderr.mjs'),
    ]);
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(r.out) as { tools: { name: string }[] };
    expect(report.tools.map((t) => t.name)).toEqual(['status']);
  }, 60_000);
});

describe("doctor's stderr never carries the server's control sequences", () => {
  // Was: commands/doctor.ts writes the server's tool names raw into the `no tool named …` warning.
  it('the --skip warning lists the server tool names without them', async () => {
    const r = await runCli([
      'doctor',
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '2000',
      '--skip',
      'nope',
      ...server('escape-names.mjs'),
    ]);
    expect(r.err).toContain('no tool named nope');
    expect(r.err).not.toMatch(DRIVES_TERMINAL);
  }, 60_000);

  // Was: the `--tools` usage error quoted them with their line breaks: a line of the server's choosing on stderr.
  it('the --tools usage error quotes the server tool names on one line', async () => {
    const r = await runCli(['doctor', '--revision', '2025-11-25', '--tools', 'nope', ...server('escape-names.mjs')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no tool named nope');
    expect(r.err).not.toMatch(DRIVES_TERMINAL);
    expect(
      r.err.split('\n').some((line) => /^\s*all good/.test(line)),
      r.err,
    ).toBe(false);
  }, 60_000);

  it('the text report keeps a server text with line breaks on its own line (no report line can be faked)', async () => {
    const r = await runCli([
      'doctor',
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '2000',
      ...server('escape-names.mjs'),
    ]);
    expect(r.out).not.toMatch(DRIVES_TERMINAL);
    // The tool's name carries "\rall good": it is shown marked within its line, never as a line.
    expect(r.out).toContain('⏎ all good');
    expect(r.out.split('\n').some((line) => /^\s*all good/.test(line))).toBe(false);
  }, 60_000);

  // Was: commands/doctor.ts writes the connection error (the server's own JSON-RPC error message) raw.
  it('the "could not connect" line carries the refusal without them', async () => {
    const r = await runCli([
      'doctor',
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '2000',
      ...server('escape-init-error.mjs'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('could not connect');
    expect(r.err).toContain('go away');
    expect(r.err).not.toMatch(DRIVES_TERMINAL);
    // Nothing was judged, and the report does not read as a clean bill.
    expect(r.out).toContain('Nothing was judged: doctor could not connect under any profile.');
    expect(r.out).not.toContain('No findings');
  }, 60_000);

  // Was: doctor/progress.ts draws `${tool}` (the server's tool name) raw on a terminal's stderr.
  // `script` gives the CLI a real pseudo-terminal, so the progress line is drawn.
  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'the progress line drawn on a terminal shows tool names without them',
    () => {
      const log = join(dir, 'typescript.log');
      const command = [
        'stty cols 200;',
        process.execPath,
        ...SOURCE_NODE_ARGS,
        CLI,
        'doctor',
        '--yes',
        '--revision',
        '2025-11-25',
        '--timeout-ms',
        '2000',
        ...server('escape-names.mjs'),
        '>/dev/null',
      ].join(' ');
      const r = spawnSync('script', ['-qfec', command, log], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      const screen = readFileSync(log, 'utf8');
      expect(screen).toContain('doctor: 1 call');
      // The progress line's own `\r\x1b[2K` is doctor's; an OSC 52 clipboard write or a screen clear is not.
      expect(screen).not.toContain('\u001b]52;');
      expect(screen).not.toContain('\u001b[2J');
    },
    60_000,
  );
});

describe('EK13 compares the call without the capability against one that works with it', () => {
  // Was: doctor/across.ts takes any "answered" peer (a JSON-RPC error counts) as the call that
  // works with the capability, so a tool that asks nothing and fails the same way under every
  // profile is blamed with EK13 ("fails when the client cannot elicit") and doctor exits 1.
  it('a tool that fails alike under every profile, asking nothing, is no EK13', async () => {
    const r = await runCli([
      'doctor',
      '--json',
      '--revision',
      '2025-11-25',
      '--timeout-ms',
      '2000',
      ...server('always-error.mjs'),
    ]);
    const report = JSON.parse(r.out) as { findings: { rule: string; message: string }[] };
    const calls = (report as unknown as { tools: { calls: { outcome: string }[] }[] }).tools[0]?.calls ?? [];
    // The same outcome everywhere: nothing depends on whether the client can elicit.
    expect(new Set(calls.filter((c) => c.outcome !== 'skipped').map((c) => c.outcome))).toEqual(
      new Set(['error -32602']),
    );
    expect(report.findings.filter((f) => f.rule === 'EK13')).toEqual([]);
  }, 60_000);
});

describe('doctor against a server that elicits in an endless loop', () => {
  // Every question was answered and recorded for the whole of the call's timeout (about 10,000 per
  // 10 s call), and judging them took minutes more at up to 1 GB. Past RUNAWAY_ASKS (50) doctor
  // stops the call: what it reports is made from those 50, and it is told as failed.
  it('stops each call past its runaway cap and reports too many questions', async () => {
    const r = await cliProcess(['doctor', '--json', '--revision', '2025-11-25', ...server('ask-loop.mjs')]);
    expect(r.killed).toBe(false);
    const report = JSON.parse(r.out) as {
      findings: { rule: string }[];
      tools: { calls: { outcome: string; asks: number }[] }[];
    };
    expect(report.findings.map((f) => f.rule)).toContain('EK08');
    const asking = report.tools[0]?.calls.filter((c) => c.asks > 0) ?? [];
    expect(asking.length).toBeGreaterThan(0);
    for (const call of asking) expect(call).toMatchObject({ outcome: 'failed', asks: RUNAWAY_ASKS });
  }, 120_000);
});
