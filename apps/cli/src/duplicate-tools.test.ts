/**
 * A server whose `tools/list` gives two tools one name — on one page or on two — is flagged:
 * `tools` lists both and warns, `call` of that name refuses to call when the two differ (which one
 * runs would be the server's pick) and warns when they are the same definition given twice (a page
 * repeated), and `doctor` reports it as it reports a tool list the SDK refuses (the profile not
 * passed, exit 1), checking the name once. Was: nothing said; `call` ran whichever the server
 * picked, `doctor` called the name twice and passed. A raw-SDK stdio server whose pages are given
 * as JSON; each tools/call it receives is written to a file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SERVER = `
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const [pagesJson, callsFile] = process.argv.slice(1);
const pages = JSON.parse(pagesJson);
const server = new Server({ name: 'twins', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async (req) => {
  const page = Number(req.params?.cursor ?? 0);
  return { tools: pages[page], ...(page + 1 < pages.length ? { nextCursor: String(page + 1) } : {}) };
});
server.setRequestHandler('tools/call', async (req) => {
  appendFileSync(callsFile, req.params.name + '\\n');
  return { content: [{ type: 'text', text: 'ran ' + req.params.name }] };
});
await server.connect(new StdioServerTransport());
`;

const dir = mkdtempSync(join(tmpdir(), 'elicitkit-duplicate-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const EMPTY = { type: 'object', properties: {} };
const tool = (name: string, description: string, inputSchema: object = EMPTY) => ({
  name,
  description,
  inputSchema,
  annotations: { readOnlyHint: true },
});
const DEPLOY_A = tool('deploy', 'Deploys to staging.');
const DEPLOY_B = tool('deploy', 'Deploys to production.', {
  type: 'object',
  properties: { force: { type: 'boolean' } },
});
const PING = tool('ping', 'Answers.');

/** The stdio command serving `pages`, and the file its calls are written to. */
function serving(pages: object[][]): { command: string[]; calls: () => string[] } {
  const file = join(dir, `calls-${++files}.txt`);
  return {
    command: [
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      '--input-type=module',
      '-e',
      SERVER,
      JSON.stringify(pages),
      file,
    ],
    calls: () => {
      try {
        return readFileSync(file, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

describe('two tools of one name', () => {
  it.each([
    ['on one page', [[DEPLOY_A, PING, DEPLOY_B]]],
    ['on two pages', [[DEPLOY_A, PING], [DEPLOY_B]]],
    ['on two pages, one of them a tool the SDK refuses', [[DEPLOY_A, { ...PING, description: 5 }], [DEPLOY_B]]],
  ])(
    'that differ, %s: call refuses to call it, tools warns',
    async (_, pages) => {
      const server = serving(pages);
      const called = await run(['call', 'deploy', ...server.command]);
      expect(called.code).toBe(1);
      expect(called.err).toContain('2 different tools named "deploy"');
      expect(called.err).toContain('nothing was called');
      expect(called.out).toBe('');
      expect(server.calls()).toEqual([]);

      const listed = await run(['tools', '--json', ...server.command]);
      expect(listed.code).toBe(0);
      const json = JSON.parse(listed.out);
      expect(json.tools.filter((t: { name: string }) => t.name === 'deploy')).toHaveLength(2);
      expect(json.duplicates).toEqual([{ name: 'deploy', count: 2, same: false }]);
      expect(listed.err).toContain('2 different tools named "deploy"');
    },
    60_000,
  );

  it('that differ: another tool of the server is still called', async () => {
    const server = serving([[DEPLOY_A, PING], [DEPLOY_B]]);
    const r = await run(['call', 'ping', ...server.command]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('ran ping');
    expect(server.calls()).toEqual(['ping']);
  }, 60_000);

  it('the same definition on two pages (a page given again): called, with a warning', async () => {
    const server = serving([[DEPLOY_A, PING], [DEPLOY_A]]);
    const r = await run(['call', 'deploy', ...server.command]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('ran deploy');
    expect(r.err).toContain('the tool "deploy" 2 times');
    expect(server.calls()).toEqual(['deploy']);
    const listed = await run(['tools', ...server.command]);
    expect(listed.code).toBe(0);
    expect(listed.err).toContain('the tool "deploy" 2 times');
  }, 60_000);

  it('doctor reports it, does not pass, and checks the name once', async () => {
    const server = serving([[DEPLOY_A, PING], [DEPLOY_B]]);
    const r = await run(['doctor', '--yes', '--json', ...server.command]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    for (const revision of report.revisions) expect(revision.error).toContain('2 different tools named "deploy"');
    expect(report.summary.stopped).toHaveLength(report.revisions.length);
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(['deploy', 'ping']);
    const deployCalls = server.calls().filter((name) => name === 'deploy').length;
    const pingCalls = server.calls().filter((name) => name === 'ping').length;
    expect(deployCalls).toBe(pingCalls);
    expect(r.err).toContain('named "deploy"');
  }, 60_000);
});
