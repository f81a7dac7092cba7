/**
 * A call whose person finished a page's flow (a payment, a sign-in: `askUrl` ended `accept`) and
 * then refused or could not answer a later question. What the page does happened; the result the
 * call ends with says so, on every revision, and never "did nothing" / "Nothing was done". Was: the
 * ready-made texts of every later outcome said the tool did nothing, on 2025-11-25 (the page's
 * accept known and forgotten) and on 2026-07-28 (the page's accept replayed from the sealed state
 * on the final round). The same for the tool's own effect: a ready-made result returned after
 * `commit` ran says it took effect. Real SDK clients over HTTP on loopback, both revisions, whose
 * structured outcomes must be the same.
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

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

/** The person's side: the payment page (finished when they consent) and their answer to each form. */
interface Person {
  paid: boolean;
  /** Whether consenting to the page also finishes it there. */
  pays: boolean;
  answer: (message: string) => { action: 'accept'; content: Record<string, string> } | { action: 'decline' | 'cancel' };
}

/** Takes the payment on a page, then asks whether to ship it now (and, `second`, a receipt page). */
/** How often the volatile shipping question was built (every round builds the tool again). */
let looks = 0;

function checkout(person: Person, shipped: string[]) {
  return defineTool({
    name: 'checkout',
    description: 'Takes the payment on our page, then asks how to ship.',
    inputSchema: z.object({
      second: z.boolean().default(false),
      commitAnyway: z.boolean().default(false),
      /** The shipping question shows a count that differs on every look. */
      volatile: z.boolean().default(false),
    }),
    outputSchema: outcomeSchema({}),
    forms: { ship: form({ speed: field.select(['standard', 'express'], { title: 'Shipping speed' }) }) },
    async run({ second, commitAnyway, volatile }, { askUrl, ask, commit }) {
      const paid = await askUrl('payment', {
        message: 'Pay for order 1 on the page.',
        url: 'https://pay.example.com/order/1',
        isComplete: () => person.paid,
      });
      if (paid.action !== 'accept') return paid.result();
      if (second) {
        const receipt = await askUrl('receipt', {
          message: 'Choose where the receipt goes on the page.',
          url: 'https://receipts.example.com/order/1',
          isComplete: () => false,
        });
        if (receipt.action !== 'accept') return receipt.result();
      }
      const ship = await ask('ship', {
        message: volatile ? `How should order 1 ship? (${++looks} looks)` : 'How should order 1 ship?',
        check: ({ speed }) => (speed === 'express' ? { field: 'speed', message: 'Express is sold out.' } : []),
      });
      if (ship.action === 'accept') return done(`Shipping ${ship.value.speed}.`);
      if (commitAnyway && ship.action === 'decline') {
        // A decline the tool reads as "standard", its effect run, and the decline's result returned.
        await commit(() => {
          shipped.push('standard');
          return done('Shipping standard.');
        });
      }
      return ship.result();
    },
  });
}

async function call(
  revision: Revision,
  person: Person,
  args: Record<string, unknown> = {},
  options: { capabilities?: Record<string, unknown>; locale?: 'en' | 'zh' } = {},
) {
  const shipped: string[] = [];
  const kit = createElicitkit({ urlWaitMs: 300, pollMs: 5, ...(options.locale ? { locale: options.locale } : {}) });
  const served = await onLoopback(
    createHttpHandler(() => kit.createServer({ name: 'shop', version: '1' }, [checkout(person, shipped)])),
  );
  cleanup.push(served.close);
  const client = new Client(
    { name: 'person', version: '1' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {}, url: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { mode?: string; message: string };
    if (params.mode === 'url') {
      if (person.pays) person.paid = true;
      return { action: 'accept' };
    }
    return person.answer(params.message);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'checkout', arguments: args }, { timeout: 30_000 });
  const structured = result.structuredContent as Record<string, unknown>;
  return { structured, text: String(structured.message), shipped };
}

const paying = (answer: Person['answer']): Person => ({ paid: false, pays: true, answer });
const PAGE = [{ kind: 'page', question: 'payment', host: 'pay.example.com' }];

