/**
 * A 2025-11-25 Streamable HTTP client written by hand for load generation (bench/burst.ts): the
 * requests the SDK's `Client` + `StreamableHTTPClientTransport` send through Node's `fetch` (same
 * bodies, same headers in the same order, on an undici `Pool` as the SDK's `fetch` with an undici
 * `Agent` uses), without what makes those cost as much as the server they measure — WHATWG
 * streams, `Request`/`Headers`/`AbortSignal` objects, the SSE parser stream and zod on every
 * message. Responses go through undici's `dispatch` handler callbacks and the SSE is split by hand.
 *
 * It understands only what the burst needs and fails on anything else: every status code, content
 * type, JSON-RPC id and message is checked, and a message it does not expect is an error.
 */
import { StringDecoder } from 'node:string_decoder';
import { Pool } from 'undici';

/** A JSON-RPC message as it arrived (checked by whoever reads it). */
export type Message = Record<string, unknown>;

/** What went wrong in a session or a call: the step and what arrived instead. */
export class WireClientError extends Error {
  readonly code = 'WIRE_CLIENT';
}

const fail = (what: string, got?: unknown): never => {
  throw new WireClientError(got === undefined ? what : `${what}: ${JSON.stringify(got).slice(0, 300)}`);
};

/**
 * The JSON-RPC messages of an SSE body, in order. The spec's line rules (`\n`, `\r\n`; `data:`
 * lines joined with `\n`; `:` comments, `id:`, `retry:` skipped); only `message` events carry JSON-RPC.
 */
export function sseSplitter(onMessage: (message: Message) => void): { push(chunk: Buffer): void; end(): void } {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let data: string[] = [];
  let event = '';
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0 && (event === '' || event === 'message')) onMessage(JSON.parse(data.join('\n')) as Message);
      data = [];
      event = '';
      return;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };
  return {
    push(chunk) {
      buffer += decoder.write(chunk);
      let start = 0;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n', start)) {
        line(buffer.charCodeAt(end - 1) === 13 ? buffer.slice(start, end - 1) : buffer.slice(start, end));
        start = end + 1;
      }
      buffer = buffer.slice(start);
    },
    end() {
      buffer += decoder.end();
      if (buffer !== '' || data.length > 0) fail('SSE body ended inside an event', buffer);
    },
  };
}

/**
 * What a message on the stream of call `id` is: an `elicitation/create` to answer, or the call's
 * own successful response. Anything else — a response to another id, a JSON-RPC error, another
 * request or a notification — throws.
 */
export function onCallStream(
  id: number,
  m: Message,
): { kind: 'question'; id: string | number; params: Message } | { kind: 'response'; message: Message } {
  if (m.jsonrpc !== '2.0') fail('not JSON-RPC 2.0', m);
  if (m.method === 'elicitation/create' && (typeof m.id === 'number' || typeof m.id === 'string'))
    return { kind: 'question', id: m.id, params: (m.params ?? {}) as Message };
  if (m.method === undefined && ('result' in m || 'error' in m)) {
    if (m.id !== id) fail(`a response to ${String(m.id)}, not to the call (${id})`, m);
    if (m.error !== undefined) fail('the call failed', m.error);
    if (typeof m.result !== 'object' || m.result === null) fail('a response without a result object', m);
    return { kind: 'response', message: m };
  }
  return fail('an unexpected message on the call’s stream', m);
}

interface Exchange {
  /** Status and the headers this client reads (lower-case names). */
  onHeaders(status: number, contentType: string, sessionId: string | undefined): void;
  onData(chunk: Buffer): void;
  onEnd(): void;
  onError(error: Error): void;
}

