/**
 * A server whose `tools/list` never stops sending a cursor, with a tool on its first page the SDK
 * refuses (so the list is read again tool by tool): `tools` and `call` stop after 100 pages and say
 * the list did not end, as the SDK does (64 pages) for a list it takes whole. Was: the tool-by-tool
 * reading stopped after 100 pages without a word and `tools` listed what it had read as the whole
 * list, exit 0. A raw-SDK stdio server.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const server = new Server({ name: 'endless', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async (req) => {
  const page = Number(req.params?.cursor ?? 0);
  return {
    tools: [
      { name: 'tool_' + page, inputSchema: { type: 'object', properties: {} } },
      ...(page === 0 ? [{ name: 'odd', description: 5, inputSchema: { type: 'object', properties: {} } }] : []),
    ],
    nextCursor: String(page + 1),
  };
});
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--revision', '2025-11-25', '--', process.execPath, '--input-type=module', '-e', SERVER];

describe('a tool list that never ends, read tool by tool', () => {
  it('tools: fails saying the list did not end, instead of listing 100 pages as the whole', async () => {
    const r = await run(['tools', ...COMMAND]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('did not end after 100 pages');
  }, 60_000);

  it('call: the same, rather than "no tool" for a tool on a page not read', async () => {
    const r = await run(['call', 'tool_150', ...COMMAND]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('did not end after 100 pages');
  }, 60_000);
});