describe('a page the person finished, then a later question ended otherwise', () => {
  for (const [what, answer, status] of [
    ['declined', () => ({ action: 'decline' }), 'declined'],
    ['cancelled', () => ({ action: 'cancel' }), 'cancelled'],
    ['answered wrongly', () => ({ action: 'accept', content: { speed: 'express' } }), 'invalid'],
  ] as const) {
    it(`${what}: both revisions say the page's step was done, the same way`, async () => {
      const outcomes = [];
      for (const revision of REVISIONS) {
        const { structured, text } = await call(revision, paying(answer as Person['answer']));
        expect(structured, revision).toMatchObject({ status, completed: PAGE });
        expect(text, revision).not.toMatch(/did nothing|Nothing was done|nothing was done/);
        expect(text, revision).toContain('the user finished the step on the page on pay.example.com');
        outcomes.push(structured);
      }
      expect(outcomes[1]).toEqual(outcomes[0]);
    });
  }

  it('a client that cannot show the form: unsupported, and the page still told as done', async () => {
    const outcomes = [];
    for (const revision of REVISIONS) {
      const { structured, text } = await call(
        revision,
        paying(() => ({ action: 'decline' })),
        {},
        { capabilities: { elicitation: { url: {} } } },
      );
      expect(structured, revision).toMatchObject({ status: 'unsupported', completed: PAGE });
      expect(text, revision).not.toContain('did nothing');
      outcomes.push(structured);
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
  });

  it('a second page left unfinished after the first was finished: pending, the first told as done', async () => {
    for (const revision of REVISIONS) {
      // The receipt page: consent given, never finished there, so the wait ends it pending.
      const { structured, text } = await call(
        revision,
        paying(() => ({ action: 'decline' })),
        { second: true },
      );
      expect(structured, revision).toMatchObject({ status: 'pending', completed: PAGE });
      expect(text, revision).not.toContain('did nothing');
    }
  });

  it('in Chinese too', async () => {
    for (const revision of REVISIONS) {
      const { structured, text } = await call(
        revision,
        paying(() => ({ action: 'decline' })),
        {},
        { locale: 'zh' },
      );
      expect(structured, revision).toMatchObject({ status: 'declined', completed: PAGE });
      expect(text, revision).not.toContain('没有执行任何操作');
      expect(text, revision).toContain('用户已在 pay.example.com 上的页面完成了操作');
    }
  });

  it('a page consented to but not finished, then a decline: nothing was done, as before', async () => {
    for (const revision of REVISIONS) {
      // The page is not finished: askUrl ends pending and the call with it; nothing is told as done.
      const { structured } = await call(revision, { paid: false, pays: false, answer: () => ({ action: 'decline' }) });
      expect(structured, revision).toMatchObject({ status: 'pending' });
      expect(structured.completed, revision).toBeUndefined();
    }
  });

  it('2026-07-28: a later question that changed on every round (question_unstable) tells the page as done', async () => {
    const { structured, text } = await call(
      '2026-07-28',
      paying(() => ({ action: 'accept', content: { speed: 'standard' } })),
      { volatile: true },
    );
    expect(structured).toMatchObject({ status: 'invalid', completed: PAGE, issues: [{ code: 'question_unstable' }] });
    expect(text).not.toMatch(/Nothing was done|nothing was done/);
    expect(text).toContain('the user finished the step on the page on pay.example.com');
  });

  it("a ready-made result returned after the tool's effect ran says it took effect", async () => {
    for (const revision of REVISIONS) {
      const { structured, text, shipped } = await call(
        revision,
        paying(() => ({ action: 'decline' })),
        {
          commitAnyway: true,
        },
      );
      expect(shipped, revision).toEqual(['standard']);
      expect(structured, revision).toMatchObject({ status: 'declined', completed: [...PAGE, { kind: 'effect' }] });
      expect(text, revision).toContain('checkout took effect');
      expect(text, revision).not.toContain('did nothing');
    }
  });
});
