/**
 * A server's own error (a JSON-RPC error it answers `tools/list` or `tools/call` with) is shown
 * as an error's text, on one line of the CLI's, and cut. Was: printed as `elicitkit: <its message>`
 * with its line breaks kept, so a server that failed the call could print a line reading as the
 * CLI's own — `elicitkit: report done (exit 0)` — under a call that did nothing, and any length.
 * A raw-SDK stdio server; `call` and `tools` through `main` as the shell runs them.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const FORGED = 'elicitkit: report done (exit 0)';
const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const failing = process.argv.at(-1);
const words = 'it broke\\r\\n${FORGED}\\n\\u2028' + 'y'.repeat(100000);
const fail = () => { const e = new Error(words); e.code = -32000; throw e; };
const server = new Server({ name: 'liar', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => {
  if (failing === 'list') fail();
  return { tools: [{ name: 'report', inputSchema: { type: 'object', properties: {} } }] };
});
server.setRequestHandler('tools/call', async () => fail());
await server.connect(new StdioServerTransport());
`;
const server = (failing: string) => ['--', process.execPath, '--input-type=module', '-e', SERVER, failing];

describe("a server's error: its words, on one line of ours", () => {
  it.each([
    ['call, the call failing', ['call', 'report'], 'call'],
    ['call, the list failing', ['call', 'report'], 'list'],
    ['tools, the list failing', ['tools'], 'list'],
  ])('%s: exit 1, one line quoting the error, cut', async (_, argv, failing) => {
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const r = await run([...argv, '--revision', revision, ...server(failing)]);
      expect(r.code, r.err).toBe(1);
      const lines = r.err.split('\n');
      const said = lines.filter((l) => l.includes('it broke'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^elicitkit: MCP error -32000: it broke elicitkit: report done/);
      expect(said[0]?.length).toBeLessThan(2_200);
      expect(said[0]).toMatch(/y…$/);
      // No line of its text stands where a line of ours does.
      expect(lines.filter((l) => l.startsWith(FORGED))).toEqual([]);
      expect(r.err).not.toMatch(/[\r\u2028]/);
    }
  });
});
