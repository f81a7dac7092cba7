/**
 * A call whose connection closes (a stdio client that exits, an in-memory pair closed) — no
 * `notifications/cancelled` — has not been cancelled by anyone: the trail says `disconnected`,
 * and a URL-mode question whose person is still on the page stays `pending` (a retry may find the
 * flow done), as over HTTP. Was: both read the call's aborted signal as the client's cancel — the
 * trail blamed the client ('client-cancelled') and the page's question ended `cancel`.
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../test/audit-log.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

async function connect(kit: ReturnType<typeof createElicitkit>, tool: Parameters<typeof kit.createServer>[1][number]) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'desk', version: '1' }, [tool]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler('elicitation/create', async (request) =>
    request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { env: 'dev' } },
  );
  await client.connect(b);
  cleanup.push(() => client.close());
  return client;
}

const reasons = (log: ReturnType<typeof auditLog>) =>
  log.events.filter((e) => e.type === 'response').map((e) => e.reason ?? null);

describe('a call whose connection closed, nobody cancelling it', () => {
  it('on the page: the question stays pending, and nobody is blamed for a cancel', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, urlWaitMs: 60_000, pollMs: 5 });
    const outcomes: string[] = [];
    let onPage!: () => void;
    const consented = new Promise<void>((resolve) => {
      onPage = resolve;
    });
    const tool = defineTool({
      name: 'enrol',
      description: 'Enrols the person; they set their secret on our page.',
      inputSchema: z.object({}),
      async run(_args, { askUrl }) {
        const page = await askUrl('secret', {
          message: 'Open the page to set your secret.',
          url: 'https://accounts.example.com/secret/abc',
          isComplete: () => {
            onPage();
            return false;
          },
        });
        outcomes.push(page.action);
        return page.action === 'accept' ? done('Enrolled.') : page.result();
      },
    });
    const client = await connect(kit, tool);
    const call = client.callTool({ name: 'enrol', arguments: {} }).catch((e: unknown) => e);
    await consented;
    await client.close();
    await call;
    await expect.poll(() => outcomes).toEqual(['pending']);
    expect(reasons(log)).not.toContain('client-cancelled');
  });

  it('between the answer and the effect: the effect does not start, and the trail says disconnected', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink });
    const acted: string[] = [];
    let answered!: () => void;
    const gotAnswer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tool = defineTool({
      name: 'deploy',
      description: 'Deploys order-service.',
      forms: {
        env: form({
          env: field.select(
            ['dev', 'prod'].map((v) => ({ value: v, title: v })),
            { title: 'Env' },
          ),
        }),
      },
      async run(_args, ctx) {
        const answer = await ctx.ask('env', { message: 'Which environment should order-service go to?' });
        if (answer.action !== 'accept') return answer.result();
        answered();
        await gate;
        return ctx.commit(() => {
          acted.push(answer.value.env);
          return done('Deployed.');
        });
      },
    });
    const client = await connect(kit, tool);
    const call = client.callTool({ name: 'deploy', arguments: {} }).catch((e: unknown) => e);
    await gotAnswer;
    await client.close();
    await call;
    release();
    await expect.poll(() => reasons(log)).toEqual([null, 'disconnected']);
    expect(acted).toEqual([]);
  });
});
