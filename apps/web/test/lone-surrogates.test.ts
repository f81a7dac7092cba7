/**
 * Half a character (a lone UTF-16 surrogate, which no UTF-8 text can carry) in what the chat is
 * sent — a model's free text, a tool result's text and structured content, a question's message
 * — reaches the turn's stream, the page, its saved history and the model's next request as
 * U+FFFD, never as `\ud800`; where the model or the person would read U+FFFD as what the server
 * sent (a tool result) the result says so; a character the model streamed split across two deltas
 * stays whole; arguments the model sends with half a character are refused to it, not passed on;
 * what the person types with one is refused (`refusals-zh.test.ts`). A real stdio MCP server
 * written on the wire (raw JSON-RPC lines, so nothing between it and the chat makes its text
 * whole), a real OpenAI-compatible endpoint on loopback that records each request it is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

/** Half a character, in a JS string. */
const HALF = /\p{Cs}/u;

/** Whether JSON text (a stream's events, a request's body) carries half a character anywhere once read. */
function halvesIn(json: string): boolean {
  let found = false;
  JSON.parse(json, (key, value) => {
    if (HALF.test(key) || (typeof value === 'string' && HALF.test(value))) found = true;
    return value;
  });
  return found;
}
/** Each event of a turn's stream, read as the page reads it. */
const streamHalves = (raw: string) =>
  raw
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e && e !== '[DONE]')
    .some(halvesIn);
const FFFD = '\uFFFD';

const SERVER = rawServer({
  tools: [
    {
      name: 'lookup',
      description: 'Looks \ud800 up',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    },
    { name: 'ask', inputSchema: { type: 'object', properties: {} } },
    { name: 'fail', inputSchema: { type: 'object', properties: {} } },
    // No call could name these, or send their arguments, exactly.
    { name: 'half\ud800name', inputSchema: { type: 'object', properties: {} } },
    { name: 'argy', inputSchema: { type: 'object', properties: { 'q\udc00': { type: 'string' } } } },
  ],
  call: `(m, ask, reply) => {
    if (m.params.name === 'fail')
      return process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'disk \\ud800 full' } }) + '\\n');
    if (m.params.name === 'ask')
      return ask({ mode: 'form', message: 'Deploy to pr\\ud800od?', requestedSchema: { type: 'object', properties: {} } })
        .then((r) => reply({ content: [{ type: 'text', text: 'answered ' + r.result.action }] }));
    reply({
      content: [{ type: 'text', text: 'owner: Zo\\udc00e (q=' + JSON.stringify(m.params.arguments.q ?? null) + ')' }],
      structuredContent: { owner: 'Zo\\ud800e', ['k\\udfff']: 1 },
    });
  }`,
});

