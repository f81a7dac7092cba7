/**
 * A number in an answer reaches the tool as written, or the answer is refused. JSON.parse reads each
 * number as the nearest double without a word, so an answer of `2.00000000000000001` to a whole-number
 * field was taken as 2 (a fraction was sent), `1e-400` as 0 and `123456789012345678` as …680: a value
 * nobody sent, and the question was consumed. Now such a body is refused (400, naming the number and
 * what it would be read as) and the question stays open; a number spelled otherwise with the same
 * value (`2.0`, `1E-1`) is taken. So is a command's `{json}`. Real chat route, a real stdio MCP server
 * (raw JSON-RPC lines) that reports the answer it got.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [
    {
      name: 'scale',
      inputSchema: { type: 'object', properties: { replicas: { type: 'integer' }, ratio: { type: 'number' } } },
    },
  ],
  call: `(m, ask, reply) => {
    const args = JSON.stringify(m.params.arguments ?? {});
    ask({ mode: 'form', message: 'How far?', requestedSchema: { type: 'object', properties: {
      replicas: { type: 'integer', title: 'Replicas' }, ratio: { type: 'number', title: 'Ratio' } }, required: ['replicas', 'ratio'] } })
      .then((r) => reply({ content: [{ type: 'text', text: 'args ' + args + ' answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-inexact-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, postAnswer, turn } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
const { inexactNumberIn } = await import('../lib/exact-json');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

/** Posts `body` as written (not through JSON.stringify, which would write each number exactly). */
function post(b: Browser, id: string, body: string): Promise<Response> {
  return postAnswer(
    new Request(`http://localhost/api/elicitations/${id}`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body,
    }),
    { params: Promise.resolve({ id }) },
  );
}

const output = (chunks: Record<string, unknown>[]) =>
  (chunks.find((c) => c.type === 'tool-output-available') as { output?: { text?: string } } | undefined)?.output?.text;

describe('a number the answer route would read as another value', () => {
  it.each([
    ['a fraction sent to a whole-number field', '2.00000000000000001', '0.5', '2.00000000000000001', '2'],
    ['a number too small to be anything but 0', '2', '1e-400', '1e-400', '0'],
    [
      'a whole number past what a double holds exactly',
      '2',
      '123456789012345678',
      '123456789012345678',
      '123456789012345680',
    ],
    ['a number too large for a double', '2', '1e400', '1e400', 'null'],
  ])('is refused (400), and the question stays open: %s', async (label, replicas, ratio, written, read) => {
    const b = await newBrowser();
    const q = await ask(b, '/scale');
    const sent = await post(b, q.id, `{"action":"accept","content":{"replicas":${replicas},"ratio":${ratio}}}`);
    expect(sent.status).toBe(400);
    expect((await sent.json()).error).toBe(
      `$.content.${label.startsWith('a fraction') ? 'replicas' : 'ratio'}: ${written} cannot be sent exactly: it would arrive as ${read}. Send the value meant.`,
    );
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    // The same values spelled otherwise are taken, and reach the tool as they were meant.
    const taken = await post(
      b,
      q.id,
      '{"action":"accept","content":{"replicas":2.0,"ratio":1E-1},"applyDefaults":false}',
    );
    expect(taken.status).toBe(200);
    expect(output(await q.rest)).toBe('args {} answer {"action":"accept","content":{"replicas":2,"ratio":0.1}}');
  });

  it("is refused in a command's {json} too, and nothing is called", async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/scale {"replicas": 2.00000000000000001}');
    expect(
      chunks.some((c) => c.type === 'tool-input-available'),
      'the call was made',
    ).toBe(false);
    const text = chunks.find((c) => c.type === 'text-delta') as { delta?: string } | undefined;
    expect(text?.delta).toBe(
      'Cannot call scale: in the arguments, $.replicas: 2.00000000000000001 cannot be sent exactly: it would arrive as 2. Nothing was sent.',
    );
  });
});

describe('a number written with very many digits', () => {
  // Each was judged by a search for its trailing zeros from every zero: time squared in its
  // digits, on the app's one thread (a 64 KB answer held every chat for seconds, a 1 MB command
  // for minutes). Judged in one pass now; vitest's timeout is what fails a stall.
  it('in an answer (60,000 digits) is refused at once, and the question stays open', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/scale');
    const long = `1.${'0'.repeat(60_000)}1`;
    const sent = await post(b, q.id, `{"action":"accept","content":{"replicas":2,"ratio":${long}}}`);
    expect(sent.status).toBe(400);
    expect((await sent.json()).error).toMatch(
      /^\$\.content\.ratio: 1\.0+… cannot be sent exactly: it would arrive as 1\. Send the value meant\.$/,
    );
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    const taken = await post(b, q.id, '{"action":"accept","content":{"replicas":2,"ratio":1.5}}');
    expect(taken.status).toBe(200);
    await q.rest;
  }, 30_000);

  it("in a command's {json} (a million digits) is refused at once, and nothing is called", async () => {
    const b = await newBrowser();
    const chunks = await turn(b, `/scale {"ratio": 1.${'0'.repeat(1_000_000)}1}`);
    expect(chunks.some((c) => c.type === 'tool-input-available')).toBe(false);
    const text = chunks.find((c) => c.type === 'text-delta') as { delta?: string } | undefined;
    expect(text?.delta).toMatch(
      /^Cannot call scale: in the arguments, \$\.ratio: .* cannot be sent exactly: it would arrive as 1\. Nothing was sent\.$/,
    );
  }, 30_000);
});

describe('inexactNumberIn', () => {
  it('reads numbers only outside strings, escaped quotes included', () => {
    expect(inexactNumberIn('{"a":"2.00000000000000001","b":"\\"1e-400","c":[0.1,-0,1E2,2.50,-3e+2,1e21]}')).toBe(
      undefined,
    );
    expect(inexactNumberIn('{"a":"\\"","b":[0.1,1e-400]}')).toEqual({ written: '1e-400', read: '0' });
  });
});
