/**
 * Every value a person types that is sent as JSON is read the same way in the chat as in the CLI:
 * sent exactly as typed, or refused naming where it is — a form's answer posted to
 * `POST /api/elicitations/{id}`, a `/tool {json}` command, a `/tool k={json}` value. `-0` (sent as
 * 0), `1e400` (null), `9007199254740993` (…992), a decimal past a double's precision, a key given
 * twice (JSON keeps the last) and half a character (`\ud800`) are each refused, as the CLI's
 * `--args` refuses them (`toolArguments`); `1.0` is the number 1 and is taken. A whole number past
 * ±2^53-1 read exactly is refused in a command (a reader cannot tell which it was), and in an
 * answer is the form's to judge, as the page's form takes it typed: a number field takes it, a
 * whole-number field refuses it. The chat says so in its own language and terms: no `--args`.
 * Real chat route, a real stdio MCP server (raw JSON-RPC lines) that reports what it got.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArgumentError, toolArguments } from '@elicitkit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const SCHEMA = {
  type: 'object',
  properties: { replicas: { type: 'integer' }, ratio: { type: 'number' }, meta: { type: 'object' } },
};
const SERVER = rawServer({
  tools: [{ name: 'scale', inputSchema: SCHEMA }],
  call: `(m, ask, reply) => {
    const args = JSON.stringify(m.params.arguments ?? {});
    if (m.params.arguments && Object.keys(m.params.arguments).length > 0)
      return reply({ content: [{ type: 'text', text: 'args ' + args }] });
    ask({ mode: 'form', message: 'How far?', requestedSchema: { type: 'object', properties: {
      ratio: { type: 'number', title: 'Ratio' }, note: { type: 'string', title: 'Note' },
      count: { type: 'integer', title: 'Count' } }, required: ['ratio'] } })
      .then((r) => reply({ content: [{ type: 'text', text: 'answer ' + JSON.stringify(r.result) }] }));
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-typed-json-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer, textOf, turn } = await import('./chat-client');
const { resetState, state } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;
/** One chat for every case (each turn ends before the next): a chat per case would meet the per-address cap. */
const b = await newBrowser();

/** A turn of `text` in `locale`, to its end: its chunks. */
function turnIn(b: Browser, text: string, locale: 'en' | 'zh'): Promise<Record<string, unknown>[]> {
  return turn(b, text, { 'x-elicitkit-locale': locale });
}

const said = (chunks: Record<string, unknown>[]) => textOf(chunks);
const called = (chunks: Record<string, unknown>[]) => chunks.some((c) => c.type === 'tool-input-available');
const output = (chunks: Record<string, unknown>[]) =>
  (chunks.find((c) => c.type === 'tool-output-available') as { output?: { text?: string } } | undefined)?.output?.text;

/** What the CLI's `--args` makes of `json`: the error's message, or the arguments. */
function cli(json: string): { refused: string } | { args: unknown } {
  try {
    return { args: toolArguments(SCHEMA, [], json) };
  } catch (error) {
    if (error instanceof ArgumentError) return { refused: error.message };
    throw error;
  }
}

/** Each: a label, `ratio`'s JSON as typed (or a whole `content` object), and where it is refused. */
const REFUSED: [label: string, content: string, path: string][] = [
  ['negative zero', '{"ratio":-0}', '$.content.ratio'],
  ['negative zero with a fraction', '{"ratio":-0.0e5}', '$.content.ratio'],
  ['a number too large for a double', '{"ratio":1e400}', '$.content.ratio'],
  ['a whole number past 2^53, rounded', '{"ratio":9007199254740993}', '$.content.ratio'],
  ['a decimal past a double', '{"ratio":0.30000000000000000001}', '$.content.ratio'],
  ['a key given twice', '{"ratio":1,"ratio":2}', '$.content.ratio'],
  ['half a character in a value', '{"ratio":1,"note":"a\\ud800"}', '$.content.note'],
  ['half a character in a key', '{"ratio":1,"\\udc00":"x"}', '$.content.\uFFFD'],
];

describe("a form's answer posted to the answer route", () => {
  it.each(REFUSED)('is refused (400) naming where, and the question stays open: %s', async (_label, content, path) => {
    const q = await ask(b, '/scale');
    const sent = await answer(b, q.id, `{"action":"accept","content":${content}}`);
    expect(sent.status).toBe(400);
    const { error } = (await sent.json()) as { error: string };
    expect(error.startsWith(`${path}: `), error).toBe(true);
    expect((await state().registry.get(q.id))?.settlement, 'the question was consumed').toBeUndefined();
    // The CLI refuses the same JSON as --args, at the same place (under $ rather than $.content).
    const asArgs = cli(content);
    expect(asArgs).toHaveProperty('refused');
    expect((asArgs as { refused: string }).refused).toContain(path.replace('$.content', '$'));
    // …and the value meant is taken: 1.0 is the number 1.
    const taken = await answer(b, q.id, '{"action":"accept","content":{"ratio":1.0},"applyDefaults":false}');
    expect(taken.status).toBe(200);
    expect(output(await q.rest)).toBe('answer {"action":"accept","content":{"ratio":1}}');
  });

  it('refuses an action given twice, rather than taking the last', async () => {
    const q = await ask(b, '/scale');
    const sent = await answer(b, q.id, '{"action":"decline","action":"accept","content":{"ratio":1}}');
    expect(sent.status).toBe(400);
    expect(((await sent.json()) as { error: string }).error).toMatch(/^\$\.action: /);
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    expect((await answer(b, q.id, { action: 'cancel' })).status).toBe(200);
    await q.rest;
  });
});

