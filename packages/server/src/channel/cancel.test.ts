/**
 * Client cancellations (2025 push): a cancelled call's open question ends at once as `cancel`
 * (client-cancelled) and is withdrawn from the client, a cancel of one call never ends another's
 * question, a cancel that came before the question went out still ends it, on a kit-built server
 * and on one the kit did not build alike: each question carries its call's own signal.
 * Real SDK client and server over a linked in-memory pair; the audit says how each question ended.
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../../test/audit-log.js';
import type { AuditEvent, AuditResponse } from '../audit.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

/** A tool that waits for `gate` (when given) before it asks. */
function asking(gate?: Promise<void>) {
  return defineTool({
    name: 'pick',
    description: 'asks for a colour',
    inputSchema: z.object({ n: z.number() }),
    forms: { colour: form({ colour: field.select(['red', 'blue'], { title: 'Colour' }) }) },
    async run({ n }, { ask }) {
      await gate;
      const answer = await ask('colour', { message: `Which colour for item ${n}?` });
      if (answer.action !== 'accept') return answer.result();
      return done(`Item ${n} is ${answer.value.colour}.`);
    },
  });
}

/** A client that never answers; each question it is sent is recorded, and marked withdrawn if the server cancels it. */
function silentClient() {
  const client = new Client({ name: 'silent', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  const asked: { message: string; withdrawn: boolean }[] = [];
  const waiters: (() => void)[] = [];
  client.setRequestHandler('elicitation/create', (request, ctx) => {
    const entry = { message: String(request.params.message), withdrawn: false };
    asked.push(entry);
    for (const w of waiters.splice(0)) w();
    return new Promise((_resolve, reject) => {
      ctx.mcpReq.signal.addEventListener('abort', () => {
        entry.withdrawn = true;
        reject(new Error('withdrawn'));
      });
    });
  });
  const askedCount = async (n: number) => {
    while (asked.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { client, asked, askedCount };
}

async function connect(server: McpServer, client: Client): Promise<void> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  cleanup.push(() => client.close());
}

function call(client: Client, n: number, signal: AbortSignal) {
  return client.callTool({ name: 'pick', arguments: { n } }, { signal, timeout: 60_000 }).catch((e: unknown) => e);
}

const responses = (events: AuditEvent[]) => events.filter((e): e is AuditResponse => e.type === 'response');

describe('client cancellations', () => {
  it('ends the cancelled call’s question at once and withdraws it from the client; another call’s question stays open', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, timeoutMs: 60_000 });
    const c = silentClient();
    await connect(kit.createServer({ name: 's', version: '1' }, [asking()]), c.client);
    const first = new AbortController();
    const second = new AbortController();
    const one = call(c.client, 1, first.signal);
    void call(c.client, 2, second.signal);
    await c.askedCount(2);
    first.abort();
    expect(await one).toBeInstanceOf(Error);
    expect(await log.response('colour')).toMatchObject({ action: 'cancel', reason: 'client-cancelled' });
    await expect.poll(() => c.asked.find((a) => a.message.includes('item 1'))?.withdrawn).toBe(true);
    expect(c.asked.find((a) => a.message.includes('item 2'))?.withdrawn).toBe(false);
    expect(responses(log.events)).toHaveLength(1);
    // The second question was still open: it ends only when the connection does.
    await c.client.close();
    await expect.poll(() => responses(log.events).length).toBe(2);
    expect(responses(log.events)[1]).toMatchObject({ action: 'cancel', reason: 'disconnected' });
  });

  it('ends a question asked after its call was cancelled without waiting for an answer, and never sends it', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, timeoutMs: 60_000 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const c = silentClient();
    await connect(kit.createServer({ name: 's', version: '1' }, [asking(gate)]), c.client);
    const abort = new AbortController();
    const pending = call(c.client, 3, abort.signal);
    // The call is running (its handler waits at the gate) when the client cancels it.
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    open();
    expect(await log.response('colour')).toMatchObject({ action: 'cancel', reason: 'client-cancelled' });
    expect(c.asked).toEqual([]);
  });

  it('ends the question on a server the kit did not build too', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, timeoutMs: 60_000 });
    const server = new McpServer(
      { name: 'hand-built', version: '1' },
      { capabilities: { tools: {} }, ...kit.serverOptions() },
    );
    kit.register(server, asking());
    const c = silentClient();
    await connect(server, c.client);
    const abort = new AbortController();
    const pending = call(c.client, 4, abort.signal);
    await c.askedCount(1);
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect(await log.response('colour')).toMatchObject({ action: 'cancel', reason: 'client-cancelled' });
    await expect.poll(() => c.asked[0]?.withdrawn).toBe(true);
  });
});
