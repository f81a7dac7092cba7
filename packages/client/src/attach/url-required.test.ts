/**
 * `Attachment.urlRequired`: the URL questions of a -32042 error (2025-11-25) put to the person as
 * pushed ones are, then a wait — bounded by the policy's timeout — for the server to say each page
 * is done. Only a completion after the person's consent counts (one sent before is ignored, as for
 * a pushed question). A real SDK client on the in-memory pair; the server sends the completions.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, connect } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { ElicitationEvent } from './events.js';
import { type Attachment, attach } from './index.js';
import { MAX_URLS_REQUIRED } from './url-required.js';

const page = (elicitationId: string) => ({
  mode: 'url',
  elicitationId,
  url: `https://calendar.example.com/connect?id=${elicitationId}`,
  message: 'Connect your calendar account to continue.',
});
const required = (...elicitations: unknown[]) =>
  new ProtocolError(ProtocolErrorCode.UrlElicitationRequired, 'URL elicitation required', { elicitations });

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(answers: Parameters<typeof createScriptedRenderer>[0], timeoutMs = 60_000) {
  const events: ElicitationEvent[] = [];
  const opened: string[] = [];
  let attachment: Attachment | undefined;
  open = await connect('2025-11-25', (client) => {
    attachment = attach(client, {
      renderer: createScriptedRenderer(answers),
      policy: { timeoutMs },
      onEvent: (e) => events.push(e),
      opener: (url) => {
        opened.push(url);
      },
    });
  });
  return { connection: open, attachment: attachment as Attachment, events, opened };
}

describe('urlRequired', () => {
  it('opens each consented page and resolves finished once the server said each is done', async () => {
    const { connection, attachment, events, opened } = await setup([{ action: 'accept' }, { action: 'accept' }]);
    const outcome = attachment.urlRequired(required(page('a'), page('b')));
    await expect.poll(() => opened.length).toBe(2);
    await connection.complete('a');
    await connection.complete('b');
    expect(await outcome).toEqual({ action: 'accept', finished: true });
    expect(opened).toEqual(['https://calendar.example.com/connect?id=a', 'https://calendar.example.com/connect?id=b']);
    expect(
      events.filter((e) => e.type === 'url-completed').map((e) => (e as { elicitationId: string }).elicitationId),
    ).toEqual(['a', 'b']);
  });

  it('a completion sent before the consent is ignored: not finished within the policy timeout', async () => {
    const { connection, attachment } = await setup([{ action: 'accept' }], 300);
    await connection.complete('early');
    expect(await attachment.urlRequired(required(page('early')))).toEqual({ action: 'accept', finished: false });
  });

  it('a declined or cancelled page ends it at once, the pages after it not asked', async () => {
    const { attachment, opened, events } = await setup([{ action: 'decline' }]);
    expect(await attachment.urlRequired(required(page('a'), page('b')))).toEqual({ action: 'decline' });
    expect(opened).toEqual([]);
    expect(events.filter((e) => e.type === 'request')).toHaveLength(1);
  });

  it.each([
    ['no questions', required()],
    ['a form question', required({ mode: 'form', elicitationId: 'x', message: 'Name?', requestedSchema: {} })],
    ['a question without its id', required({ mode: 'url', url: 'https://example.com', message: 'Go.' })],
    [
      'more pages than are asked at once',
      required(...Array.from({ length: MAX_URLS_REQUIRED + 1 }, (_, i) => page(`p${i}`))),
    ],
    ['a URL that is no web page', required({ ...page('a'), url: 'javascript:alert(1)' })],
  ])('%s: rejected, saying why, nothing opened', async (_label, error) => {
    const { attachment, opened } = await setup([{ action: 'accept' }]);
    const outcome = await attachment.urlRequired(error);
    expect(outcome?.action).toBe('rejected');
    expect(outcome && 'message' in outcome ? outcome.message.length : 0).toBeGreaterThan(0);
    expect(opened).toEqual([]);
  });

  it('any other error is not its to answer; nor is one where the renderer takes no URL questions', async () => {
    const { attachment } = await setup([]);
    expect(await attachment.urlRequired(new Error('boom'))).toBeUndefined();
    expect(await attachment.urlRequired(new ProtocolError(ProtocolErrorCode.InvalidParams, 'no'))).toBeUndefined();
    let formOnly: Attachment | undefined;
    const second = await connect('2025-11-25', (client) => {
      formOnly = attach(client, { renderer: { ...createScriptedRenderer([]), modes: { form: true, url: false } } });
    });
    expect(await formOnly?.urlRequired(required(page('a')))).toBeUndefined();
    await second.close();
  });
});
