import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueToken, serveHttp } from '@elicitkit/opsdesk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';
import { main } from './main.js';

const SERVER = ['--', process.execPath, fileURLToPath(new URL('../test/escape-server.mjs', import.meta.url))];
/** What would drive a terminal: C0 controls but the line break, DEL and C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const DRIVES_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('a server whose texts carry terminal control sequences', () => {
  it('elicitkit tools prints its names, titles, descriptions and arguments without them', async () => {
    const r = await run(['tools', '--revision', '2025-11-25', ...SERVER]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Says things');
    expect(r.out).toContain('all good');
    expect(r.out).not.toMatch(DRIVES_TERMINAL);
    expect(r.err).not.toMatch(DRIVES_TERMINAL);
  }, 60_000);

  it('elicitkit call prints its result and status without them; --json keeps the data as sent', async () => {
    const r = await run(['call', 'shout', 'what=x', '--revision', '2025-11-25', ...SERVER]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('result');
    expect(r.out).not.toMatch(DRIVES_TERMINAL);
    expect(r.err).toContain('status: done');
    expect(r.err).not.toMatch(DRIVES_TERMINAL);
    const json = await run(['call', 'shout', 'what=x', '--revision', '2025-11-25', '--json', ...SERVER]);
    expect(JSON.parse(json.out).result.content[0].text).toContain('\u001b[2J');
  }, 60_000);
});

describe('elicitkit audit', () => {
  it('prints what a hostile client put in the trail (its error text) without control sequences', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ek-audit-escapes-'));
    try {
      const server = await serveHttp({ dataDir: dir, locale: 'en', port: 0 });
      const client = new Client(
        { name: 'hostile', version: '1.0.0' },
        { capabilities: { elicitation: { form: {}, url: {} } } },
      );
      client.setRequestHandler('elicitation/create', async () => {
        throw new Error('cannot \u001b[2J\u001b]52;c;ZXZpbA==\u0007\rall good\u202eevil');
      });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: { authorization: `Bearer ${await issueToken(server.opsdesk.store, 'alice')}` } },
          }),
        );
        await client.callTool({ name: 'deploy_service', arguments: { service: 'order-service' } });
      } finally {
        await client.close();
        await server.close();
      }
      const text: string[] = [];
      expect(await main(['audit', '--data', dir], { out: (s) => text.push(s), err: () => {} })).toBe(0);
      expect(text.join('\n')).toContain('all good');
      expect(text.join('\n')).not.toMatch(DRIVES_TERMINAL);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('elicitkit doctor', () => {
  it('reports on the server without its control sequences in the text report', async () => {
    const r = await run(['doctor', '--timeout-ms', '2000', ...SERVER]);
    expect(r.out).toContain('shout');
    expect(r.out).not.toMatch(DRIVES_TERMINAL);
  }, 120_000);
});
