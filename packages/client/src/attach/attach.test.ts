import type { FormSchema } from '@elicitkit/form';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../test/recording.js';
import { type Connection, connect, REVISIONS, SERVER_INFO } from '../../test/servers.js';
import { MAX_MESSAGE_LENGTH } from '../checks/message.js';
import { MAX_URL_LENGTH } from '../checks/url.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { FormPrompt, UrlPrompt } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

const DEPLOY: FormSchema = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: 'Environment',
      oneOf: [
        { const: 'dev', title: 'Development' },
        { const: 'prod', title: 'Production' },
      ],
    },
    confirmed: { type: 'boolean', title: 'I take responsibility for this release', default: false },
    ticket: { type: 'string', title: 'Release ticket', minLength: 4 },
  },
  required: ['env', 'ticket'],
};
const MESSAGE = 'Deploy order-service to which environment, under which release ticket?';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(REVISIONS)('attach on %s', (revision) => {
  async function setup(answers: Parameters<typeof createScriptedRenderer>[0], opened: string[] = []) {
    const events: ElicitationEvent[] = [];
    const recorded = recording(createScriptedRenderer(answers));
    open = await connect(revision, (client) =>
      attach(client, {
        renderer: recorded.renderer,
        onEvent: (e) => events.push(e),
        opener: (url) => {
          opened.push(url);
        },
      }),
    );
    return { connection: open, prompts: recorded.prompts, events };
  }

  it('sends an accepted form, defaults applied and validated, and shows who asks', async () => {
    const { connection, prompts, events } = await setup([
      { action: 'accept', content: { env: 'prod', ticket: 'REL-1001' } },
    ]);
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: DEPLOY })).toEqual({
      action: 'accept',
      content: { env: 'prod', ticket: 'REL-1001', confirmed: false },
    });
    const prompt = prompts[0] as FormPrompt;
    expect(prompt).toMatchObject({ mode: 'form', message: MESSAGE, server: SERVER_INFO, attempt: 1, secretFields: [] });
    expect(prompt.fields.map((f) => [f.name, f.kind])).toEqual([
      ['env', 'select'],
      ['confirmed', 'boolean'],
      ['ticket', 'text'],
    ]);
    expect(prompt.elicitationId).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['request', 'answered']);
    expect(events[1]).toMatchObject({ type: 'answered', action: 'accept' });
  });

  it('passes decline and cancel through unchanged', async () => {
    const { connection } = await setup([{ action: 'decline' }, { action: 'cancel' }]);
    const ask = { mode: 'form' as const, message: MESSAGE, requestedSchema: DEPLOY };
    expect(await connection.ask(ask)).toEqual({ action: 'decline' });
    expect(await connection.ask(ask)).toEqual({ action: 'cancel' });
  });

  it('never sends invalid content as accept: a scripted answer that does not fit answers cancel', async () => {
    const { connection, events } = await setup([{ action: 'accept', content: { env: 'staging', ticket: 'R1' } }]);
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: DEPLOY })).toEqual({
      action: 'cancel',
    });
    const invalid = events.find((e) => e.type === 'invalid-answer');
    expect(invalid).toMatchObject({ attempt: 1, willRetry: false });
    expect(invalid?.type === 'invalid-answer' && invalid.issues.map((i) => `${i.path[0]}:${i.code}`)).toEqual([
      'env:not_in_options',
      'ticket:too_short',
    ]);
  });

  it.each([
    ['required names a missing field', { ...DEPLOY, required: ['env', 'nope'] }, /required names "nope"/],
    ['additionalProperties allowed', { ...DEPLOY, additionalProperties: true }, /additionalProperties/],
    [
      'enumNames of the wrong length',
      { type: 'object', properties: { e: { type: 'string', title: 'E', enum: ['a', 'b'], enumNames: ['A'] } } },
      /enumNames/,
    ],
    [
      'negative minLength',
      { type: 'object', properties: { t: { type: 'string', title: 'T', minLength: -1 } } },
      /minLength/,
    ],
    [
      'a default outside its options',
      { type: 'object', properties: { e: { type: 'string', title: 'E', enum: ['a'], default: 'b' } } },
      /default/,
    ],
  ])('answers -32602 for a schema outside the subset (%s), without asking', async (_label, requestedSchema, why) => {
    const { connection, prompts, events } = await setup([{ action: 'accept-defaults' }]);
    const received = await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema });
    expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
    expect('error' in received && received.error.message).toMatch(why);
    expect(prompts).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['request', 'rejected']);
  });

  it('asks consent for a URL, opens it only on accept, and reports the warnings', async () => {
    const opened: string[] = [];
    const { connection, prompts, events } = await setup([{ action: 'decline' }, { action: 'accept' }], opened);
    const ask = {
      mode: 'url' as const,
      message: 'Set your password on the secure page.',
      url: 'http://opsdesk.example.com/password?token=abc',
      elicitationId: 'flow-1',
    };
    expect(await connection.ask(ask)).toEqual({ action: 'decline' });
    expect(opened).toEqual([]);
    expect(await connection.ask(ask)).toEqual({ action: 'accept' });
    expect(opened).toEqual(['http://opsdesk.example.com/password?token=abc']);
    const prompt = prompts[0] as UrlPrompt;
    expect(prompt).toMatchObject({ mode: 'url', host: 'opsdesk.example.com', server: SERVER_INFO });
    expect(prompt.warnings.map((w) => w.code)).toEqual(['insecure', 'token']);
    // 2025-11-25 carries the server's elicitationId; 2026-07-28 has none on the wire.
    expect(prompt.elicitationId).toBe(revision === '2025-11-25' ? 'flow-1' : undefined);
    expect(events.filter((e) => e.type === 'url-consented')).toEqual([
      { type: 'url-consented', id: 2, url: ask.url, opened: 'yes' },
    ]);
  });

  it.each([
    ['a punycode host', 'https://xn--pypal-4ve.com/login', ['punycode']],
    ['plain http to a remote host', 'http://opsdesk.example.com/setup', ['insecure']],
    ['credentials in the URL', 'https://paypal.com:pw@evil.example/login', ['credentials']],
    ['a token in the query', 'https://opsdesk.example.com/setup?access_token=abc', ['token']],
  ])('warns about %s and opens nothing on decline or cancel', async (_label, url, codes) => {
    const opened: string[] = [];
    const { connection, prompts } = await setup([{ action: 'decline' }, { action: 'cancel' }], opened);
    const ask = { mode: 'url' as const, message: 'Finish signing in on the page.', url, elicitationId: 'e1' };
    expect(await connection.ask(ask)).toEqual({ action: 'decline' });
    expect(await connection.ask(ask)).toEqual({ action: 'cancel' });
    expect(opened).toEqual([]);
    expect((prompts[0] as UrlPrompt).warnings.map((w) => w.code)).toEqual(codes);
  });

  it('answers -32602 for a URL that is not a web page, and opens nothing', async () => {
    const opened: string[] = [];
    const { connection, prompts } = await setup([{ action: 'accept' }], opened);
    const received = await connection.ask({
      mode: 'url',
      message: 'Open the file.',
      url: 'file:///etc/passwd',
      elicitationId: 'x',
    });
    expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
    expect(prompts).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('answers -32602 for a URL longer than a link may be, without asking or opening it', async () => {
    const opened: string[] = [];
    const { connection, prompts, events } = await setup([{ action: 'accept' }], opened);
    const url = `https://opsdesk.example.com/setup?state=${'a'.repeat(MAX_URL_LENGTH)}`;
    const received = await connection.ask({
      mode: 'url',
      message: 'Finish signing in on the page.',
      url,
      elicitationId: 'u',
    });
    expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
    expect('error' in received && received.error.message).toMatch(/characters long, over the 8192 a link may have/);
    expect(events.map((e) => e.type)).toEqual(['request', 'rejected']);
    expect(prompts).toEqual([]);
    expect(opened).toEqual([]);
  });

  it.each(['form', 'url'] as const)(
    'answers -32602 for a %s question whose message is longer than a question may carry, without asking',
    async (mode) => {
      const opened: string[] = [];
      const { connection, prompts } = await setup(
        [{ action: 'accept', content: { env: 'dev', ticket: 'REL-1001' } }],
        opened,
      );
      const message = `Which environment? ${'x'.repeat(MAX_MESSAGE_LENGTH)}`;
      const received = await connection.ask(
        mode === 'form'
          ? { mode, message, requestedSchema: DEPLOY }
          : { mode, message, url: 'https://opsdesk.example.com/setup', elicitationId: 'long' },
      );
      expect(received).toMatchObject({ error: { code: ProtocolErrorCode.InvalidParams } });
      expect('error' in received && received.error.message).toMatch(/characters long, over the 65536/);
      // Just under the limit, the same question is asked.
      expect(
        await connection.ask({ mode: 'form', message: message.slice(0, MAX_MESSAGE_LENGTH), requestedSchema: DEPLOY }),
      ).toMatchObject({ action: 'accept' });
      expect(prompts).toHaveLength(1);
      expect(opened).toEqual([]);
    },
  );

  it('answers cancel and reports it when the script has run out', async () => {
    const { connection, events } = await setup([]);
    expect(await connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: DEPLOY })).toEqual({
      action: 'cancel',
    });
    const failed = events.find((e) => e.type === 'renderer-failed');
    expect(failed?.type === 'renderer-failed' && failed.error).toMatchObject({ code: 'ANSWERS_EXHAUSTED', index: 0 });
  });
});
