import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

/**
 * docs/cli.md, Answers files: a question with no entry left (or a URL `accept` with content) is
 * answered `cancel` and reported on stderr, and a URL consented to from the file — opened by
 * nobody — is printed there, so the page can still be visited. A stdio server (raw SDK) with two
 * tools: `two` asks two forms in a row, `link` asks one URL-mode question.
 */
const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const form = { type: 'object', properties: { env: { type: 'string', title: 'Environment', enum: ['dev', 'prod'] } }, required: ['env'] };
const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: ['two', 'link'].map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
}));
server.setRequestHandler('tools/call', async (req, ctx) => {
  const ask = (params) => ctx.mcpReq.send({ method: 'elicitation/create', params }, { timeout: 10000 });
  const answers = [];
  if (req.params.name === 'two') {
    answers.push((await ask({ message: 'Which environment should order-service go to first?', requestedSchema: form })).action);
    answers.push((await ask({ message: 'Which environment should order-service go to next?', requestedSchema: form })).action);
  } else {
    answers.push((await ask({ mode: 'url', elicitationId: 'e1', message: 'Set the password for the new account on the secure page.', url: 'https://example.com/set-password' })).action);
  }
  const refused = answers.find((a) => a !== 'accept');
  return { content: [{ type: 'text', text: answers.join(',') }], structuredContent: { status: refused === 'cancel' ? 'cancelled' : refused === 'decline' ? 'declined' : 'done' } };
});
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--', process.execPath, '--input-type=module', '-e', SERVER];

const dir = mkdtempSync(join(tmpdir(), 'ek-call-answers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, value: unknown) => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

const call = (tool: string, answers: string, ...more: string[]) =>
  run(['call', tool, '--answers', answers, '--revision', '2025-11-25', ...more, ...COMMAND]);

describe('elicitkit call --answers: a question the file cannot answer is cancelled and reported', () => {
  it('reports the question that had no entry left', async () => {
    const answers = file('one', [{ action: 'accept', content: { env: 'dev' } }]);
    const r = await call('two', answers);
    expect(r.out).toBe('accept,cancel');
    expect(r.code).toBe(3);
    expect(r.err, 'nothing on stderr says the second question had no answer and was cancelled').toMatch(
      /^elicitkit: .*(no (scripted )?answer|answers? (ran out|left))/im,
    );
    expect(r.err).toMatch(/^elicitkit: .*cancelled: Elicitation 2 has no scripted answer/m);
    expect(r.err, 'the question the file did answer is not reported').not.toMatch(/Elicitation 1/);
  }, 60_000);

  it('reports a URL question answered `accept` with content', async () => {
    const answers = file('url-content', [{ action: 'accept', content: { env: 'dev' } }]);
    const r = await call('link', answers);
    expect(r.out).toBe('cancel');
    expect(r.code).toBe(3);
    expect(r.err, 'nothing on stderr says the URL answer carried content and was cancelled').toMatch(
      /^elicitkit: .*(URL|content)/im,
    );
  }, 60_000);

  it('a URL consented to from the file is shown (it is opened by no one), so the page can still be visited', async () => {
    const answers = file('url-accept', [{ action: 'accept' }]);
    const r = await call('link', answers);
    expect(r.out).toBe('accept');
    expect(r.code).toBe(0);
    expect(r.err, 'the consented URL is printed nowhere: the server waits for a page nobody opens').toContain(
      'https://example.com/set-password',
    );
    expect(r.err).toMatch(/^elicitkit: consented to https:\/\/example\.com\/set-password \(not opened here\)/m);
  }, 60_000);

  it('--json: the reports stay on stderr, stdout is the JSON result alone', async () => {
    const answers = file('json', [{ action: 'accept', content: { env: 'dev' } }]);
    const r = await call('two', answers, '--json');
    expect(JSON.parse(r.out).result.content[0].text).toBe('accept,cancel');
    expect(r.err).toMatch(/^elicitkit: .*no scripted answer/im);
  }, 60_000);

  it('a URL declined from the file is not reported as consented', async () => {
    const answers = file('url-decline', [{ action: 'decline' }]);
    const r = await call('link', answers);
    expect(r.out).toBe('decline');
    expect(r.code).toBe(3);
    expect(r.err).not.toContain('https://example.com/set-password');
  }, 60_000);
});
