// doctor connects but never gets the tool list: `tools/list` answered with an error, the server
// dying on it, or one tool's input schema nested deeper than the SDK's check can go (which loses the
// healthy tool beside it too). Was: "No findings in what was reached" and exit 0, a clean bill for a
// server doctor judged nothing of. Now the report says "Incomplete", stderr names the profile and
// why, the JSON's summary lists it in `stopped` with `ok` false, and doctor exits 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test/run-cli.js';

/** A raw line-JSON-RPC 2025-11-25 server: full control of what crosses the wire. */
const BASE = `
import { createInterface } from 'node:readline';
export function send(text) { process.stdout.write(text + '\\n'); }
export function serve(handlers) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    let m; try { m = JSON.parse(line); } catch { return; }
    if (m.method === 'initialize')
      return send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'broken-list', version: '1.0.0' } } }));
    if (m.id === undefined || m.method === undefined) return;
    if (m.method === 'ping') return send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
    const h = handlers[m.method];
    if (!h) return send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } }));
    h(m);
  });
}
`;

const TOOL = `{"name":"status","description":"Shows the status of the service","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":false}}`;
const SERVERS: Record<string, string> = {
  // tools/list answered with a JSON-RPC error.
  'list-error.mjs': `
import { serve, send } from './base.mjs';
serve({ 'tools/list': (m) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'internal error' } })) });
`,
  // Exits mid-check: right after initialize, on the first tools/list.
  'exit-on-list.mjs': `
import { serve } from './base.mjs';
serve({ 'tools/list': () => process.exit(0) });
`,
  // A healthy tool beside one the SDK takes for no tool (its description is a number).
  'numbered.mjs': `
import { serve, send } from './base.mjs';
serve({
  'tools/list': (m) => send('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"tools":[${TOOL},{"name":"numbered\\\\nlater line","description":5,"inputSchema":{"type":"object"}}]}}'),
  'tools/call': (m) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } })),
});
`,
  // A healthy tool beside one whose input schema nests 10,000 objects deep (about 400 KB): deeper than the SDK's check can go, warm or cold (it gives out near 600 levels in a fresh process, past 1,000 once its code is optimized).
  'deep-schema.mjs': `
import { serve, send } from './base.mjs';
const deep = '{"type":"object","properties":{"a":'.repeat(10_000) + '{"type":"string"}' + '}}'.repeat(10_000);
serve({
  'tools/list': (m) => send('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"tools":[${TOOL},{"name":"deep","description":"Deep","inputSchema":' + deep + ',"annotations":{"readOnlyHint":true,"destructiveHint":false}}]}}'),
  'tools/call': (m) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } })),
});
`,
};

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ek-doctor-list-'));
  writeFileSync(join(dir, 'base.mjs'), BASE);
  for (const [file, text] of Object.entries(SERVERS)) writeFileSync(join(dir, file), text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor against a server whose tool list it never gets', () => {
  it.each([
    ['tools/list answers with an error', 'list-error.mjs'],
    ['the server exits on tools/list', 'exit-on-list.mjs'],
    ['one tool has a 10,000-level input schema', 'deep-schema.mjs'],
    ['one tool is no tool to the SDK', 'numbered.mjs'],
  ])(
    '%s: no clean verdict, exit 1',
    async (_, file) => {
      const r = await runCli(['doctor', '--yes', '--revision', '2025-11-25', '--', process.execPath, join(dir, file)]);
      const verdict = r.out.split('\n').filter((l) => /findings|judged|Coverage/i.test(l));
      expect(verdict.join('\n'), 'the report gives a clean bill to a server it could not list').not.toMatch(
        /No findings/,
      );
      expect(r.code, `doctor exited ${r.code} though no profile listed the tools:\n${r.out}`).toBe(1);
      expect(verdict.join('\n')).toMatch(/^Incomplete: the check stopped under 2025-11-25 form\+url, /);
      expect(r.err).toMatch(/^elicitkit doctor: the check stopped under 2025-11-25 form: ./m);
    },
    60_000,
  );

  // Was: the SDK's refusal of the whole list lost the healthy tool too, and doctor judged nothing.
  it.each([
    [
      'a 10,000-level input schema',
      'deep-schema.mjs',
      'its check of a schema overflowed the stack',
      ['status', 'deep'],
    ],
    [
      'a tool the SDK takes for no tool',
      'numbered.mjs',
      '"numbered\\nlater line" left out (not a tool as MCP defines one)',
      ['status'],
    ],
  ])(
    'the list the SDK refuses (%s): the other tools are still read, called and judged, and why is said',
    async (_, file, why, judged) => {
      const r = await runCli([
        'doctor',
        '--yes',
        '--json',
        '--revision',
        '2025-11-25',
        '--',
        process.execPath,
        join(dir, file),
      ]);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.out) as {
        tools: { name: string; calls: { outcome: string; skipped: string | null }[] }[];
        revisions: { profile: string; error: string | null }[];
        summary: { stopped: string[] };
      };
      expect(report.tools.map((t) => t.name)).toEqual(judged);
      for (const tool of report.tools)
        expect(
          tool.calls.filter((c) => c.skipped === null && c.outcome === 'result').length,
          tool.name,
        ).toBeGreaterThan(0);
      expect(report.summary.stopped).toHaveLength(4);
      for (const revision of report.revisions) {
        expect(revision.error).toContain("the SDK's client refuses this server's tool list whole");
        expect(revision.error).toContain(why);
      }
      // On stderr, on one line per profile: the tool's name cannot start a line of its own.
      expect(r.err).not.toMatch(/^later line/m);
    },
    60_000,
  );

  it('the JSON report lists the profile as stopped, and is not ok', async () => {
    const r = await runCli([
      'doctor',
      '--yes',
      '--json',
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      join(dir, 'list-error.mjs'),
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { summary: { stopped: string[]; ok: boolean; errors: number } };
    expect(report.summary).toMatchObject({
      stopped: ['2025-11-25 form+url', '2025-11-25 form', '2025-11-25 url', '2025-11-25 no elicitation'],
      ok: false,
      errors: 0,
    });
  }, 60_000);
});
