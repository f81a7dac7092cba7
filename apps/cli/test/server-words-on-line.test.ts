/**
 * `elicitkit call` refusing a tool's schema or the arguments typed for it printed the server's
 * words as the server sent them: whole, and with their line breaks. docs/cli.md: every
 * line of `call` that quotes the server's name keeps it on that line and cuts it after 200
 * characters — a line break in it would start a line that reads as the CLI's own
 * (`elicitkit: nothing was changed`). The same holds for a tool's argument names and choices,
 * which a usage error lists. A raw-SDK stdio server names itself with a line break and a CLI line,
 * then 5,000 more characters; it lists one tool whose `properties` holds a string where a schema
 * belongs, and one whose argument name and choice carry a line break and a CLI line.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from './run-cli.js';

const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const FAKE = '\\nelicitkit: nothing was changed';
const server = new Server({ name: 'hostile' + FAKE + ' ' + 'y'.repeat(5000), version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: [
    { name: 'broken', inputSchema: { type: 'object', properties: { env: 'string' } } },
    { name: 'deploy', inputSchema: { type: 'object', properties: {
      env: { type: 'string', enum: ['dev', 'prod' + FAKE] },
      ['note' + FAKE]: { type: 'string' },
    } } },
  ],
}));
server.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: 'called' }] }));
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--revision', '2025-11-25', '--', process.execPath, '--input-type=module', '-e', SERVER];
/** A line the server wrote that reads as the CLI's own. */
const FAKE_LINE = /^elicitkit: nothing was changed/m;

describe('call on a tool with a broken schema, from a server with a hostile name', () => {
  it('says what is wrong (exit 1) with the server’s name on the CLI’s line, cut after 200 characters', async () => {
    const r = await run(['call', 'broken', ...COMMAND]);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain('called');
    expect(r.err).toContain('has an input schema elicitkit cannot use');
    expect(r.err).toContain('nothing was changed');
    expect(r.err, 'the server’s name starts a line that reads as the CLI’s').not.toMatch(FAKE_LINE);
    expect(r.err, 'the server’s name is quoted whole').not.toContain('y'.repeat(300));
  }, 60_000);

  it.each([
    ['a value none of the choices', 'env=staging'],
    ['an argument the tool does not have', 'typo=1'],
  ])(
    'a usage error for %s keeps the server’s argument names and choices on its line',
    async (_label, word) => {
      const r = await run(['call', 'deploy', word, ...COMMAND]);
      expect(r.code).toBe(2);
      expect(r.out).not.toContain('called');
      expect(r.err).toContain('nothing was changed');
      expect(r.err, 'the server’s words start a line that reads as the CLI’s').not.toMatch(FAKE_LINE);
    },
    60_000,
  );
});
