/**
 * Chats of different users on the bundled opsdesk share what is the same for all of them — one
 * tool list, one compiled output schema per tool — and nothing else: with questions open in both
 * at once, each chat's stream carries only its own question, another chat's answer to it is
 * refused, and each answer ends its own chat's call as its own user (alice deploys order-service,
 * bob search-service, the only one he may). Through the route handlers, opsdesk in process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptChat } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-shared-opsdesk-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { answer, ask, newBrowser } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { chatOf, resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { heldToolLists, schemaValidator, SharedSchemaValidator } = await import('../lib/shared-tools');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

async function as(user: 'alice' | 'bob'): Promise<Browser> {
  const b = await newBrowser();
  const chosen = await adoptChat(
    b,
    await postIdentity(
      new Request('http://localhost/api/chat/identity', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ user }),
      }),
    ),
  );
  expect(chosen.status).toBe(200);
  const tools = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
  expect(tools.status).toBe(200);
  return b;
}

async function connection(b: Browser) {
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  return chat?.connections.get('opsdesk');
}

const questionIds = (chunks: Record<string, unknown>[]) =>
  new Set(chunks.filter((c) => c.type === 'data-elicitation').map((c) => (c.data as { id: string }).id));

describe('chats of different users share tool lists, never questions or answers', () => {
  it('keeps each open question and its answer in its own chat', async () => {
    const alice = await as('alice');
    const bob = await as('bob');
    const aliceConnection = await connection(alice);
    const bobConnection = await connection(bob);
    // Two MCP clients, one per chat and user; one list between them (opsdesk lists the same tools to both).
    expect(aliceConnection?.client).not.toBe(bobConnection?.client);
    expect(aliceConnection?.tools).toBeDefined();
    expect(aliceConnection?.tools).toBe(bobConnection?.tools);
    expect(heldToolLists()).toBe(1);

    const aliceAsked = await ask(alice, '/deploy_service service=order-service');
    const bobAsked = await ask(bob, '/deploy_service service=search-service');
    expect(aliceAsked.id).not.toBe(bobAsked.id);
    // Neither may answer the other's question.
    expect((await answer(bob, aliceAsked.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(403);
    expect((await answer(alice, bobAsked.id, { action: 'cancel' })).status).toBe(403);

    expect((await answer(alice, aliceAsked.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    expect((await answer(bob, bobAsked.id, { action: 'accept', content: { env: 'staging' } })).status).toBe(200);
    const aliceChunks = await aliceAsked.rest;
    const bobChunks = await bobAsked.rest;
    expect(questionIds(aliceChunks)).toEqual(new Set([aliceAsked.id]));
    expect(questionIds(bobChunks)).toEqual(new Set([bobAsked.id]));
    const output = (chunks: Record<string, unknown>[]) =>
      chunks.find((c) => c.type === 'tool-output-available')?.output as { status?: string; text: string };
    expect(output(aliceChunks)).toMatchObject({ status: 'done', text: expect.stringContaining('order-service') });
    expect(output(bobChunks)).toMatchObject({ status: 'done', text: expect.stringContaining('search-service') });
    expect(output(bobChunks).text).not.toContain('order-service');
  });

  it('compiles a tool’s output schema once for every chat and turn, not once per turn in each chat', async () => {
    const validator = schemaValidator();
    if (!(validator instanceof SharedSchemaValidator)) throw new Error('not the shared validator');
    const alice = await as('alice');
    const bob = await as('bob');
    const deploy = async (b: Browser, service: string) => {
      const asked = await ask(b, `/deploy_service service=${service}`);
      expect((await answer(b, asked.id, { action: 'cancel' })).status).toBe(200);
      await asked.rest;
    };
    await deploy(alice, 'order-service');
    const compiled = validator.compiled;
    for (let i = 0; i < 3; i++) {
      await deploy(alice, 'order-service');
      await deploy(bob, 'search-service');
    }
    expect(validator.compiled).toBe(compiled);
  });
});