/** One HTTP request on `pool` through undici's handler callbacks (no streams, no fetch objects). */
function exchange(pool: Pool, method: 'GET' | 'POST', headers: string[], body: string | null, on: Exchange): void {
  pool.dispatch(
    { origin: originOf.get(pool) ?? fail('a pool this client did not make'), path: '/mcp', method, headers, body },
    {
      onConnect() {},
      onHeaders(status, raw) {
        let contentType = '';
        let sessionId: string | undefined;
        for (let i = 0; i < raw.length; i += 2) {
          const name = String(raw[i]).toLowerCase();
          if (name === 'content-type') contentType = String(raw[i + 1]);
          else if (name === 'mcp-session-id') sessionId = String(raw[i + 1]);
        }
        try {
          on.onHeaders(status, contentType, sessionId);
        } catch (error) {
          on.onError(error as Error);
        }
        return true;
      },
      onData(chunk) {
        try {
          on.onData(chunk);
        } catch (error) {
          on.onError(error as Error);
        }
        return true;
      },
      onComplete() {
        try {
          on.onEnd();
        } catch (error) {
          on.onError(error as Error);
        }
      },
      onError: (error) => on.onError(error),
    },
  );
}

const originOf = new WeakMap<Pool, string>();

/** An open 2025-11-25 session: initialized, its standalone GET stream open (as the SDK's client does). */
export interface WireSession {
  readonly sessionId: string;
  /**
   * `tools/call` whose response is an SSE stream; each `elicitation/create` on it is answered with
   * what `answer` returns (POSTed as a JSON-RPC response, 202 expected). Resolves with the call's
   * `result` once the response with the call's id arrives and the stream ends.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    answer: (params: Message) => Promise<Message>,
  ): Promise<Message>;
  /** Errors seen outside a call: the GET stream refused, or anything sent on it. */
  readonly problems: string[];
  close(): Promise<void>;
}

/**
 * initialize → notifications/initialized → GET, on a pool of its own, as the SDK's client does.
 *
 * @example
 * const session = await openWireSession(url, token);
 * const result = await session.callTool('deploy_service', { service: 'order-service' }, async () => ({ action: 'accept', content: { env: 'dev' } }));
 */
