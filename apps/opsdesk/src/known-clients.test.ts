/**
 * The acceptance test of the known-clients table on opsdesk itself: over stdio and HTTP, on every
 * revision, a client announcing itself as Trae receives the production confirmation as a Yes/No
 * choice, and choosing Yes deploys (the tool got its boolean); a text-only Cline is told what is
 * missing instead of being shown a form it cannot draw.
 */
import { join } from 'node:path';
import { REVISIONS, type Revision } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Step } from '../../../test/support/mcp.js';
import { type Conn, count, httpClient, peek, stdioClient, tempDataDir } from '../test/harness.js';
import { readAudit } from './audit.js';
import { type HttpServing, serveHttp } from './serve-http.js';

type Params = { requestedSchema: { properties: Record<string, Record<string, unknown>> } };

/** Trae's person: checks the confirmation is a Yes/No choice in the revision's shape, then picks Yes. */
function picksYes(revision: Revision): Step {
  return (params) => {
    const confirmed = (params as Params).requestedSchema.properties.confirmed;
    if (revision === '2025-06-18')
      expect(confirmed).toMatchObject({ type: 'string', enum: ['yes', 'no'], enumNames: ['Yes', 'No'] });
    else
      expect(confirmed).toMatchObject({
        type: 'string',
        oneOf: [
          { const: 'yes', title: 'Yes' },
          { const: 'no', title: 'No' },
        ],
      });
    expect(confirmed).not.toHaveProperty('type', 'boolean');
    return { action: 'accept', content: { confirmed: 'yes', ticket: 'REL-1001' } };
  };
}

/** The last deploy_service request in the audit, as `readAudit` gives it back. */
async function lastConfirmation(dir: string): Promise<Record<string, unknown> | undefined> {
  const db = new BetterSqlite3(join(dir, 'opsdesk.db'), { readonly: true });
  try {
    return (await readAudit(db)).requests.filter((r) => r.tool === 'deploy_service').at(-1);
  } finally {
    db.close();
  }
}

const deploymentsOf = (dir: string) =>
  peek<{ service: string; env: string; ticket: string }>(
    dir,
    "SELECT service, env, ticket FROM deployments WHERE env = 'prod'",
  );

describe.each(REVISIONS)('opsdesk and known clients over stdio (%s)', (revision) => {
  const data = tempDataDir();
  let trae: Conn;
  let cline: Conn;
  beforeAll(async () => {
    [trae, cline] = await Promise.all([
      stdioClient(data.dir, { revision, user: 'alice', clientName: 'Trae' }),
      stdioClient(data.dir, { revision, user: 'alice', clientName: 'Cline' }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([trae?.close(), cline?.close()]);
    data.remove();
  });

  it('Trae: the production confirmation is a Yes/No choice; Yes is the boolean the tool wants, and it deploys', async () => {
    const before = deploymentsOf(data.dir).length;
    trae.script.push(picksYes(revision));
    const r = await callTool(trae.client, 'deploy_service', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('done');
    expect(trae.script).toEqual([]);
    expect(deploymentsOf(data.dir)).toHaveLength(before + 1);
    expect(deploymentsOf(data.dir).at(-1)).toMatchObject({ service: 'order-service', env: 'prod', ticket: 'REL-1001' });
    expect(await lastConfirmation(data.dir)).toMatchObject({
      client: 'trae',
      adaptation: { quirk: 'booleanAsChoice', fields: ['confirmed'] },
      delivered: true,
    });
  });

  it('Trae: No is false, and nothing deploys', async () => {
    const before = count(data.dir, 'deployments');
    trae.script.push({ action: 'accept', content: { confirmed: 'no', ticket: 'REL-1001' } });
    const r = await callTool(trae.client, 'deploy_service', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('invalid');
    expect(count(data.dir, 'deployments')).toBe(before);
  });

  it('Cline (text only): the two-field confirmation is unsupported with its arguments named, nothing asked', async () => {
    const before = count(data.dir, 'deployments');
    const r = await callTool(cline.client, 'deploy_service', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('unsupported');
    // The audit says which client it was not sent to, and why.
    expect(await lastConfirmation(data.dir)).toMatchObject({ client: 'cline', delivered: false });
    expect(r.text).toMatch(/confirmed/);
    expect(r.text).toMatch(/ticket/);
    expect(cline.seen).toEqual([]);
    expect(count(data.dir, 'deployments')).toBe(before);
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('opsdesk and Trae over HTTP (%s)', (revision) => {
  const data = tempDataDir();
  let server: HttpServing;
  let trae: Conn;
  beforeAll(async () => {
    server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const token = server.newTokens.find((t) => t.username === 'alice')?.token ?? '';
    trae = await httpClient(server.url, token, { revision, clientName: 'Trae' });
  }, 120_000);
  afterAll(async () => {
    await trae?.close();
    await server?.close();
    data.remove();
  });

  it('the production confirmation is a Yes/No choice; Yes deploys', async () => {
    const before = deploymentsOf(data.dir).length;
    trae.script.push(picksYes(revision));
    const r = await callTool(trae.client, 'deploy_service', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('done');
    expect(deploymentsOf(data.dir)).toHaveLength(before + 1);
    expect(deploymentsOf(data.dir).at(-1)).toMatchObject({ service: 'order-service', env: 'prod', ticket: 'REL-1001' });
  });
});
