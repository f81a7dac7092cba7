// @vitest-environment jsdom
/**
 * What the page's form takes, the answer route takes, and a refusal on the way leaves the question
 * answerable. Was: the form took a 75 KB text and a number field's `1e16` that the route refused
 * (413 over 64 KiB; "a whole number past ±9007199254740991 … send it as a string", which a form
 * cannot) — and <Question> closed its dialog on any refusal but a 400 with issues, as if the
 * question were gone: neither sent nor correctable until it timed out. Now an answer is held to one
 * size, `MAX_ANSWER_LENGTH` characters of JSON, by the form (said at its field, nothing sent) and
 * the route alike; a number read exactly is the form's to judge; and a refusal of a question still
 * open (400, 413, 429, 5xx — a proxy's included) leaves the dialog up with its words.
 * The real <Question> (its <ElicitationForm>) in jsdom, its fetch answered by the real answer route,
 * a real stdio MCP server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_ANSWER_LENGTH } from '@elicitkit/form';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createElement } from 'react';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [{ name: 'budget', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => {
    ask({ mode: 'form', message: 'How much?', requestedSchema: { type: 'object', properties: {
      amount: { type: 'number', title: 'Amount' }, note: { type: 'string', title: 'Note' } }, required: ['amount'] } })
      .then((r) => reply({ content: [{ type: 'text', text: 'answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-audit-number-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, postAnswer } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { Question } = await import('../components/question');
const { PAGE_TEXTS } = await import('../components/texts');
type ElicitationData = import('../lib/wire').ElicitationData;

afterAll(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/**
 * <Question> for one `/budget` question, its fetch answered by the real answer route — after
 * `before(n)` for the n-th request, when it gives a response of its own (a proxy in the way).
 */
async function renderQuestion(before?: (n: number) => Response | undefined) {
  cleanup();
  const b = await newBrowser();
  const q = await ask(b, '/budget');
  const statuses: number[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    const early = before?.(statuses.length);
    if (early) {
      statuses.push(early.status);
      return early;
    }
    const id = decodeURIComponent(url.split('/').at(-1) as string);
    const response = await postAnswer(
      new Request(`http://localhost${url}`, {
        method: 'POST',
        headers: { ...(init.headers as Record<string, string>), cookie: b.cookie },
        body: init.body as string,
      }),
      { params: Promise.resolve({ id }) },
    );
    statuses.push(response.status);
    return response;
  });
  const settled: (string | null)[] = [];
  render(
    createElement(Question, {
      question: q.data as unknown as ElicitationData,
      csrf: b.csrf,
      locale: 'en',
      texts: PAGE_TEXTS.en,
      onSettled: (note: string | null) => settled.push(note),
    }),
  );
  const submit = () => act(() => userEvent.setup().click(screen.getByRole('button', { name: 'Submit' })));
  /** What the tool told the chat, once the call ended. */
  const told = async () => JSON.stringify(await q.rest);
  return { q, statuses, settled, submit, told, user: userEvent.setup() };
}

describe('an answer refused on its way while its question is still open', () => {
  it.each([502, 503, 429])(
    'a %i from a proxy: the dialog stays up, saying so, and the answer sent again goes through',
    async (status) => {
      const page = await renderQuestion((n) =>
        n === 0 ? new Response('<html>Bad gateway</html>', { status }) : undefined,
      );
      await page.user.type(screen.getByLabelText(/Amount/), '12');
      await page.submit();
      await waitFor(() => expect(page.statuses).toEqual([status]));
      // Refused, the question still open: the dialog stays, saying why.
      expect((await state().registry.get(page.q.id))?.settlement).toBeUndefined();
      expect(page.settled, 'the dialog was closed while the question is still open').toEqual([]);
      expect(screen.getByRole('dialog').textContent).toContain(`The answer was refused (${status}).`);
      await page.submit();
      await waitFor(() => expect(page.statuses).toEqual([status, 200]));
      expect(page.settled).toEqual([null]);
      expect(await page.told()).toContain('\\"amount\\":12');
    },
  );
});

describe("an answer's size: what the page's form takes, the route takes", () => {
  it('a long text (25,000 CJK characters, 75 KB) the form takes reaches the server whole', async () => {
    const page = await renderQuestion();
    await page.user.type(screen.getByLabelText(/Amount/), '12');
    fireEvent.change(screen.getByLabelText(/Note/), { target: { value: '部署说明'.repeat(6250) } });
    await page.submit();
    await waitFor(() => expect(page.statuses).toEqual([200]));
    expect(page.settled).toEqual([null]);
    expect(await page.told()).toContain('部署说明'.repeat(6250));
  });

  it('one past MAX_ANSWER_LENGTH is refused by the form at its field, nothing sent; shortened, it goes through', async () => {
    const page = await renderQuestion();
    await page.user.type(screen.getByLabelText(/Amount/), '12');
    fireEvent.change(screen.getByLabelText(/Note/), { target: { value: 'x'.repeat(MAX_ANSWER_LENGTH) } });
    await page.submit();
    await waitFor(() => expect(screen.getByRole('dialog').textContent).toContain('is too long for one answer'));
    expect(page.statuses, 'the form sent an answer the route would refuse').toEqual([]);
    expect(page.settled).toEqual([]);
    fireEvent.change(screen.getByLabelText(/Note/), { target: { value: 'x'.repeat(60_000) } });
    await page.submit();
    await waitFor(() => expect(page.statuses).toEqual([200]));
    expect(page.settled).toEqual([null]);
  });
});

describe('a whole number past 2^53 the page form takes', () => {
  // The route refused it ("send it as a string", which a form cannot): nobody could answer 1e16.
  it.each([
    ['1e16', '10000000000000000'],
    ['10000000000000000', '10000000000000000'],
    ['-9007199254740992', '-9007199254740992'],
    ['1e21', '1e+21'],
  ])('typed %s into a number field: the route takes it and the server gets %s', async (typed, arrived) => {
    const page = await renderQuestion();
    await page.user.type(screen.getByLabelText(/Amount/), typed);
    await page.submit();
    await waitFor(() => expect(page.statuses).toEqual([200]));
    expect(await page.told()).toContain(`\\"amount\\":${arrived}`);
  });
});
