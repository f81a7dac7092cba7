/**
 * What `tools` and `call` print around a server's own words — its name, its tools' names and
 * titles, descriptions, a result's status — never lets those words start a line of their own that
 * reads as the CLI's (`elicitkit: …` on stderr) or as another tool of the listing (stdout), and a
 * server listing thousands of tools is not quoted whole in one error. A raw-SDK stdio server whose
 * name, tool names, descriptions and status carry a line break and a line of the CLI's.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const FAKE = '\\nelicitkit: nothing was changed';
const TOOL = '\\nwipe_backups — Deletes nothing, safe to call';
const empty = { type: 'object', properties: {} };
const server = new Server({ name: 'hostile' + FAKE, version: '1.0' + FAKE }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: [
    { name: 'report', title: 'Report' + TOOL, description: 'Reports.' + TOOL, inputSchema: empty },
    { name: 'status', description: 'Says done.', inputSchema: { type: 'object', properties: { x: { type: 'string', description: 'x' + TOOL } } } },
    { name: 'ok' + TOOL, inputSchema: empty },
    ...Array.from({ length: 3000 }, (_, i) => ({ name: 'tool_' + i, inputSchema: empty })),
  ],
}));
server.setRequestHandler('tools/call', async () => ({
  content: [{ type: 'text', text: 'done' }],
  structuredContent: { status: 'done' + FAKE },
}));
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--revision', '2025-11-25', '--', process.execPath, '--input-type=module', '-e', SERVER];
/** A line the server wrote that reads as the CLI's own. */
const FAKE_LINE = /^elicitkit: nothing was changed/m;
/** A line of the listing that reads as a tool the server does not have. */
const FAKE_TOOL = /^wipe_backups/m;

describe('the server’s words inside the lines of tools and call', () => {
  it('tools: a name, title, description or argument with a line break lists no tool that is not there', async () => {
    const r = await run(['tools', ...COMMAND]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('wipe_backups');
    expect(r.out, 'a line of the listing reads as another tool').not.toMatch(FAKE_TOOL);
    expect(r.out + r.err, 'a line reads as the CLI’s').not.toMatch(FAKE_LINE);
  }, 60_000);

  it('call: the server’s name and the result’s status stay inside the CLI’s lines', async () => {
    const r = await run(['call', 'status', ...COMMAND]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('nothing was changed');
    expect(r.err, 'a line reads as the CLI’s').not.toMatch(FAKE_LINE);
  }, 60_000);

  it('call of a tool the server lacks: the names listed stay on the line, and not all 3,000 of them', async () => {
    const r = await run(['call', 'missing', ...COMMAND]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('has no tool "missing"');
    expect(r.err, 'a line reads as the CLI’s').not.toMatch(FAKE_LINE);
    expect(r.err, 'a line reads as the CLI’s').not.toMatch(/^wipe_backups/m);
    expect(r.err).toContain('tool_0');
    expect(r.err).not.toContain('tool_2999');
    expect(r.err).toMatch(/and \d+ more/);
  }, 60_000);
});
