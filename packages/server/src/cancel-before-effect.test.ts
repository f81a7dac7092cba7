/**
 * A call the client cancels (or whose request goes away) after the person answered but before
 * the side effect started — while the answer's business check was still running — never starts
 * the effect: `ctx.commit` returns the `cancelled` result instead, and the audit trail says the
 * call was cancelled after that answer. A 2026-07-28 retry of the same final round then acts,
 * once. Real SDK clients: a linked in-memory pair and a 2025 session over HTTP on loopback
 * (`notifications/cancelled`), and a 2026-07-28 round over HTTP whose request is aborted.
 */
import { field, form } from '@elicitkit/form';
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../test/audit-log.js';
import { onLoopback } from '../test/loopback.js';
import type { AuditEvent } from './audit.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A tool whose answer's check waits for the test (`release`); `checking` resolves once it started. */
function gatedTool() {
  const effects: string[] = [];
  let callSignal: AbortSignal | undefined;
  let gate = deferred();
  let started = deferred();
  const tool = defineTool({
    name: 'paint',
    description: 'Paints the item in the colour the person picks.',
    inputSchema: z.object({}),
    forms: { colour: form({ colour: field.select(['red', 'blue'], { title: 'Colour' }) }) },
    async run(_args, { ask, commit, signal }) {
      callSignal = signal;
      const answer = await ask('colour', {
        message: 'Which colour should the item be painted?',
        check: async () => {
          started.resolve();
          await gate.promise;
          return [];
        },
      });
      if (answer.action !== 'accept') return answer.result();
      return commit(() => {
        effects.push(String(answer.value.colour));
        return done(`Painted ${answer.value.colour}.`);
      });
    },
  });
  return {
    tool,
    effects,
    checking: () => started.promise,
    /** Whether the server has seen the call end (the tool's own `ctx.signal`). */
    ended: () => callSignal?.aborted === true,
    release: () => gate.resolve(),
    /** A new gate for the next round. */
    reset: () => {
      gate = deferred();
      started = deferred();
    },
  };
}

function answering(options: ConstructorParameters<typeof Client>[1] = {}) {
  const client = new Client(
    { name: 'painter', version: '1' },
    { capabilities: { elicitation: { form: {} } }, ...options },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { colour: 'red' } }));
  cleanup.push(() => client.close().catch(() => {}));
  return client;
}

async function overHttp(kit: ReturnType<typeof createElicitkit>, tool: ReturnType<typeof gatedTool>['tool']) {
  const served = await onLoopback(createHttpHandler(() => kit.createServer({ name: 'painter', version: '1' }, [tool])));
  cleanup.push(served.close);
  return new URL(served.url);
}

/** `Promise.withResolvers`, which Node 20 lacks. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Calls the tool, cancels the call while its answer is being checked, lets the check finish once
 * the server has seen the call end, and expects no effect and four audit events.
 */
async function cancelledWhileChecking(
  client: Client,
  gated: ReturnType<typeof gatedTool>,
  log: ReturnType<typeof auditLog>,
) {
  const abort = new AbortController();
  const call = client.callTool({ name: 'paint', arguments: {} }, { signal: abort.signal }).catch((e: unknown) => e);
  await gated.checking();
  abort.abort();
  expect(await call).toBeInstanceOf(Error);
  await expect.poll(gated.ended).toBe(true);
  gated.release();
  await expect.poll(() => log.events.length).toBe(4);
  expect(gated.effects).toEqual([]);
}

const trail = (events: AuditEvent[]) =>
  events.map((e) => (e.type === 'response' ? [e.type, e.action, e.reason ?? null] : [e.type]));

describe('a call cancelled after the answer, before its effect', () => {
  it('2025-11-25 over an in-memory pair: notifications/cancelled while the answer is checked — no effect', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink });
    const gated = gatedTool();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await kit.createServer({ name: 'painter', version: '1' }, [gated.tool]).connect(a);
    const client = answering();
    await client.connect(b);
    await cancelledWhileChecking(client, gated, log);
    expect(trail(log.events)).toEqual([
      ['request'],
      ['response', 'accept', null],
      ['validation'],
      ['response', 'cancel', 'client-cancelled'],
    ]);
  });

  it('2025-11-25 session over HTTP: the same', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink });
    const gated = gatedTool();
    const client = answering();
    await client.connect(new StreamableHTTPClientTransport(await overHttp(kit, gated.tool)));
    await cancelledWhileChecking(client, gated, log);
    expect(log.events[3]).toMatchObject({ type: 'response', key: 'colour', action: 'cancel' });
  });

  it('2026-07-28 over HTTP: the final round aborted mid-check acts not; the same round sent again acts once', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink });
    const gated = gatedTool();
    const client = answering({
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    });
    await client.connect(new StreamableHTTPClientTransport(await overHttp(kit, gated.tool)));
    const round = (extra: Record<string, unknown>, signal?: AbortSignal) =>
      client.request(
        { method: 'tools/call', params: { name: 'paint', arguments: {}, ...extra } },
        { allowInputRequired: true, ...(signal ? { signal } : {}) },
      );
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the colour question');
    const final = {
      inputResponses: { colour: { action: 'accept', content: { colour: 'red' } } },
      requestState: first.requestState,
    };
    const abort = new AbortController();
    const cut = round(final, abort.signal).catch((e: unknown) => e);
    await gated.checking();
    abort.abort();
    expect(await cut).toBeInstanceOf(Error);
    await expect.poll(gated.ended).toBe(true);
    gated.release();
    await expect.poll(() => log.events.some((e) => e.type === 'response' && e.action === 'cancel')).toBe(true);
    expect(gated.effects).toEqual([]);

    gated.reset();
    gated.release();
    expect(await round(final)).toMatchObject({ structuredContent: { status: 'done' } });
    expect(await round(final)).toMatchObject({ structuredContent: { status: 'done' } });
    expect(gated.effects).toEqual(['red']);
  });
});
