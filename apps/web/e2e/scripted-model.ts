/**
 * A language model for the browser tests, kept out of the app: a small OpenAI-compatible
 * chat-completions endpoint on loopback that streams (SSE) a scripted turn. Asked to deploy, it
 * calls `deploy_service` for the service the user named; given the tool's result, it reports it.
 * The app reaches it through OPENAI_BASE_URL, so the chat runs its real provider path.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedModel {
  /** OPENAI_BASE_URL for the app. */
  baseURL: string;
  /** ELICITKIT_MODEL: requests for any other model are refused. */
  model: string;
  /** OPENAI_API_KEY: requests without it are refused. */
  apiKey: string;
  /** Every chat-completions request the app sent, as parsed. */
  requests: ChatRequest[];
  close(): Promise<void>;
}

type Message = { role: string; content?: unknown; tool_call_id?: string };
export interface ChatRequest {
  model: string;
  stream: boolean;
  messages: Message[];
  tools?: { type: string; function: { name: string } }[];
}

const TOOL = 'deploy_service';

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ChatRequest[] = [];
  const model = 'scripted-model';
  const apiKey = 'e2e-key';
  const server = createServer((req, res) => {
    void answer(req, res, { model, apiKey }).then(
      (request) => {
        if (request) requests.push(request);
      },
      (error: unknown) => refuse(res, 500, error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    model,
    apiKey,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Checks the request as a real endpoint would, then streams the next step of the script. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  expected: { model: string; apiKey: string },
): Promise<ChatRequest | undefined> {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    refuse(res, 404, `No route ${req.method} ${req.url}.`);
    return undefined;
  }
  if (req.headers.authorization !== `Bearer ${expected.apiKey}`) {
    refuse(res, 401, 'Missing or wrong API key.');
    return undefined;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
  if (request.model !== expected.model) {
    // As OpenAI answers an unknown model: 404 with the code `model_not_found`.
    refuse(res, 404, `The model ${request.model} does not exist.`, 'model_not_found');
    return request;
  }
  if (request.stream !== true && !request.tools) {
    // "Test connection": a one-token, non-streamed completion.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-check',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'p' }, finish_reason: 'length' }],
      }),
    );
    return request;
  }
  if (request.stream !== true || !Array.isArray(request.messages)) {
    refuse(res, 400, `Expected a streamed request for ${expected.model}.`);
    return request;
  }
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    stream(res, request.model, [
      { delta: { role: 'assistant', content: `The deploy tool answered: ${toolText(last.content)}` } },
      { delta: {}, finish_reason: 'stop' },
    ]);
    return request;
  }
  if (!request.tools?.some((t) => t.function.name === TOOL)) {
    refuse(res, 400, `The request offers no ${TOOL} tool.`);
    return request;
  }
  const service = /\b([a-z]+-service)\b/.exec(userText(request.messages))?.[1] ?? 'order-service';
  stream(res, request.model, [
    {
      delta: {
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call-1',
            type: 'function',
            function: { name: TOOL, arguments: JSON.stringify({ service }) },
          },
        ],
      },
    },
    { delta: {}, finish_reason: 'tool_calls' },
  ]);
  return request;
}

function stream(res: ServerResponse, model: string, choices: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const created = Math.floor(Date.now() / 1000);
  for (const choice of choices) {
    const chunk = {
      id: 'chatcmpl-e2e',
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, ...choice }],
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

function refuse(res: ServerResponse, status: number, message: string, code?: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', ...(code ? { code } : {}) } }));
}

function userText(messages: Message[]): string {
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')))
    .join(' ');
}

/** The tool result the app sent back: its `text` when it is the chat's tool output, else as sent. */
function toolText(content: unknown): string {
  const raw = typeof content === 'string' ? content : JSON.stringify(content);
  try {
    const parsed = JSON.parse(raw) as { text?: unknown };
    return typeof parsed.text === 'string' ? parsed.text : raw;
  } catch {
    return raw;
  }
}
