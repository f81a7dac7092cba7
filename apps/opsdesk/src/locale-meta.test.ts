/**
 * One opsdesk, each call in its caller's language: a request whose `_meta` says
 * `io.elicitkit/locale: zh` gets its questions, fields, options, refusals and result in Chinese
 * from an English opsdesk, and the next call without it is English again — on both wire
 * revisions, over real HTTP.
 */
import { LOCALE_META_KEY, type Revision } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Conn, httpClient, httpOpsdeskForSuite } from '../test/harness.js';
import { MESSAGES } from './messages/index.js';

const served = httpOpsdeskForSuite();
const REVISIONS: Revision[] = ['2025-11-25', '2026-07-28'];

describe.each(REVISIONS)('a per-request locale (%s)', (revision) => {
  let c: Conn;
  beforeAll(async () => {
    c = await httpClient(served.server.url, await served.server.ownerToken(`lang-${revision}`), { revision });
  });
  afterAll(() => c.close());
  const call = async (name: string, args: Record<string, unknown>, locale?: string) => {
    const result = await c.client.callTool(
      { name, arguments: args, ...(locale ? { _meta: { [LOCALE_META_KEY]: locale } } : {}) },
      { timeout: 30_000 },
    );
    return result as { content: { text: string }[]; structuredContent?: { status?: string } };
  };

  it('asks and answers in Chinese for a request that says zh, in English otherwise', async () => {
    c.script.push({ action: 'accept', content: { env: 'dev' } });
    const zh = await call('deploy_service', { service: 'search-service' }, 'zh');
    const asked = c.seen.at(-1) as { message: string; requestedSchema: { properties: { env: { title: string } } } };
    expect(asked.message).toBe(MESSAGES.zh.envMessage('search-service', 'v0.9.4'));
    expect(asked.requestedSchema.properties.env.title).toBe(MESSAGES.zh.envTitle);
    expect(zh.structuredContent?.status).toBe('done');
    expect(zh.content[0]?.text).toMatch(/[\u4e00-\u9fff]/);

    c.script.push({ action: 'accept', content: { env: 'dev' } });
    const en = await call('deploy_service', { service: 'search-service' });
    const again = c.seen.at(-1) as { message: string };
    expect(again.message).toBe(MESSAGES.en.envMessage('search-service', 'v0.9.4'));
    expect(en.content[0]?.text).not.toMatch(/[\u4e00-\u9fff]/);
  });

  it('the library’s own words follow it too: a decline, a refusal', async () => {
    c.script.push({ action: 'decline' });
    const declined = await call('deploy_service', { service: 'search-service' }, 'zh');
    expect(declined.structuredContent?.status).toBe('declined');
    expect(declined.content[0]?.text).toMatch(/[\u4e00-\u9fff]/);
    const refused = await call('deploy_service', { service: 'no-such-service' }, 'zh');
    expect(refused.structuredContent?.status).toBe('rejected');
    expect(refused.content[0]?.text).toMatch(/[\u4e00-\u9fff]/);
  });

  it('a locale it does not know is ignored (the server’s own is used)', async () => {
    c.script.push({ action: 'decline' });
    const result = await call('deploy_service', { service: 'search-service' }, 'tlh');
    expect(result.content[0]?.text).not.toMatch(/[\u4e00-\u9fff]/);
  });
});