export async function openWireSession(url: string, token: string): Promise<WireSession> {
  const { origin, pathname } = new URL(url);
  if (pathname !== '/mcp') fail('only an endpoint at /mcp', url);
  const pool = new Pool(origin);
  originOf.set(pool, origin);
  const authorization = `Bearer ${token}`;
  // fetch's own headers after the caller's, in fetch's order (host and connection come from undici).
  const tail = [
    'accept-language',
    '*',
    'sec-fetch-mode',
    'cors',
    'user-agent',
    'node',
    'accept-encoding',
    'gzip, deflate',
  ];
  const accept = 'application/json, text/event-stream';
  let closing = false;
  const problems: string[] = [];

  /** POSTs `body`; resolves with the messages of its response (SSE or JSON) once it ends, or with none on 202. */
  const post = (headers: string[], body: string, onMessage?: (m: Message) => void) =>
    new Promise<void>((resolve, reject) => {
      let split: ReturnType<typeof sseSplitter> | undefined;
      let json: string | undefined;
      let status = 0;
      exchange(pool, 'POST', headers, body, {
        onHeaders(s, contentType) {
          status = s;
          if (s === 202) return;
          if (s !== 200) fail(`POST answered ${s}`);
          if (!onMessage) fail('202 expected for a message that is not a request', s);
          if (contentType.startsWith('text/event-stream')) split = sseSplitter(onMessage as (m: Message) => void);
          else if (contentType.startsWith('application/json')) json = '';
          else fail('unexpected content type', contentType);
        },
        onData(chunk) {
          if (split) split.push(chunk);
          else if (json !== undefined) json += chunk.toString();
          else if (status !== 202 || chunk.length > 0) fail('a body where none was expected', chunk.toString());
        },
        onEnd() {
          split?.end();
          if (json !== undefined) onMessage?.(JSON.parse(json) as Message);
          resolve();
        },
        onError: reject,
      });
    });

  // initialize: as the SDK's client sends it (same key order).
  let sessionId: string | undefined;
  let initialized: Message | undefined;
  await new Promise<void>((resolve, reject) => {
    let split: ReturnType<typeof sseSplitter> | undefined;
    exchange(
      pool,
      'POST',
      ['authorization', authorization, 'content-type', 'application/json', 'accept', accept, ...tail],
      JSON.stringify({
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: 'burst', version: '1' },
        },
        jsonrpc: '2.0',
        id: 0,
      }),
      {
        onHeaders(status, contentType, id) {
          if (status !== 200) fail(`initialize answered ${status}`);
          if (!id) fail('initialize answered without mcp-session-id');
          if (!contentType.startsWith('text/event-stream')) fail('initialize: unexpected content type', contentType);
          sessionId = id;
          split = sseSplitter((m) => {
            if (initialized) fail('initialize: a second message', m);
            initialized = m;
          });
        },
        onData: (chunk) => split?.push(chunk),
        onEnd() {
          split?.end();
          resolve();
        },
        onError: reject,
      },
    );
  });
  const init = initialized ?? fail('initialize: no response');
  const result = init.result as { protocolVersion?: unknown; capabilities?: { tools?: unknown } } | undefined;
  if (
    init.id !== 0 ||
    init.error !== undefined ||
    result?.protocolVersion !== '2025-11-25' ||
    !result.capabilities?.tools
  )
    fail('initialize: not a 2025-11-25 result with tools', init);
  const session = [
    'authorization',
    authorization,
    'mcp-session-id',
    sessionId as string,
    'mcp-protocol-version',
    '2025-11-25',
    'content-type',
    'application/json',
    'accept',
    accept,
    ...tail,
  ];
  await post(session, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

  // The standalone GET stream, as the SDK's client opens it after notifications/initialized:
  // the server holds it open (and may write nothing, or not even its headers, until closed).
  const getHeaders = [
    'authorization',
    authorization,
    'mcp-session-id',
    sessionId as string,
    'mcp-protocol-version',
    '2025-11-25',
    'accept',
    'text/event-stream',
    ...tail,
  ];
  const standalone = sseSplitter((m) =>
    problems.push(`a message on the GET stream: ${JSON.stringify(m).slice(0, 200)}`),
  );
  exchange(pool, 'GET', getHeaders, null, {
    onHeaders(status, contentType) {
      if (status !== 200 || !contentType.startsWith('text/event-stream'))
        problems.push(`GET stream answered ${status} ${contentType}`);
    },
    onData: (chunk) => standalone.push(chunk),
    onEnd: () => {
      if (!closing) problems.push('GET stream ended');
    },
    onError: (error) => {
      if (!closing) problems.push(`GET stream: ${error.message}`);
    },
  });

  let nextId = 1;
  return {
    sessionId: sessionId as string,
    problems,
    async callTool(name, args, answer) {
      const id = nextId++;
      let response: Message | undefined;
      const answers: Promise<void>[] = [];
      // An answer that cannot be sent fails the call at once: the server would wait for it.
      let answerFailed!: (error: unknown) => void;
      const failed = new Promise<never>((_, reject) => {
        answerFailed = reject;
      });
      const body = JSON.stringify({ method: 'tools/call', params: { name, arguments: args }, jsonrpc: '2.0', id });
      const call = post(session, body, (m) => {
        if (response) fail('a message after the call’s response', m);
        const seen = onCallStream(id, m);
        if (seen.kind === 'response') {
          response = seen.message;
          return;
        }
        const sent = answer(seen.params).then((result) =>
          post(session, JSON.stringify({ result, jsonrpc: '2.0', id: seen.id })),
        );
        sent.catch(answerFailed);
        answers.push(sent);
      });
      await Promise.race([call, failed]);
      await Promise.all(answers);
      return (response ?? fail('the call’s stream ended without its response')).result as Message;
    },
    async close() {
      closing = true;
      await pool.destroy();
    },
  };
}