/** What each request to the model carried, as sent (its body's text). */
const sent: string[] = [];
const model = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => {
    body += c;
  });
  req.on('end', () => {
    sent.push(body);
    const { messages } = JSON.parse(body) as { messages: { role: string; content: unknown }[] };
    const last = messages.at(-1);
    const lastUser = JSON.stringify(messages.findLast((m) => m.role === 'user')?.content ?? '');
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = (args: string, name = 'lookup') => ({
      index: 0,
      id: `call_${sent.length}`,
      type: 'function',
      function: { name, arguments: args },
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (last?.role === 'tool') {
      res.end(`${chunk({ role: 'assistant', content: 'Done.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
    } else if (lastUser.includes('speak')) {
      // Half characters in free text, and a whole emoji split between two deltas.
      const text = ['Hello \ud800 world ', '\ud83d', '\ude00', ' end\udc00'];
      res.end(
        `${text.map((content, i) => chunk(i === 0 ? { role: 'assistant', content } : { content }, null)).join('')}` +
          `${chunk({ tool_calls: [call('{}')] }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`,
      );
    } else if (lastUser.includes('make it fail')) {
      res.end(
        `${chunk({ role: 'assistant', tool_calls: [call('{}', 'fail')] }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`,
      );
    } else if (lastUser.includes('bad arguments')) {
      // JSON text whose string holds half a character.
      res.end(
        `${chunk({ role: 'assistant', tool_calls: [call('{"q":"x\\ud800"}')] }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`,
      );
    } else {
      res.end(`${chunk({ role: 'assistant', content: 'Again.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
    }
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-lone-surrogates-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'halves', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, postChat, ask, answer } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { GET: getTools } = await import('../app/api/tools/route');
const { Message } = await import('../components/message');
const { PAGE_TEXTS } = await import('../components/texts');
type Browser = Awaited<ReturnType<typeof newBrowser>>;

afterAll(async () => {
  await resetState();
  await new Promise((resolve) => model.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

/** Posts a turn with `history` as the page sends it; the stream's text as sent, and its chunks. */
async function post(b: Browser, history: unknown[], locale = 'en') {
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: {
        cookie: b.cookie,
        'x-elicitkit-csrf': b.csrf,
        'x-elicitkit-locale': locale,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ messages: history }),
    }),
  );
  expect(response.status).toBe(200);
  const raw = await response.text();
  const chunks = raw
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e && e !== '[DONE]')
    .map((e) => JSON.parse(e) as UIMessageChunk);
  return { raw, chunks };
}

/** The assistant message the page builds from a turn's chunks (what it draws and saves). */
async function pageMessage(chunks: UIMessageChunk[]): Promise<UIMessage> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last as UIMessage;
}

const user = (id: string, text: string) => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const drawn = (message: UIMessage) =>
  renderToStaticMarkup(
    createElement(Message, {
      message: message as never,
      texts: PAGE_TEXTS.zh,
      running: false,
    }),
  );

describe('half a character in a model turn', () => {
  it("the model's text and the tool result reach the stream, the page and the next request as U+FFFD, said where it misleads", async () => {
    const b = await newBrowser();
    const first = await post(b, [user('u1', 'speak')], 'zh');
    // Not one `\ud800` in the stream's JSON.
    expect(streamHalves(first.raw)).toBe(false);
    const message = await pageMessage(first.chunks);
    const text = message.parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as { text: string }).text)
      .join('');
    // Each half is U+FFFD; the emoji split between two deltas is whole, not two U+FFFD.
    expect(text).toBe(`Hello ${FFFD} world 😀 end${FFFD}Done.`);
    const tool = message.parts.find((p) => p.type === 'dynamic-tool') as {
      output: { text: string; structured: Record<string, unknown> };
    };
    expect(tool.output.text).toContain(`owner: Zo${FFFD}e`);
    // Said, in the chat's language: U+FFFD alone reads as a character the server sent.
    expect(tool.output.text).toContain('3 个半个字符');
    expect(tool.output.structured).toEqual({ owner: `Zo${FFFD}e`, [`k${FFFD}`]: 1 });
    // The page draws it so (and nothing of it is half a character).
    const page = drawn(message);
    expect(page).toContain(`Hello ${FFFD} world 😀`);
    expect(page).toContain(`Zo${FFFD}e`);
    expect(page).not.toMatch(HALF);
    // The model was handed the result as the page shows it, with the note: in this turn's second request…
    expect(halvesIn(sent.at(-1) as string)).toBe(false);
    expect(sent.at(-1)).toContain('3 个半个字符');

    // …and in the next turn's history, which the page sends from what it holds.
    await post(b, [user('u1', 'speak'), message, user('u2', 'go on')], 'zh');
    expect(halvesIn(sent.at(-1) as string)).toBe(false);
    expect(sent.at(-1)).toContain(`Hello ${FFFD} world 😀`);
  });

  it('a history holding halves (a page older than this app) reaches the model as U+FFFD', async () => {
    const b = await newBrowser();
    const old = {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Hello \ud800 world' },
        {
          type: 'dynamic-tool',
          toolName: 'lookup',
          toolCallId: 'call_old',
          state: 'output-available',
          input: { q: 'x\udc00' },
          output: { text: 'owner: Zo\udc00e', isError: false },
        },
      ],
    };
    const { raw } = await post(b, [user('u1', 'hello'), old, user('u2', 'go on')]);
    expect(streamHalves(raw)).toBe(false);
    expect(halvesIn(sent.at(-1) as string)).toBe(false);
    expect(sent.at(-1)).toContain(`Hello ${FFFD} world`);
    expect(sent.at(-1)).toContain(`Zo${FFFD}e`);
  });

  it("the model's arguments holding half a character are refused to it, not sent to the server", async () => {
    const b = await newBrowser();
    const { raw, chunks } = await post(b, [user('u1', 'bad arguments')]);
    expect(streamHalves(raw)).toBe(false);
    // No result of the server: the call was not made.
    expect(chunks.some((c) => c.type === 'tool-output-available')).toBe(false);
    const error = chunks.find((c) => c.type === 'tool-output-error') as { errorText: string } | undefined;
    expect(error?.errorText).toContain('half of a character');
    // The model was told why, and may send it whole.
    expect(sent.at(-1)).toContain('half of a character');
    expect(halvesIn(sent.at(-1) as string)).toBe(false);
  });
});

describe('half a character in an error a server answers a call with', () => {
  it("the model's call: the page and the model's next step are handed U+FFFD", async () => {
    const b = await newBrowser();
    const { raw, chunks } = await post(b, [user('u1', 'make it fail')]);
    expect(streamHalves(raw)).toBe(false);
    const error = chunks.find((c) => c.type === 'tool-output-error') as { errorText: string } | undefined;
    expect(error?.errorText).toContain(`disk ${FFFD} full`);
    expect(halvesIn(sent.at(-1) as string)).toBe(false);
    expect(sent.at(-1)).toContain(`disk ${FFFD} full`);
  });
});

describe('half a character in the tools a server lists', () => {
  it('a name or input schema holding one: left out and said; a description: whole', async () => {
    const b = await newBrowser();
    const response = await getTools(
      new Request('http://localhost/api/tools', { headers: { cookie: b.cookie, 'x-elicitkit-locale': 'zh' } }),
    );
    const raw = await response.text();
    expect(halvesIn(raw)).toBe(false);
    const { tools, unavailable } = JSON.parse(raw) as {
      tools: { name: string; description?: string }[];
      unavailable: { message: string }[];
    };
    expect(tools.map((t) => t.name)).toEqual(['lookup', 'ask', 'fail']);
    expect(tools[0]?.description).toBe(`Looks ${FFFD} up`);
    expect(unavailable.map((u) => u.message)).toEqual([
      expect.stringContaining(`“half${FFFD}name”`),
      expect.stringContaining('“argy”'),
    ]);
    expect(unavailable[0]?.message).toContain('半个字符');
    // Every model request of this file listed the tools: none carried half a character.
    expect(sent.length).toBeGreaterThan(0);
    for (const body of sent) expect(halvesIn(body)).toBe(false);
  });
});

describe('half a character in a command turn', () => {
  it('a tool result: U+FFFD in the stream and the page, and said', async () => {
    const b = await newBrowser();
    const { raw, chunks } = await post(b, [user('u1', '/lookup q=abc')]);
    expect(streamHalves(raw)).toBe(false);
    const output = (chunks.find((c) => c.type === 'tool-output-available') as { output: { text: string } }).output;
    expect(output.text).toContain(`owner: Zo${FFFD}e (q="abc")`);
    expect(output.text).toContain('3 half characters');
    expect(drawn(await pageMessage(chunks))).not.toMatch(HALF);
  });

  it("a question's message: drawn with U+FFFD, the question still answerable", async () => {
    const b = await newBrowser();
    const asked = await ask(b, '/ask');
    const prompt = asked.data.prompt as { message: string };
    expect(prompt.message).toBe(`Deploy to pr${FFFD}od?`);
    expect((await answer(b, asked.id, { action: 'decline' })).status).toBe(200);
    const chunks = (await asked.rest) as UIMessageChunk[];
    expect(halvesIn(JSON.stringify(chunks))).toBe(false);
    expect(
      chunks.some((c) => c.type === 'tool-output-available' && JSON.stringify(c).includes('answered decline')),
    ).toBe(true);
    const page = drawn(await pageMessage(chunks));
    expect(page).toContain(`Deploy to pr${FFFD}od?`);
    expect(page).not.toMatch(HALF);
  });
});
