/**
 * Hostile answers, generated: a client on a 2025-11-25 session (raw JSON-RPC over the SDK's
 * in-memory pair, so nothing checks what it sends) answers each `elicitation/create` of `deploy`
 * with whatever a fuzzer makes — results of any shape, actions that are not, content with wrong
 * types, extra and prototype keys, errors, answers to ids never asked. Whatever comes, the call
 * ends with a result the kit wrote (a status, never a crash's text or -32603), and a deployment
 * happens only as a person could have confirmed it: an environment of the list, and for prod the
 * box ticked and an approved ticket — once.
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { createElicitkit } from './kit.js';

const json = fc.jsonValue({ maxDepth: 3 });
const key = fc.oneof(
  fc.constantFrom('env', 'confirmed', 'ticket', '__proto__', 'constructor', 'toString', ''),
  fc.string({ maxLength: 8 }),
);
const value = fc.oneof(
  fc.constantFrom('dev', 'staging', 'prod', 'PROD', 'prod ', 'REL-1001', 'REL-1002', true, false, 'true', 1, 0, null),
  json,
);
const content = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(key, value, { maxKeys: 4 }) },
  fc.constantFrom(
    { env: 'dev' },
    { env: 'prod' },
    { confirmed: true, ticket: 'REL-1001' },
    { confirmed: 'true', ticket: 'REL-1001' },
    { confirmed: true, ticket: ['REL-1001'] },
    { confirmed: 1, ticket: 'REL-1001' },
  ),
  json,
);
/** What the client sends back for one question: a result, an error, or nothing of the kind. */
const answer = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      { action: fc.constantFrom('accept', 'decline', 'cancel', 'Accept', '', 'ok'), content, _meta: json },
      { requiredKeys: ['action'] },
    ),
  },
  fc.record({ error: fc.record({ code: fc.integer(), message: fc.string(), data: json }, { requiredKeys: [] }) }),
  json.map((result) => ({ result })),
);

/** Answers a person's client might well send, near misses included: the deploy's two questions in turn. */
const plausible = fc.tuple(
  fc.record({
    action: fc.constantFrom('accept', 'accept', 'accept', 'decline', 'cancel'),
    content: fc.record({ env: fc.constantFrom('prod', 'prod', 'prod', 'dev', 'PROD', ' prod', 'test') }),
  }),
  fc.record({
    action: fc.constantFrom('accept', 'accept', 'accept', 'decline', 'cancel'),
    content: fc.record(
      {
        confirmed: fc.constantFrom<unknown>(true, true, true, false, 'true', 1, null),
        ticket: fc.constantFrom<unknown>(
          'REL-1001',
          'REL-1001',
          'REL-1002',
          'REL-1001 ',
          'rel-1001',
          ['REL-1001'],
          1001,
        ),
      },
      { requiredKeys: ['confirmed'] },
    ),
  }),
  answer,
);

const CAPABILITIES = { elicitation: { form: {} } };

/** One call of `deploy` on a fresh session, each question answered with the next of `answers`. */
async function callWith(service: string, answers: unknown[]) {
  const store = createStore();
  // A reply the SDK cannot read as one (a result that is not an object, an error without its
  // message) is dropped by it, as by the raw SDK: the question then waits out its timeout, kept
  // short here. An answer in time takes a few milliseconds; a slow host only turns more runs into
  // timeouts, which the property allows.
  const server = createElicitkit({ timeoutMs: 250 }).createServer({ name: 'a', version: '1' }, fixtureTools(store));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const sent: JSONRPCMessage[] = [];
  let asked = 0;
  const ended = new Promise<{ result?: unknown; error?: { code: number; message: string } }>((resolve) => {
    clientSide.onmessage = (m) => {
      sent.push(m);
      const message = m as { id?: number | string; method?: string; result?: unknown; error?: never };
      if (message.method === 'elicitation/create' && message.id !== undefined) {
        const next = answers[asked++] ?? { action: 'cancel' };
        const reply =
          typeof next === 'object' && next !== null && ('error' in next || 'result' in next)
            ? { jsonrpc: '2.0', id: message.id, ...next }
            : { jsonrpc: '2.0', id: message.id, result: next };
        // An answer to an id never asked first, then the real one.
        void clientSide
          .send({ jsonrpc: '2.0', id: 987_654, result: { action: 'accept', content: { env: 'prod' } } } as never)
          .then(() => clientSide.send(reply as never));
      } else if (message.id === 2 && (message.result !== undefined || message.error !== undefined)) resolve(message);
    };
  });
  await clientSide.start();
  await clientSide.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, clientInfo: { name: 'a', version: '1' } },
  });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await clientSide.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'deploy', arguments: { service } },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result in 10 s; sent ${JSON.stringify(sent)}`)), 10_000);
  });
  try {
    return { response: await Promise.race([ended, late]), store };
  } finally {
    clearTimeout(timer);
    await server.close();
  }
}

/** What an answer could have been confirmed as, read as strictly as the form reads it. */
function accepted(a: unknown): Record<string, unknown> | undefined {
  const { action, content } = (a ?? {}) as { action?: unknown; content?: unknown };
  if (action !== 'accept' || typeof content !== 'object' || content === null || Array.isArray(content))
    return undefined;
  return content as Record<string, unknown>;
}

describe('hostile answers to a question', () => {
  it('the call ends with a result the kit wrote, and deploys only what could have been confirmed, once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 2, arbitrary: plausible }, fc.array(answer, { minLength: 1, maxLength: 3 })),
        async (answers: unknown[]) => {
          const { response, store } = await callWith('api', answers);
          const shown = JSON.stringify({ answers, response });
          expect(response.error?.code, shown).not.toBe(-32603);
          const result = response.result as { structuredContent?: { status?: unknown } } | undefined;
          expect(result?.structuredContent?.status, shown).toBeTypeOf('string');
          const env = accepted(answers[0])?.env;
          const deployed = store.deployments;
          expect(deployed.length, shown).toBeLessThanOrEqual(1);
          if (deployed.length === 0) return;
          expect(result?.structuredContent?.status, shown).toBe('done');
          expect(['dev', 'staging', 'prod'], shown).toContain(env);
          expect(deployed[0], shown).toMatchObject({ service: 'api', env });
          if (env === 'prod') {
            const confirm = accepted(answers[1]);
            expect(confirm?.confirmed, shown).toBe(true);
            expect(confirm?.ticket, shown).toBe('REL-1001');
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
