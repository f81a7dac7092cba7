/**
 * A question the browser never answers: the page's deadline ends it, the client answers `cancel`
 * (the protocol has no timeout answer), and the chat hands the tool's result on — to the page
 * and to the model — as `timeout`, not as the person cancelling. A real chat turn through the
 * route handlers, on the app's one opsdesk.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-timeout-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '1000';

const { answer, ask, newBrowser } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Chunk = {
  type: string;
  data?: { status?: string };
  output?: { status?: string; text?: string; structured?: unknown };
};

describe('a question that times out in the browser', () => {
  it('reaches the model and the page as a timeout, the server’s own text kept', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy_service service=order-service');
    const chunks = (await q.rest) as Chunk[];
    expect(chunks.find((c) => c.type === 'data-elicitation' && c.data?.status !== 'open')?.data?.status).toBe(
      'expired',
    );
    const output = chunks.find((c) => c.type === 'tool-output-available')?.output;
    expect(output?.status).toBe('timeout');
    expect(output?.text).toContain('timed out in the browser');
    // The page's deadline as it was (1 s here), not rounded to a minute.
    expect(output?.text).toMatch(/^No answer arrived within 1 second: /);
    expect(output?.text).toContain('not the user cancelling');
    expect(output?.structured).toMatchObject({ status: 'timeout', serverStatus: 'cancelled' });
    // The answer arriving late is told the question expired.
    expect((await answer(b, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(410);
    // Even one that would not fit the form: that it expired comes first.
    const unfit = await answer(b, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(unfit.status).toBe(410);
    expect(await unfit.json()).toEqual({ error: 'This question expired and was treated as cancelled.' });
  });

  it('in the page’s language', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy_service service=order-service', { 'x-elicitkit-locale': 'zh' });
    const output = ((await q.rest) as Chunk[]).find((c) => c.type === 'tool-output-available')?.output;
    expect(output?.text).toContain('问题在浏览器中超时');
    expect(output?.text).toMatch(/^1 秒内没有收到回答：/);
  });

  it('a person’s cancel stays a cancel', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy_service service=order-service');
    expect((await answer(b, q.id, { action: 'cancel' })).status).toBe(200);
    const output = ((await q.rest) as Chunk[]).find((c) => c.type === 'tool-output-available')?.output;
    expect(output?.status).toBe('cancelled');
  });
});
