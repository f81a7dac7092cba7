/**
 * One person, two protocol revisions: the same actions give the same structured outcome whether
 * the question is pushed (2025-11-25, `elicitation/create` on a session) or returned and answered
 * by a retried call (2026-07-28, `input_required` and a sealed state). Real SDK clients over HTTP
 * on loopback, each answering with the SDK's own handler (the 2026 client fulfils the rounds
 * itself). A client that goes away mid-question is not here: on 2025 the tool sees `cancel`
 * (`disconnected`), on 2026 nobody retries and the tool never learns anything (see
 * `http/call-signal.test.ts`, `cancel-before-effect.test.ts`).
 */
import { field, form } from '@elicitkit/form';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

type Reply = { action: 'accept'; content?: Record<string, string> } | { action: 'decline' | 'cancel' };

/** What the person does: their answer to the form, to the page's dialog, and whether they finish on the page. */
interface Person {
  form?: Reply;
  page?: Reply;
  finishes?: boolean;
}

function actTool(page: { finished: boolean }) {
  return defineTool({
    name: 'act',
    description: 'Asks for a colour (form) or sends the person to a page (URL mode).',
    inputSchema: z.object({ mode: z.enum(['form', 'page']) }),
    outputSchema: outcomeSchema({ colour: z.string() }),
    forms: { colour: form({ colour: field.select(['red', 'blue', 'green'], { title: 'Colour' }) }) },
    async run({ mode }, { ask, askUrl }) {
      if (mode === 'form') {
        const answer = await ask('colour', {
          message: 'Which colour?',
          check: ({ colour }) => (colour === 'green' ? { field: 'colour', message: 'Green is out of stock.' } : []),
        });
        if (answer.action !== 'accept') return answer.result();
        return done(`Painted ${answer.value.colour}.`, { colour: answer.value.colour });
      }
      const answer = await askUrl('page', {
        message: 'Finish on the page.',
        url: 'https://shop.example.com/step/1',
        isComplete: () => page.finished,
      });
      if (answer.action !== 'accept') return answer.result();
      return done('The page step is done.');
    },
  });
}

async function outcome(revision: '2025-11-25' | '2026-07-28', mode: 'form' | 'page', person: Person) {
  const page = { finished: false };
  const kit = createElicitkit({ urlWaitMs: 200, pollMs: 5 });
  const served = await onLoopback(
    createHttpHandler(() => kit.createServer({ name: 'shop', version: '1' }, [actTool(page)])),
  );
  cleanup.push(served.close);
  const client = new Client(
    { name: 'person', version: '1' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    if ((request.params as { mode?: string }).mode === 'url') {
      if (person.finishes) page.finished = true;
      return person.page ?? { action: 'accept' };
    }
    return person.form ?? { action: 'cancel' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'act', arguments: { mode } }, { timeout: 30_000 });
  return { structuredContent: result.structuredContent, isError: result.isError === true };
}

const CASES: [string, 'form' | 'page', Person, string][] = [
  ['accept', 'form', { form: { action: 'accept', content: { colour: 'red' } } }, 'done'],
  ['decline', 'form', { form: { action: 'decline' } }, 'declined'],
  ['cancel', 'form', { form: { action: 'cancel' } }, 'cancelled'],
  ['an answer the check refuses', 'form', { form: { action: 'accept', content: { colour: 'green' } } }, 'invalid'],
  ['an answer the form refuses', 'form', { form: { action: 'accept', content: { colour: 'pink' } } }, 'invalid'],
  ['accepted empty', 'form', { form: { action: 'accept', content: {} } }, 'invalid'],
  ['the page finished', 'page', { page: { action: 'accept' }, finishes: true }, 'done'],
  ['the page not finished', 'page', { page: { action: 'accept' }, finishes: false }, 'pending'],
  ['the page declined, not finished', 'page', { page: { action: 'decline' } }, 'declined'],
  ['the page declined after finishing there', 'page', { page: { action: 'decline' }, finishes: true }, 'done'],
  ['the page cancelled after finishing there', 'page', { page: { action: 'cancel' }, finishes: true }, 'done'],
  ['the page cancelled', 'page', { page: { action: 'cancel' } }, 'cancelled'],
];

describe('the same person-actions on 2025-11-25 (push) and 2026-07-28 (rounds)', () => {
  for (const [what, mode, person, status] of CASES)
    it(`${what}: ${status}, the same on both`, async () => {
      const pushed = await outcome('2025-11-25', mode, person);
      const rounds = await outcome('2026-07-28', mode, person);
      expect(pushed.structuredContent).toMatchObject({ status });
      expect(rounds).toEqual(pushed);
    });

  it('a refused answer, then the call again with a good one: invalid, then done, on both', async () => {
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      const first = await outcome(revision, 'form', { form: { action: 'accept', content: { colour: 'green' } } });
      expect(first.structuredContent, revision).toMatchObject({ status: 'invalid', issues: [{ field: 'colour' }] });
      const fixed = await outcome(revision, 'form', { form: { action: 'accept', content: { colour: 'blue' } } });
      expect(fixed.structuredContent, revision).toMatchObject({ status: 'done', colour: 'blue' });
    }
  });
});
