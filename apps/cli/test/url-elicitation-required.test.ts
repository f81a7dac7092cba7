/**
 * On 2025-11-25 a server may answer a call with error -32042 (URL elicitation required), carrying
 * the URL questions the person must finish first. `elicitkit call` declares URL mode, yet printed
 * only `MCP error -32042: URL elicitation required`: the link was dropped and the person had no way
 * on. Now each page is put to the person (here, the answers file) as a pushed URL question is —
 * the full URL, consent — and once the server says every page is done, the call is sent again,
 * once. A declined page calls nothing; a malformed -32042 says why. Raw-SDK stdio servers whose
 * tool throws `UrlElicitationRequiredError` until the page is done.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from './run-cli.js';

/**
 * A server whose tool needs its calendar connected first: the first call is answered -32042, and
 * from then on the server says the page is done every 100 ms (a client ignores the notice until it
 * has consented) until the tool is called again. `elicitations` replaces the error's questions.
 */
const server = (elicitations?: string) => `
import { Server, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const server = new Server({ name: 'calendar-sync', version: '1.0.0' }, { capabilities: { tools: {} } });
let calls = 0;
let telling;
server.setRequestHandler('tools/list', async () => ({
  tools: [{ name: 'sync_calendar', inputSchema: { type: 'object', properties: {} } }],
}));
server.setRequestHandler('tools/call', async () => {
  calls++;
  if (calls === 1) {
    telling = setInterval(() => {
      void server.notification({ method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } });
    }, 100);
    throw new UrlElicitationRequiredError(${
      elicitations ??
      `[{
      mode: 'url',
      elicitationId: 'connect-1',
      url: 'https://calendar.example.com/connect?state=7f3a',
      message: 'Connect your calendar account to continue.',
    }]`
    });
  }
  clearInterval(telling);
  return { content: [{ type: 'text', text: 'synced after ' + calls + ' calls' }] };
});
await server.connect(new StdioServerTransport());
`;
const command = (script: string) => [
  '--revision',
  '2025-11-25',
  '--',
  process.execPath,
  '--input-type=module',
  '-e',
  script,
];

const dir = mkdtempSync(join(tmpdir(), 'ek-32042-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function answersFile(name: string, answers: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(answers));
  return path;
}

describe('a call answered with -32042 (URL elicitation required)', () => {
  it('puts the page to the person, and once the server says it is done, sends the call again (exit 0)', async () => {
    const r = await run([
      'call',
      'sync_calendar',
      '--answers',
      answersFile('yes.json', [{ action: 'accept' }]),
      ...command(server()),
    ]);
    expect(r.err).toContain('https://calendar.example.com/connect?state=7f3a');
    expect(r.err).toContain('The page is done; calling sync_calendar again');
    expect(r.out).toContain('synced after 2 calls');
    expect(r.code).toBe(0);
  }, 60_000);

  it('a declined page calls nothing more (exit 3, refused)', async () => {
    const r = await run([
      'call',
      'sync_calendar',
      '--answers',
      answersFile('no.json', [{ action: 'decline' }]),
      ...command(server()),
    ]);
    expect(r.err).toContain('declined the page the server asked for first; sync_calendar was not called');
    expect(r.out).not.toContain('synced');
    expect(r.code).toBe(3);
  }, 60_000);

  it.each([
    [
      'a question that is not a URL question',
      `[{ mode: 'form', elicitationId: 'x', message: 'Name?', requestedSchema: {} }]`,
    ],
    ['no question at all', '[]'],
    [
      'a URL this client refuses to show',
      `[{ mode: 'url', elicitationId: 'connect-1', url: 'javascript:alert(1)', message: 'Go.' }]`,
    ],
  ])(
    '%s: says why, asks nothing and calls nothing more (exit 1)',
    async (_label, elicitations) => {
      const r = await run([
        'call',
        'sync_calendar',
        '--answers',
        answersFile('any.json', [{ action: 'accept' }]),
        ...command(server(elicitations)),
      ]);
      expect(r.err).toContain('the server asked for a page that cannot be shown');
      expect(r.out).not.toContain('synced');
      expect(r.code).toBe(1);
    },
    60_000,
  );
});
