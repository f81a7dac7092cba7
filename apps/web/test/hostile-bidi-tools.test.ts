/**
 * Server-supplied text is drawn without its bidi overrides and control characters (`plainText`),
 * in the tools panel and the chat as in the dialogs: a tool's name, its argument names and enum
 * values, a listing error, the chat's text lines that name the server's tools ("There is no tool
 * … Tools: …"), a call's arguments and a turn's error. An override makes a name or an option read
 * as something else ("\u202Edorp" reads "prod"); what is sent back to the server stays as it sent
 * it. Real route handlers, a real stdio MCP server (raw JSON-RPC lines), the real <ToolsPanel>,
 * <Message> and <ChatLog>.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const NAME = 'deploy_\u202egnigats\u202c';
const STAGING = '\u202egnigats\u202c';
const TOOLS = [
  {
    // Reads "deploy_staging" on screen.
    name: NAME,
    inputSchema: {
      type: 'object',
      properties: {
        // The argument name reads "env", an option reads "staging" while its value is "gnigats".
        '\u202evne\u202c': { type: 'string', enum: ['dev', STAGING] },
      },
    },
  },
];

const data = mkdtempSync(join(tmpdir(), 'elicitkit-bidi-tools-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  {
    name: 'hostile',
    command: [
      process.execPath,
      '-e',
      // Each call answers with the arguments it was given, so the test sees what reached the server.
      rawServer({
        tools: TOOLS,
        call: '(m, ask, reply) => reply({ content: [{ type: "text", text: JSON.stringify(m.params.arguments) }] })',
      }),
    ],
    revision: '2025-11-25',
  },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
const { ToolsPanel } = await import('../components/tools-panel');
const { Message } = await import('../components/message');
const { ChatLog } = await import('../components/chat-log');
const { PAGE_TEXTS } = await import('../components/texts');
type ToolListing = import('../lib/wire').ToolListing;
type ChatMessage = import('../lib/wire').ChatMessage;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/;
/** The drawn text around each override (tags and attributes left out: an id or a value attribute is not read). */
const bidiIn = (html: string) =>
  html.replace(/<[^>]*>/g, '|').match(new RegExp(`.{0,30}${BIDI.source}.{0,15}`, 'g')) ?? [];

type Browser = Awaited<ReturnType<typeof newBrowser>>;

/** The assistant message a turn's chunks build, as the page's `useChat` builds it. */
async function turnMessage(b: Browser, text: string): Promise<ChatMessage> {
  const chunks = await turn(b, text);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let message: ChatMessage | undefined;
  for await (const m of readUIMessageStream<ChatMessage>({ stream })) message = m;
  return message as ChatMessage;
}

const drawMessage = (message: ChatMessage) =>
  renderToStaticMarkup(createElement(Message, { message, texts: PAGE_TEXTS.en, running: false }));

describe('hostile tool names and options with bidi overrides', () => {
  it('the tools panel draws them without the overrides', async () => {
    const b = await newBrowser();
    const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
    expect(response.status).toBe(200);
    const listing = (await response.json()) as ToolListing;
    expect(listing.tools.map((t) => t.name)).toEqual([TOOLS[0]?.name]);
    const html = renderToStaticMarkup(
      createElement(ToolsPanel, {
        tools: listing.tools,
        error: null,
        disabled: false,
        onCall: () => {},
        texts: PAGE_TEXTS.en,
      }),
    );
    expect(bidiIn(html), 'the tools panel draws server text with bidi overrides').toEqual([]);
    // An option's value is the JSON of the value listed (`"…"` a string, `3` a number).
    expect(html, 'the option sends the value the server listed').toContain(`value="&quot;${STAGING}&quot;"`);
  });

  it("the chat's text line naming the server's tools draws them without the overrides", async () => {
    const html = drawMessage(await turnMessage(await newBrowser(), '/nope'));
    expect(html).toContain('There is no tool');
    expect(html).toContain('deploy_gnigats');
    expect(bidiIn(html), 'the chat line draws server tool names with bidi overrides').toEqual([]);
  });

  it("a call's arguments are drawn clean, and reach the server as it sent them", async () => {
    const args = { '\u202evne\u202c': STAGING };
    const message = await turnMessage(await newBrowser(), `/${NAME} ${JSON.stringify(args)}`);
    const call = message.parts.find((p) => p.type === 'dynamic-tool');
    expect(call).toMatchObject({ state: 'output-available', output: { text: JSON.stringify(args) } });
    const html = drawMessage(message);
    expect(html).toContain('gnigats');
    expect(bidiIn(html), 'the call line draws its arguments with bidi overrides').toEqual([]);
  });

  it("the tools panel's error and a turn's error are drawn clean", () => {
    const error = `The tool "${NAME}" of "hostile" has an input schema that cannot be read; it is left out.`;
    const panel = renderToStaticMarkup(
      createElement(ToolsPanel, { tools: [], error, disabled: false, onCall: () => {}, texts: PAGE_TEXTS.en }),
    );
    expect(panel).toContain('deploy_gnigats');
    expect(bidiIn(panel)).toEqual([]);
    const log = renderToStaticMarkup(
      createElement(ChatLog, {
        scrollRef: { current: null },
        texts: PAGE_TEXTS.en,
        fatal: null,
        messages: [],
        notes: [],
        error: new Error(error),
        canRetry: false,
        onRetry: () => {},
        onFix: () => {},
        busy: false,
        onStop: () => {},
        unseen: false,
        onJump: () => {},
      }),
    );
    expect(log).toContain('deploy_gnigats');
    expect(bidiIn(log)).toEqual([]);
  });
});
