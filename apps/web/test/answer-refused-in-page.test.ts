// @vitest-environment jsdom
/**
 * An answer the page's own form takes (a 75 KB text) is refused by the answer route (413 over
 * 64 KiB) while the question stays open on the server. <Question> closed its dialog on any refusal but a 400 with
 * issues, as if the question were gone: the person could neither send the answer nor correct it,
 * and the tool waited until the question timed out. A refusal of a question still open (400, 413,
 * 429, 5xx) now leaves the dialog up with the route's words, and the corrected answer goes through.
 * And a whole number past ±9007199254740991 the form takes typed into a number field (`1e16`) the
 * route refused as well ("send it as a string", which a form cannot): now it is the form's to
 * judge there too, and reaches the server as written.
 * The real <Question> (its <ElicitationForm>) in jsdom, its fetch answered by the real answer route,
 * a real stdio MCP server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

async function answerInPage(
  fill: (user: ReturnType<typeof userEvent.setup>) => Promise<void>,
  fix: (user: ReturnType<typeof userEvent.setup>) => Promise<void>,
) {
  cleanup();
  const b = await newBrowser();
  const q = await ask(b, '/budget');
  const statuses: number[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
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
  const user = userEvent.setup();
  await fill(user);
  await act(() => user.click(screen.getByRole('button', { name: 'Submit' })));
  await waitFor(() => expect(statuses.length).toBe(1));
  expect(statuses[0]).not.toBe(200);
  // Refused, the question still open: the dialog stays, saying why.
  expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
  expect(settled, 'the dialog was closed while the question is still open').toEqual([]);
  expect(screen.getByRole('dialog').textContent).toMatch(/exact|larger than/);
  // Corrected, the answer goes through, and only then is the dialog done.
  await fix(user);
  await act(() => user.click(screen.getByRole('button', { name: 'Submit' })));
  await waitFor(() => expect(statuses.length).toBe(2));
  expect(statuses[1]).toBe(200);
  expect(settled).toEqual([null]);
}

describe('an answer the page form takes but the answer route refuses', () => {
  it('a long text (25,000 CJK characters, 75 KB) the form allows, refused: the dialog stays up, and a shorter one goes through', async () => {
    await answerInPage(
      async (user) => {
        await user.type(screen.getByLabelText(/Amount/), '12');
        fireEvent.change(screen.getByLabelText(/Note/), { target: { value: '部署说明'.repeat(6250) } });
      },
      async () => {
        fireEvent.change(screen.getByLabelText(/Note/), { target: { value: '部署说明' } });
      },
    );
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
    cleanup();
    const b = await newBrowser();
    const q = await ask(b, '/budget');
    const statuses: number[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
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
    render(
      createElement(Question, {
        question: q.data as unknown as ElicitationData,
        csrf: b.csrf,
        locale: 'en',
        texts: PAGE_TEXTS.en,
        onSettled: () => {},
      }),
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Amount/), typed);
    await act(() => user.click(screen.getByRole('button', { name: 'Submit' })));
    await waitFor(() => expect(statuses).toEqual([200]));
    const text = JSON.stringify(await q.rest);
    expect(text).toContain(`\\"amount\\":${arrived}`);
  });
});
