/**
 * A tool whose result JSON cannot hold (a BigInt, a cycle, a `toJSON` that throws), returned
 * without `commit`'s own checks. The SDK sends a result by serialising it, and a failure there
 * reaches no one: the caller used to wait until its timeout. Now the caller is told at once, on
 * every transport and revision: with nothing done, as the tool's error naming the mistake; after
 * the call's effect ran, with what JSON can hold of the result, marked `unrecorded`.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, nodeArgs } from '../../../test/support/children.js';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { httpTransport, onLoopback } from '../test/loopback.js';
import { unsendableTools } from '../test/unsendable-tools.js';
import type { AuditEvent } from './audit.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { defineTool } from './tool.js';

const SERVER = fileURLToPath(new URL('../test/stdio-server.ts', import.meta.url));
const MISTAKE = 'could not be sent';
/** Far below the SDK's 60 s default: a caller left waiting fails here, not by the suite's timeout. */
const TIMEOUT = { timeout: 10_000 };

type Result = { isError?: boolean; content?: { text?: string }[]; structuredContent?: Record<string, unknown> };
const text = (result: unknown) => ((result as Result).content ?? []).map((block) => block.text).join(' ');

/** What a tool written in JavaScript may return instead of a result. */
const SHAPELESS: Record<string, unknown> = {
  returns_nothing: undefined,
  returns_null: null,
  returns_text: 'Deployed.',
  returns_list: [{ type: 'text', text: 'Deployed.' }],
};
const shapeless = Object.entries(SHAPELESS).map(([name, value]) =>
  defineTool({
    name,
    description: 'Returns what is not a tool result.',
    async run() {
      return value as never;
    },
  }),
);

const acted: string[] = [];
const audit: AuditEvent[] = [];
let serving: { url: string; close(): Promise<void> };
beforeAll(async () => {
  const kit = createElicitkit({
    secret: 'a secret of at least thirty-two characters, for this test',
    audit: (event) => void audit.push(event),
  });
  serving = await onLoopback(
    createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, [...unsendableTools(acted), ...shapeless])),
  );
});
afterAll(async () => serving?.close());

/** A 2025-11-25 SDK client (the SDK's default handshake) over HTTP answering every question with `answer`. */
async function legacyClient(answer: Record<string, unknown>) {
  const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => answer as never);
  await client.connect(httpTransport(serving.url));
  return client;
}

describe('a result JSON cannot hold, with nothing done: the tool error, at once', () => {
  it.each(['count_rows', 'count_cycle', 'count_tojson'])('2026-07-28 over HTTP: %s', async (name) => {
    const first = await wireRound(serving.url, { name, arguments: {} });
    const answered =
      name === 'count_rows'
        ? first
        : await wireRound(serving.url, {
            name,
            arguments: {},
            inputResponses: { env: accept({ env: 'dev' }) },
            requestState: pendingOf(first).requestState,
          });
    expect(answered.status).toBe(200);
    expect(answered.result?.isError).toBe(true);
    expect(text(answered.result)).toContain(MISTAKE);
    expect(text(answered.result)).toContain(name);
  });

  it.each(['count_rows', 'count_cycle', 'count_tojson'])('2025-11-25 over HTTP: %s', async (name) => {
    const client = await legacyClient({ action: 'accept', content: { env: 'dev' } });
    try {
      const result = await client.callTool({ name, arguments: {} }, TIMEOUT);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(MISTAKE);
    } finally {
      await client.close();
    }
  });

  it('a decline whose result the tool widened with a BigInt: the tool error, not silence', async () => {
    const client = await legacyClient({ action: 'decline' });
    try {
      const result = await client.callTool({ name: 'count_cycle', arguments: {} }, TIMEOUT);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(MISTAKE);
    } finally {
      await client.close();
    }
  });

  it("over stdio, on 2025-11-25 (the SDK's default handshake) and 2026-07-28", async () => {
    for (const pin of [undefined, '2026-07-28'] as const) {
      const client = new Client(
        { name: 't', version: '1' },
        { capabilities: { elicitation: { form: {} } }, ...(pin ? { versionNegotiation: { mode: { pin } } } : {}) },
      );
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
      await connectStdio(
        client,
        {
          command: process.execPath,
          args: nodeArgs(SERVER),
          env: { ...(process.env as Record<string, string>), ELICITKIT_UNSENDABLE: '1' },
        },
        { timeout: 60_000 },
      );
      try {
        for (const name of ['count_rows', 'count_cycle', 'count_tojson']) {
          const result = await client.callTool({ name, arguments: {} }, TIMEOUT);
          expect(result.isError, `${name} on ${pin ?? '2025-11-25'}`).toBe(true);
          expect(text(result)).toContain(MISTAKE);
        }
        // The connection still serves: the failure ended one call, not the session.
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('count_rows');
      } finally {
        await client.close();
      }
    }
  });
});

// Was: "Cannot read properties of null", or the SDK's schema dump, or (nothing returned) the
// message for a BigInt.
describe('a result that is no result (nothing, null, a string, a list): the tool error, naming it', () => {
  const said = {
    returns_nothing: 'returned nothing (a missing return?), not a tool result',
    returns_null: 'returned null, not a tool result',
    returns_text: 'returned a string, not a tool result',
    returns_list: 'returned an array, not a tool result',
  };
  it.each(Object.entries(said))('2026-07-28 and 2025-11-25 over HTTP: %s', async (name, sentence) => {
    const modern = await wireRound(serving.url, { name, arguments: {} });
    expect(modern.result?.isError).toBe(true);
    expect(text(modern.result)).toContain(`${name} ${sentence}`);
    const client = await legacyClient({ action: 'cancel' });
    try {
      const result = await client.callTool({ name, arguments: {} }, TIMEOUT);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`${name} ${sentence}`);
    } finally {
      await client.close();
    }
  });
});

describe('a result JSON cannot hold, after the effect ran: what it can hold, marked unrecorded', () => {
  it('2026-07-28 over HTTP: the deploy is told once, and a replay gets the committed record', async () => {
    acted.length = 0;
    audit.length = 0;
    const first = pendingOf(await wireRound(serving.url, { name: 'deploy_then_widen', arguments: {} }));
    const final = {
      name: 'deploy_then_widen',
      arguments: {},
      inputResponses: { env: accept({ env: 'prod' }) },
      requestState: first.requestState,
    };
    const answered = await wireRound(serving.url, final);
    expect(acted).toEqual(['prod']);
    expect(answered.result?.isError).not.toBe(true);
    expect(answered.result?.structuredContent).toMatchObject({ status: 'done', env: 'prod', outcome: 'unrecorded' });
    expect(answered.result?.structuredContent).not.toHaveProperty('id');
    expect(text(answered.result)).toContain('Deployed to prod.');
    expect(audit.some((e) => e.type === 'violation' && e.rule === 'UNRECORDED')).toBe(true);
    // The effect's own result was recorded before the tool changed it: a replay gets that, nothing runs.
    const replay = await wireRound(serving.url, final);
    expect(replay.result?.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
    expect(acted).toEqual(['prod']);
  });

  it('2025-11-25 over HTTP: the deploy is told, not left waiting', async () => {
    acted.length = 0;
    const client = await legacyClient({ action: 'accept', content: { env: 'dev' } });
    try {
      const result = await client.callTool({ name: 'deploy_then_widen', arguments: {} }, TIMEOUT);
      expect(acted).toEqual(['dev']);
      expect(result.structuredContent).toMatchObject({ status: 'done', env: 'dev', outcome: 'unrecorded' });
    } finally {
      await client.close();
    }
  });
});
