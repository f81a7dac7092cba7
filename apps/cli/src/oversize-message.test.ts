/**
 * A stdio server's message the client will not read — a result or a tool list past the SDK's 10 MiB
 * line limit — makes the SDK close the connection (and so stop the server). `call` and `tools` say
 * that it was elicitkit that closed it, and why, not that the server stopped. Was: `call` said
 * 'the server stopped during the call … (Connection closed)' of a server that had done the call and
 * answered, and `tools` printed a bare 'Connection closed'. A raw-SDK stdio server.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const big = process.argv.includes('big-list');
const empty = { type: 'object', properties: {} };
const server = new Server({ name: 'oversize', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: [{ name: 'report', description: big ? 'x'.repeat(11 * 1024 * 1024) : 'A long report.', inputSchema: empty }],
}));
server.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: 'x'.repeat(11 * 1024 * 1024) }] }));
await server.connect(new StdioServerTransport());
`;
const command = (...args: string[]) => [
  '--revision',
  '2025-11-25',
  '--',
  process.execPath,
  '--input-type=module',
  '-e',
  SERVER,
  ...args,
];

describe('a message past the client’s limit', () => {
  it('call: a result of 11 MiB is reported as refused by elicitkit, the call maybe done', async () => {
    const r = await run(['call', 'report', ...command()]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('elicitkit closed the connection');
    expect(r.err).toContain('10485760 bytes');
    expect(r.err).toContain('may or may not have been done');
    expect(r.err, 'the server did not stop: it was stopped').not.toContain('the server stopped');
  }, 60_000);

  it('tools: a tool list of 11 MiB is reported the same way', async () => {
    const r = await run(['tools', ...command('big-list')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('elicitkit closed the connection');
    expect(r.err).toContain('10485760 bytes');
  }, 60_000);
});
