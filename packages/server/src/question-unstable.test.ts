/**
 * A 2026-07-28 question that changes on every look (a count, a clock in its message, a URL minted
 * per round) is asked again each round, and no answer to it can ever count. Past
 * `maxQuestionChanges` answers set aside, the ask ends `invalid` with the issue code
 * `question_unstable` instead of asking once more: for a person answering in a client, for a client
 * that echoes every new state with the same old answer, over HTTP on loopback and over stdio. A
 * client replaying an older state can restart from that state's count, but only until the
 * question's time is up. The SDK's own clients, never hand-made JSON-RPC.
 */
import { fileURLToPath } from 'node:url';
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeArgs, quietStdio } from '../../../test/support/children.js';
import { type Loopback, loopback } from '../test/loopback.js';
import type { AuditEvent } from './audit.js';
import type { ElicitkitOptions } from './kit.js';
import { QUESTION_UNSTABLE } from './outcome.js';

const SERVER = fileURLToPath(new URL('../test/stdio-server.ts', import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function served(kit: ElicitkitOptions = {}): Promise<Loopback> {
  const server = await loopback({ volatile: true, kit });
  cleanup.push(() => server.close());
  return server;
}

/** A 2026-07-28 SDK client that fulfils every round itself, its person always answering `staging`. */
async function answeringClient(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const asked: string[] = [];
  const client = new Client(
    { name: 'patient-person', version: '1' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { env: 'staging' } };
  });
  await client.connect(transport, { timeout: 60_000 });
  cleanup.push(() => client.close().catch(() => {}));
  return { client, asked };
}

/** A 2026-07-28 SDK client that sends each round by hand. */
async function manualClient(url: string) {
  const client = new Client(
    { name: 'replayer', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.push(() => client.close().catch(() => {}));
  const round = (extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name: 'volatile_deploy', arguments: {}, ...extra } },
      { allowInputRequired: true },
    );
  return round;
}

const staging = { env: { action: 'accept', content: { env: 'staging' } } };

function stateOf(round: unknown): string {
  if (!isInputRequiredResult(round)) throw new Error(`expected input_required, got ${JSON.stringify(round)}`);
  return String(round.requestState);
}

function expectUnstable(result: unknown, key: string, changes = 3) {
  expect(result).toMatchObject({
    isError: true,
    structuredContent: {
      status: 'invalid',
      question: key,
      issues: [
        { field: '', code: QUESTION_UNSTABLE, message: expect.stringContaining(`"${key}" changed ${changes} times`) },
      ],
    },
  });
}

describe('2026-07-28: a question that changes on every look ends the call, typed', () => {
  it('over HTTP: a person answering each round is asked 3 times, then the call ends invalid (question_unstable)', async () => {
    const server = await served();
    const { client, asked } = await answeringClient(new StreamableHTTPClientTransport(new URL(server.url)));
    const result = await client.callTool({ name: 'volatile_deploy', arguments: {} });
    expectUnstable(result, 'env');
    expect(asked).toEqual([1, 2, 3].map((n) => expect.stringContaining(`(queue checked ${n} times)`)));
    expect(server.store.deployments).toEqual([]);

    // The trail: each question, each answer that did not count and why, then what ended the call.
    const trail = server.log.events.map((e: AuditEvent) =>
      e.type === 'request'
        ? ['request', e.message]
        : e.type === 'response'
          ? ['response', e.action, e.detail]
          : e.type === 'validation'
            ? ['validation', e.ok, e.issues.map((i) => i.code)]
            : ['violation', e.rule],
    );
    expect(trail).toEqual([
      ['request', expect.stringContaining('1 times')],
      ['response', 'accept', expect.stringContaining('the question changed before this answer arrived')],
      ['request', expect.stringContaining('2 times')],
      ['response', 'accept', expect.stringContaining('the question changed before this answer arrived')],
      ['request', expect.stringContaining('3 times')],
      ['response', 'accept', expect.stringContaining('3 times in this call')],
      ['validation', false, [QUESTION_UNSTABLE]],
      ['violation', 'EK18'],
    ]);
  });

  it('over stdio: the same, in a child process', async () => {
    const transport = quietStdio({
      command: process.execPath,
      args: nodeArgs(SERVER),
      env: { ...(process.env as Record<string, string>), ELICITKIT_VOLATILE: '1' },
    });
    const { client, asked } = await answeringClient(transport);
    const result = await client.callTool({ name: 'volatile_deploy', arguments: {} }, { timeout: 60_000 });
    expectUnstable(result, 'env');
    expect(asked).toHaveLength(3);
    const listed = (await client.callTool({ name: 'deployments', arguments: {} })) as {
      structuredContent: { deployments: unknown[] };
    };
    expect(listed.structuredContent.deployments).toEqual([]);
  });

  it('a URL that changes every round: consent is never taken for another page, and the call ends', async () => {
    const server = await served();
    const { client, asked } = await answeringClient(new StreamableHTTPClientTransport(new URL(server.url)));
    expectUnstable(await client.callTool({ name: 'volatile_page', arguments: {} }), 'page');
    expect(asked).toHaveLength(3);
  });

  it('maxQuestionChanges: 1 ends at the first answer that did not count', async () => {
    const server = await served({ maxQuestionChanges: 1 });
    const { client, asked } = await answeringClient(new StreamableHTTPClientTransport(new URL(server.url)));
    expectUnstable(await client.callTool({ name: 'volatile_deploy', arguments: {} }), 'env', 1);
    expect(asked).toHaveLength(1);
  });

  it('a client echoing each new state with the same old answer ends at the bound: the count is sealed', async () => {
    const server = await served();
    const round = await manualClient(server.url);
    let state = stateOf(await round());
    for (let i = 0; i < 2; i++) state = stateOf(await round({ inputResponses: staging, requestState: state }));
    expectUnstable(await round({ inputResponses: staging, requestState: state }), 'env');
    expect(server.store.deployments).toEqual([]);
  });

  it('a client replaying the first state for ever: never acts, and stops being asked once the time is up', async () => {
    let clock = Date.now();
    const server = await served({ now: () => clock, timeoutMs: 60_000 });
    const round = await manualClient(server.url);
    const first = stateOf(await round());
    for (let i = 0; i < 20; i++) {
      clock += 1_000;
      // Each replay starts again from the first state's count: asked anew, nothing done.
      stateOf(await round({ inputResponses: staging, requestState: first }));
    }
    expect(server.store.deployments).toEqual([]);
    clock += 60_000;
    expect(await round({ inputResponses: staging, requestState: first })).toMatchObject({
      structuredContent: { status: 'timeout' },
    });
  });

  it('on 2025-11-25 the question is asked once and its answer counts (nothing is built again)', async () => {
    const server = await served();
    const client = new Client({ name: 'legacy', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    cleanup.push(() => client.close().catch(() => {}));
    const result = await client.callTool({ name: 'volatile_deploy', arguments: {} });
    expect(result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(server.store.deployments).toEqual([{ service: 'order-service', env: 'staging' }]);
  });
});
