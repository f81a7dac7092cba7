// @vitest-environment jsdom
/**
 * The page judged a question's time by the browser's own clock against the server's
 * `expiresAt` (epoch ms of the server's clock); `publishedAt`, the server's "now" when it handed the
 * question over, travels with it and was not used. A browser whose clock runs ahead of the
 * server's (no NTP, a VM resumed, a wrong time zone setting fixed by hand) shows a question the
 * server still waited for as expired, Submit disabled: the person could not accept it (and one
 * behind showed minutes more than the server gives). The deadline is now counted by the
 * browser's clock from when the page first saw the question (`localExpiresAt`). The real
 * <Question> in jsdom, the real chat and answer routes, a real stdio MCP server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render, screen } from '@testing-library/react';
import { createElement } from 'react';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [{ name: 'go', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => {
    ask({ mode: 'form', message: 'Go ahead?', requestedSchema: { type: 'object', properties: {
      note: { type: 'string', title: 'Note' } } } })
      .then((r) => reply({ content: [{ type: 'text', text: 'answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-audit-clock-'));
process.env.ELICITKIT_DATA = data;
delete process.env.ELICITKIT_QUESTION_TIMEOUT_MS; // the default: 10 minutes
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { Question } = await import('../components/question');
const { PAGE_TEXTS } = await import('../components/texts');
type ElicitationData = import('../lib/wire').ElicitationData;

afterAll(async () => {
  cleanup();
  vi.restoreAllMocks();
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** A question asked and shown in <Question>, the browser's clock `off` ms from the server's. */
async function shownWithClockOff(off: number) {
  const b = await newBrowser();
  const q = await ask(b, '/go');
  const real = Date.now.bind(Date);
  const browserClock = vi.spyOn(Date, 'now').mockImplementation(() => real() + off);
  render(
    createElement(Question, {
      question: q.data as unknown as ElicitationData,
      csrf: b.csrf,
      locale: 'en',
      texts: PAGE_TEXTS.en,
      onSettled: () => {},
    }),
  );
  return { q, browserClock };
}

describe("a browser whose clock runs ahead of the server's", () => {
  it('still lets the person answer a question the server waits for', async () => {
    // The browser's clock: 11 minutes ahead of the server's.
    const { q, browserClock } = await shownWithClockOff(11 * 60_000);
    const submit = screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement;
    const shownDisabled = submit.disabled;
    browserClock.mockRestore();
    expect((await state().registry.get(q.id))?.settlement, 'the server still waits for an answer').toBeUndefined();
    expect(shownDisabled, 'Submit is disabled as if the question had expired').toBe(false);
    cleanup();
  });

  it("behind the server's: the time left shown is the server's, not eleven minutes more", async () => {
    await shownWithClockOff(-11 * 60_000);
    const shown = document.body.textContent ?? '';
    vi.restoreAllMocks();
    expect(shown).toMatch(/Time left (10:00|9:5\d)/);
    cleanup();
  });
});