describe('a whole number past ±2^53-1 read exactly, in an answer', () => {
  // A chat of its own: the first has asked its 10 questions of the minute.
  let b2: Browser;
  beforeAll(async () => {
    b2 = await newBrowser();
  });

  it('takes a whole number past ±2^53-1 read exactly into a number field, as the form takes it typed', async () => {
    const q = await ask(b2, '/scale');
    const sent = await answer(b2, q.id, '{"action":"accept","content":{"ratio":9007199254740992}}');
    expect(sent.status).toBe(200);
    expect(output(await q.rest)).toBe('answer {"action":"accept","content":{"ratio":9007199254740992}}');
    // As a tool's argument it is still refused: a command is not a form's answer.
    expect(cli('{"ratio":9007199254740992}')).toHaveProperty('refused');
  });

  it("refuses one in a whole-number field in the form's words, and the question stays open", async () => {
    const q = await ask(b2, '/scale');
    const sent = await answer(b2, q.id, '{"action":"accept","content":{"ratio":1,"count":9007199254740992}}');
    expect(sent.status).toBe(400);
    expect(JSON.stringify(await sent.json())).toContain('larger whole numbers cannot be exact');
    expect((await state().registry.get(q.id))?.settlement).toBeUndefined();
    expect((await answer(b2, q.id, { action: 'accept', content: { ratio: 1, count: 2 } })).status).toBe(200);
    expect(output(await q.rest)).toBe('answer {"action":"accept","content":{"ratio":1,"count":2}}');
  });
});

describe("a command's {json} and k={json}", () => {
  const COMMANDS = [
    ...REFUSED,
    ['a whole number past 2^53-1, exact but ambiguous', '{"ratio":9007199254740992}', '$.content.ratio'] as const,
  ].map(([label, content, path]) => [label, content, path.replace('$.content', '$')] as const);

  it.each(COMMANDS)(
    'is refused naming where, in Chinese for a Chinese chat, nothing called: %s',
    async (_l, json, path) => {
      const chunks = await turnIn(b, `/scale ${json}`, 'zh');
      expect(called(chunks), 'the call was made').toBe(false);
      const text = said(chunks);
      expect(text.startsWith('无法调用 scale：'), text).toBe(true);
      expect(text).toContain(path);
      expect(text, 'the CLI flag is named in the chat').not.toContain('--args');
      expect(text).toContain('未发送任何请求');
      // The same JSON as an object argument's value: refused too, at the same place under the argument.
      const asValue = said(await turnIn(b, `/scale meta=${json}`, 'zh'));
      expect(asValue).toContain(path.replace('$', '$.meta'));
      expect(asValue).not.toContain('--args');
      expect(asValue).toContain('未发送任何请求');
    },
  );

  it("in English, says the same in the chat's terms", async () => {
    const text = said(await turnIn(b, '/scale {"ratio":-0}', 'en'));
    expect(text).toBe(
      'Cannot call scale: in the arguments, $.ratio: -0 cannot be sent exactly: JSON has no negative zero, it would arrive as 0. Nothing was sent.',
    );
  });

  it('sends 1.0 as the number 1, and an exact value as typed', async () => {
    expect(output(await turnIn(b, '/scale {"ratio":1.0,"replicas":9007199254740991}', 'en'))).toBe(
      'args {"ratio":1,"replicas":9007199254740991}',
    );
  });

  it("tells a k=v value the schema cannot take in the chat's language", async () => {
    for (const [command, where] of [
      ['/scale replicas=many', 'replicas=many'],
      ['/scale ratio=-0', 'ratio=-0'],
      ['/scale color=red', 'color'],
      ['/scale meta={oops', 'meta={oops'],
      ['/scale lonely', 'lonely'],
      ['/scale replicas=1 replicas=2', 'replicas'],
    ] as const) {
      const text = said(await turnIn(b, command, 'zh'));
      expect(text.startsWith('无法调用 scale：'), text).toBe(true);
      expect(text).toContain(where);
      expect(text, `${command}: English in a Chinese chat`).not.toMatch(/\b(expected|unknown|argument|cannot|given)\b/);
    }
  });
});
