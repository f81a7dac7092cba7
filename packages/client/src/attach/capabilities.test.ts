import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { person } from '../../test/recording.js';
import { type Connection, connect, REVISIONS } from '../../test/servers.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import type { Renderer } from '../types.js';
import type { ElicitationEvent } from './events.js';
import { attach } from './index.js';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function withModes(form: boolean, url: boolean): Renderer {
  return { ...person([]), modes: { form, url } };
}

describe.each(REVISIONS)('declared capabilities on %s', (revision) => {
  it.each([
    [true, true, { form: {}, url: {} }],
    [true, false, { form: {} }],
    [false, true, { url: {} }],
  ])('form=%s url=%s declares exactly that', async (form, url, expected) => {
    open = await connect(revision, (client) => {
      expect(attach(client, { renderer: withModes(form, url) }).modes).toEqual({ form, url });
    });
    expect((await open.capabilities()).elicitation).toEqual(expected);
  });

  it('declares no elicitation capability at all when the renderer can do neither', async () => {
    open = await connect(revision, (client) => {
      expect(attach(client, { renderer: withModes(false, false) }).modes).toEqual({ form: false, url: false });
    });
    expect((await open.capabilities()).elicitation).toBeUndefined();
  });
});

describe('no terminal and no answers', () => {
  it('declares nothing, so servers fall back honestly (child process with stdin a pipe)', async () => {
    const child = fileURLToPath(new URL('../../test/no-tty-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=@elicitkit/source', child],
      { timeout: 30_000 },
    );
    const none = { modes: { form: false, url: false }, elicitation: null, stdinIsTTY: false };
    expect(JSON.parse(stdout)).toEqual({ '2025-11-25': none, '2026-07-28': none });
  });
});

describe('attach misuse', () => {
  it('refuses to attach after connect(), when capabilities are fixed', async () => {
    open = await connect('2025-11-25', () => {});
    expect(() => attach(open?.client as Client, { renderer: person([]) })).toThrow(
      expect.objectContaining({ code: 'ALREADY_CONNECTED' }),
    );
  });

  it.each([
    [{ secrets: 'ignore' }, /policy.secrets/],
    [{ rateLimit: { max: 0, perMs: 1000 } }, /rateLimit.max/],
    [{ rateLimit: { max: 2.5, perMs: 1000 } }, /rateLimit.max/],
    [{ rateLimit: { max: 5, perMs: -1 } }, /rateLimit.perMs/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ timeoutMs: Number.NaN }, /timeoutMs/],
    [{ maxAttempts: 0 }, /maxAttempts/],
  ])('refuses the policy %j', (policy, message) => {
    const client = new Client({ name: 'c', version: '1' });
    expect(() => attach(client, { renderer: person([]), policy: policy as never })).toThrow(message);
    expect(() => attach(client, { renderer: person([]), policy: policy as never })).toThrow(
      expect.objectContaining({ code: 'BAD_POLICY' }),
    );
  });

  it('ignores an event listener that throws', async () => {
    open = await connect('2025-11-25', (client) =>
      attach(client, {
        renderer: createScriptedRenderer([{ action: 'decline' }]),
        onEvent: () => {
          throw new Error('listener bug');
        },
      }),
    );
    const schema = { type: 'object', properties: { ticket: { type: 'string', title: 'Release ticket' } } };
    expect(await open.ask({ message: 'Which release ticket covers this?', requestedSchema: schema })).toEqual({
      action: 'decline',
    });
  });
});

describe('opening a consented URL', () => {
  const ask = {
    mode: 'url' as const,
    message: 'Finish on the page.',
    url: 'https://example.com/x',
    elicitationId: 'e',
  };

  async function consented(options: { opener?: (url: string) => void; rendererOpener?: (url: string) => void }) {
    const events: ElicitationEvent[] = [];
    const renderer = createScriptedRenderer(
      [{ action: 'accept' }],
      options.rendererOpener ? { opener: options.rendererOpener } : {},
    );
    open = await connect('2025-11-25', (client) =>
      attach(client, {
        renderer,
        onEvent: (e) => events.push(e),
        ...(options.opener ? { opener: options.opener } : {}),
      }),
    );
    const received = await open.ask(ask);
    return { received, consent: events.find((e) => e.type === 'url-consented') };
  }

  it("uses the renderer's opener when attach is given none", async () => {
    const opened: string[] = [];
    const { received, consent } = await consented({ rendererOpener: (url) => void opened.push(url) });
    expect(received).toEqual({ action: 'accept' });
    expect(opened).toEqual(['https://example.com/x']);
    expect(consent).toMatchObject({ opened: 'yes' });
  });

  it('prefers the opener given to attach', async () => {
    const mine: string[] = [];
    const renderers: string[] = [];
    await consented({ opener: (url) => void mine.push(url), rendererOpener: (url) => void renderers.push(url) });
    expect([mine, renderers]).toEqual([['https://example.com/x'], []]);
  });

  it('still answers accept when opening fails, and reports the failure', async () => {
    const { received, consent } = await consented({
      opener: () => {
        throw new Error('no browser here');
      },
    });
    expect(received).toEqual({ action: 'accept' });
    expect(consent).toMatchObject({ opened: 'failed', error: expect.objectContaining({ message: 'no browser here' }) });
  });

  it('reports a consent that nothing could open', async () => {
    const { received, consent } = await consented({});
    expect(received).toEqual({ action: 'accept' });
    expect(consent).toMatchObject({ opened: 'no-opener', url: 'https://example.com/x' });
  });
});
