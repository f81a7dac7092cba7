import {
  attach,
  connectWithin,
  describeArguments,
  guardStreamEnds,
  listToolsSafely,
  revisionOptions,
  type SchemaFound,
  type SchemaProblem,
  schemaProblemText,
  serverDeadline,
  ToolSchemaError,
} from '@elicitkit/client';
import { LOCALE_META_KEY } from '@elicitkit/form';
import {
  type CallToolResult,
  Client,
  ProtocolError,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { endCall, startCall } from './call-questions';
import { config, type ServerConfig } from './config';
import { type ConnectionFailure, connectionFailure, type FetchWatch, watchedFetch } from './connection-failure';
import { MAX_JSON_DEPTH, nestsDeeper } from './depth';
import { chatRenderer, showRefusal, withdrawQuestions } from './elicitations';
import type { Locale } from './locale';
import { listingFailed, ServerConnectionError } from './mcp-errors';
import { opsdeskHost } from './opsdesk';
import { ServerExitedError } from './server-failure';
import { internTools, schemaValidator, type ToolList } from './shared-tools';
import { type Chat, type Connection, QUESTION_BUDGET, state } from './state';
import { markTimeout } from './timed-out';
import { HALVES_REPLACED, holdsHalf, wholeText, wholeValue } from './whole-text';
import type { ToolInfo, ToolListing, ToolOutput } from './wire';

/**
 * The chat's connection to one MCP server, opened on first use. Each chat has its own MCP
 * session, so its questions reach only its own page. The bundled opsdesk is one server for the
 * whole app (`lib/opsdesk.ts`), reached in process (its HTTP handler, no socket) as the chat's
 * user; a configured stdio
 * server still runs as a process per chat. A connection that closes (a stdio server exiting) or
 * fails at the connection level (an HTTP server stopping or restarting) is forgotten, so the next
 * use connects afresh and reads the server's capabilities and tools as they are now.
 */
export function connection(chat: Chat, server: ServerConfig): Promise<Connection> {
  const existing = chat.connections.get(server.name);
  if (existing) return existing;
  const opening: Promise<Connection> = open(chat, server, {
    failed: () => drop(chat, server.name, opening),
    closed: () => forget(chat, server.name, opening),
  });
  chat.connections.set(server.name, opening);
  opening.catch(() => forget(chat, server.name, opening));
  return opening;
}

/** Forgets `which` unless a newer connection has taken its place already. */
function forget(chat: Chat, name: string, which: Promise<Connection>): void {
  if (chat.connections.get(name) === which) chat.connections.delete(name);
}

/** Forgets and closes a broken connection: its calls in flight fail, its open questions are withdrawn. */
function drop(chat: Chat, name: string, which: Promise<Connection>): void {
  forget(chat, name, which);
  void which.then((c) => c.close()).catch(() => undefined);
}

interface Hooks {
  /** A request or stream of this connection failed at the connection level. */
  failed(kind: ConnectionFailure): void;
  closed(): void;
}

async function open(chat: Chat, server: ServerConfig, hooks: Hooks): Promise<Connection> {
  // One schema validator for every chat's client (`shared-tools.ts`), not an Ajv engine each.
  const client = new Client(
    { name: 'elicitkit-web', version: '0.1.0' },
    { ...revisionOptions(server.revision), jsonSchemaValidator: schemaValidator() },
  );
  const rateLimit = { ...QUESTION_BUDGET };
  // Each question's message until it is answered, so one declined unseen can be shown for what it was.
  const asked = new Map<number, string>();
  // Notices of questions declined unseen reach the person too, so they are bounded: a server
  // asking in a loop is declined every time at no cost to it, and each notice carried its message
  // (up to 64 KiB) into the page — hundreds of lines for one call. At most the budget's count per
  // turn (its stream) and reason, so each call of a turn still has its own notice.
  let noticesOf: unknown;
  const noticed = new Map<string, number>();
  const mayNotice = (reason: string) => {
    if (noticesOf !== chat.writer) {
      noticesOf = chat.writer;
      noticed.clear();
    }
    const shown = noticed.get(reason) ?? 0;
    noticed.set(reason, shown + 1);
    return shown < QUESTION_BUDGET.max;
  };
  attach(client, {
    renderer: chatRenderer(chat, server.name),
    policy: {
      // The page's own deadline (the registry's) comes first and says "expired"; this backs it up.
      timeoutMs: config().questionTimeoutMs + 30_000,
      secrets: config().secrets,
      rateLimit,
      maxAttempts: 3,
    },
    // Counted by the server's configured name in the chat's budget, not by the name it gives
    // itself nor per connection: a server that restarts or renames itself gets no fresh budget.
    limiter: { take: () => chat.budget.take(server.name) },
    onEvent: (event) => {
      if (event.type === 'request') asked.set(event.id, event.message);
      // A refused question (-32602) is never answered: forgotten too, or a server sending them
      // (uncounted, each up to megabytes) fills this map for as long as the connection lives.
      else if (event.type === 'answered' || event.type === 'rejected') asked.delete(event.id);
      else if (event.type === 'auto-declined' && mayNotice(event.reason))
        showRefusal(chat, {
          server: server.name,
          message: asked.get(event.id) ?? '',
          reason: event.reason,
          ...(event.reason === 'rate-limit' ? { limit: rateLimit } : {}),
        });
    },
  });
  let answered = 0;
  const watch: FetchWatch = { failed: hooks.failed, answered: () => void answered++ };
  const transport = await transportFor(chat, server, watch);
  const exitedAlone = transport instanceof StdioClientTransport ? watchExit(transport) : () => false;
  try {
    // One deadline for the whole connect: with `auto` over stdio the version probe gets half of it.
    await connectWithin(client, transport, { revision: server.revision, timeoutMs: config().connectTimeoutMs });
  } catch (error) {
    // A stdio server that exited by itself before answering: its own words went to stderr.
    const exited = exitedAlone() && !spawnError(error);
    // A server that started but did not answer is not left running.
    await client.close().catch(() => undefined);
    throw exited ? new ServerExitedError(error) : error;
  }
  // A response stream that ends without its response breaks this connection as a reset would.
  if (transport instanceof StreamableHTTPClientTransport) guardStreamEnds(transport, () => hooks.failed('lost'));
  client.onclose = hooks.closed;
  return { client, close: () => client.close(), answered: () => answered };
}

/**
 * Whether the stdio server's process ended by itself: it was started, and was gone before anyone
 * closed the transport (the SDK closes it after a timeout). Watched on the instance, not by a
 * subclass: the SDK probes a subclass's server in place instead of on a disposable sibling.
 */
function watchExit(transport: StdioClientTransport): () => boolean {
  let started = false;
  let closing = false;
  let goneBeforeClose = false;
  const start = transport.start.bind(transport);
  const close = transport.close.bind(transport);
  transport.start = () => {
    started = true;
    return start();
  };
  transport.close = () => {
    if (!closing) {
      closing = true;
      goneBeforeClose = started && transport.pid === null;
    }
    return close();
  };
  return () => (closing ? goneBeforeClose : started && transport.pid === null);
}

/** The error of a command that could not be spawned at all (ENOENT, EACCES). */
function spawnError(error: unknown): boolean {
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  return typeof syscall === 'string' && syscall.startsWith('spawn');
}

async function transportFor(chat: Chat, server: ServerConfig, watch: FetchWatch) {
  switch (server.kind) {
    case 'opsdesk': {
      const host = await opsdeskHost();
      return new StreamableHTTPClientTransport(new URL(host.url), {
        fetch: watchedFetch(watch, host.fetch),
        requestInit: { headers: { authorization: `Bearer ${host.token(chat.user)}` } },
      });
    }
    case 'stdio':
      return new StdioClientTransport({ command: server.command, args: server.args, stderr: 'inherit' });
    case 'http':
      return new StreamableHTTPClientTransport(new URL(server.url), {
        fetch: watchedFetch(watch),
        requestInit: { headers: server.headers },
      });
  }
}

/** What a call or listing of a chat that has ended (`Chat.ended`) fails with, in the chat's language. */
const CHAT_ENDED: Record<Locale, string> = {
  en: 'This chat has ended (its page was closed, perhaps in another tab, or it was unused too long), so nothing was sent to the server. Reload the page to start a new chat.',
  zh: '这个对话已结束（它的页面已关闭，可能是在另一个标签页中，或它太久没有使用），所以没有向服务器发送任何内容。请重新加载页面以开始新的对话。',
};

/** What a result's text says after it when its structured content nested too deep to carry. */
const STRUCTURED_TOO_DEEP: Record<Locale, string> = {
  en: `[The server's structured result nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays: the chat leaves it out; its text is above.]`,
  zh: `[服务器的结构化结果中对象和数组嵌套超过 ${MAX_JSON_DEPTH} 层：对话略去了它；上面是它的文本。]`,
};

/** A tool left out because the SDK refuses it (a description that is a number, say). */
const NOT_A_TOOL: Record<Locale, (tool: string, server: string) => string> = {
  en: (tool, server) => `The tool "${tool}" of "${server}" is not a tool as MCP defines one; it is left out.`,
  zh: (tool, server) => `“${server}”的工具“${tool}”不是 MCP 所定义的工具；已将其略去。`,
};

/** A tool left out for a definition nested deeper than the chat carries. */
const TOOL_TOO_DEEP: Record<Locale, (tool: string, server: string) => string> = {
  en: (tool, server) =>
    `The tool "${tool}" of "${server}" has a definition nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays: the chat cannot carry it; it is left out.`,
  zh: (tool, server) =>
    `“${server}”的工具“${tool}”的定义中对象和数组嵌套超过 ${MAX_JSON_DEPTH} 层：对话无法承载它；已将其略去。`,
};

/** A tool left out for half a character in its name or input schema. */
const HALF_IN_TOOL: Record<Locale, (tool: string, server: string) => string> = {
  en: (tool, server) =>
    `The tool "${tool}" of "${server}" holds half of a character (a lone UTF-16 surrogate, shown as \uFFFD) in its name or input schema: no call could send it exactly; it is left out.`,
  zh: (tool, server) =>
    `“${server}”的工具“${tool}”在名称或输入模式中含有半个字符（孤立的 UTF-16 代理项，显示为 \uFFFD）：任何调用都无法精确发送它；已将其略去。`,
};

/** What was found where a schema wanted something else, in Chinese (English: `schemaProblemText`'s words). */
function foundZh(f: SchemaFound): string {
  switch (f.is) {
    case 'null':
      return ' null';
    case 'list':
      return '列表';
    case 'object':
      return '对象';
    case 'text':
      return `文本 ${JSON.stringify(f.text)}`;
    case 'number':
      return `数字 ${f.value}`;
    case 'boolean':
      return `布尔值 ${f.value}`;
    case 'other':
      return ` ${f.value}`;
  }
}

/**
 * What is wrong in a tool's input schema (`ToolSchemaError.problem`), in the page's language; the
 * schema's own path (`inputSchema.properties["a"].enum`) and the text found stay as they are.
 *
 * @example
 * schemaProblemIn('zh', { path: 'inputSchema.properties["a"]', is: 'not-a-schema', found: { is: 'null' } });
 * // 'inputSchema.properties["a"] 是 null，不是模式对象'
 */
export function schemaProblemIn(locale: Locale, p: SchemaProblem): string {
  if (locale === 'en') return schemaProblemText(p);
  const found = 'found' in p ? foundZh(p.found) : '';
  const enumValues = p.path.endsWith('.enum');
  switch (p.is) {
    case 'not-an-object':
      return `${p.path} 是${found}，不是对象`;
    case 'not-a-schema':
      return `${p.path} 是${found}，不是模式对象`;
    case 'not-a-type':
      return `${p.path} 是${found}，不是类型名或类型名的列表`;
    case 'not-a-list':
      return `${p.path} 是${found}，不是列表`;
    case 'not-text':
      return `${p.path} 是${found}，不是文本`;
    case 'not-a-scalar':
      return `${p.path} 是${found}；只能是字符串、数字、布尔值或 null`;
    case 'not-names':
      return `${p.path} 不是名称列表`;
    case 'too-many':
      return `${p.path} 有 ${p.count} ${enumValues ? '个值' : '项'}；最多读取 ${p.max} ${enumValues ? '个' : '项'}`;
    case 'too-deep':
      return `${p.path} 嵌套超过 ${p.max} 层`;
  }
}

/**
 * A tool left out for a schema nobody can use, in the page's language, what is wrong included
 * (`ToolSchemaError.problem`; its message, English, only for an error without one).
 */
function schemaLeftOut(locale: Locale, tool: string, server: string, error: ToolSchemaError): string {
  if (locale === 'en') return `The ${error.message}; it is left out.`;
  const at = error.message.indexOf(': ');
  const what = error.problem
    ? schemaProblemIn(locale, error.problem)
    : at === -1
      ? error.message
      : error.message.slice(at + 2);
  return `“${server}”的工具“${tool}”的输入模式无法使用：${what}；已将其略去。`;
}

/** A listed name that names no configured server (several servers: `server__tool`). */
const NO_SERVER: Record<Locale, (listed: string, names: string) => string> = {
  en: (listed, names) => `The tool "${listed}" names no configured MCP server: it should begin with one of ${names}.`,
  zh: (listed, names) => `工具“${listed}”没有指明任何已配置的 MCP 服务器：它应以 ${names} 之一开头。`,
};

/**
 * Runs `request` on the chat's connection to `server`. On a connection-level failure the
 * connection is dropped; the request is sent once more on a fresh connection only when `resend`
 * allows it for that kind of failure, and otherwise fails as a `ServerConnectionError`. Any other
 * error (a tool or protocol error) leaves the connection alone.
 */
async function withConnection<T>(
  chat: Chat,
  server: ServerConfig,
  request: (c: Connection) => Promise<T>,
  resend: (kind: ConnectionFailure) => boolean,
  mayHaveRun: boolean,
  locale: Locale,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    // A turn outliving its chat (closed from another tab, here or on another instance, which this
    // one hears of only at its next sweep): no connection nobody would close, no question nobody
    // may answer.
    if (chat.ended || !(await state().chats.has(chat.id))) {
      chat.ended = true;
      throw new Error(CHAT_ENDED[locale]);
    }
    const opening = connection(chat, server);
    let live: Connection;
    try {
      live = await opening;
    } catch (error) {
      // Connecting failed, however it did (refused, not found, HTTP 401, a command that would not
      // start, no answer in time): this request was not sent. The message says which and why.
      throw new ServerConnectionError('SERVER_UNREACHABLE', server, error, locale);
    }
    const answeredBefore = live.answered();
    try {
      return await request(live);
    } catch (error) {
      let kind = connectionFailure(error);
      if (!kind) throw error;
      // A 2026-07-28 call is one request per round: a later round refused may follow rounds that
      // ran. Any POST answered meanwhile (this call's or another's) counts: it errs on the safe side.
      if (live.answered() > answeredBefore) kind = 'lost';
      drop(chat, server.name, opening);
      if (attempt === 0 && resend(kind)) continue;
      const ran = mayHaveRun && kind === 'lost';
      throw new ServerConnectionError(ran ? 'SERVER_RESTARTED' : 'SERVER_UNREACHABLE', server, error, locale);
    }
  }
}

const always = () => true;

/** The tools a listing left out, by name: ones the SDK refuses, and ones nested too deep to carry. */
interface LeftOut {
  refused: string[];
  tooDeep: string[];
}

/**
 * Lists a connection's tools and keeps them on it, as the shared copy (`internTools`): chats that
 * were sent the same list hold it once. The SDK's own cache is bypassed, so its client keeps no
 * copy of its own (a JSON string, then an index decoded from it on the first call); calls pass
 * the definition instead (`callListed`). Every listing still asks the server. One tool the SDK
 * refuses, or too deep for its check, does not take the others with it (`listToolsSafely`); a tool
 * whose definition nests past `MAX_JSON_DEPTH` is left out before anything writes it out.
 */
async function readTools(
  c: Pick<Connection, 'client' | 'tools'>,
  options: RequestOptions = {},
): Promise<{ tools: ToolList; leftOut: LeftOut }> {
  const { tools, skipped } = await listToolsSafely(c.client, { ...options, cacheMode: 'bypass' });
  const kept: Tool[] = [];
  const tooDeep: string[] = [];
  for (const tool of tools) {
    if (nestsDeeper(tool)) tooDeep.push(tool.name);
    else kept.push(tool);
  }
  c.tools = internTools(kept);
  return { tools: c.tools, leftOut: { refused: skipped, tooDeep } };
}

const listOn = (c: Connection) => readTools(c);

/** The JSON-RPC error of a 2026-07-28 server whose `Mcp-Param-*` headers did not match the call (SEP-2243). */
const HEADER_MISMATCH = -32020;

/**
 * Calls a tool on a connection with its listed definition, which the SDK checks the result
 * against (output schema) and mirrors headers from, as it would from its own cached list. Like the
 * SDK with its own list, a call the server refuses for mismatched headers lists again and is sent
 * once more. A connection that has not listed yet calls as the SDK does with nothing cached.
 */
export async function callListed(
  c: Pick<Connection, 'client' | 'tools'>,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: RequestOptions,
): Promise<CallToolResult> {
  const definition = c.tools?.find((t) => t.name === params.name);
  if (!definition) return (await c.client.callTool(params, options)) as CallToolResult;
  try {
    return (await c.client.callTool(params, { ...options, toolDefinition: definition })) as CallToolResult;
  } catch (error) {
    const mismatch = error instanceof ProtocolError && error.code === HEADER_MISMATCH;
    if (!mismatch || c.client.getProtocolEra() !== 'modern') throw error;
    const { tools } = await readTools(c, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeout ? { timeout: options.timeout } : {}),
    });
    const fresh = tools.find((t) => t.name === params.name);
    return (await c.client.callTool(params, {
      ...options,
      ...(fresh ? { toolDefinition: fresh } : {}),
    })) as CallToolResult;
  }
}

/**
 * Every tool of every configured server. With several servers, names are prefixed by the server.
 * One server down does not take the others' tools away: its failure is listed in `unavailable`.
 * When no server answers at all, the first failure is thrown.
 */
export async function listTools(chat: Chat, locale: Locale = 'en'): Promise<ToolListing> {
  const { servers } = config();
  const settled = await Promise.allSettled(
    servers.map(async (server) => {
      // Listing changes nothing on the server: after a restart it is simply asked again.
      const { tools, leftOut } = await withConnection(chat, server, listOn, always, false, locale);
      const usable: ToolInfo[] = [];
      const refused: string[] = [
        ...leftOut.refused.map((name) => NOT_A_TOOL[locale](wholeText(name).text, server.name)),
        ...leftOut.tooDeep.map((name) => TOOL_TOO_DEEP[locale](wholeText(name).text, server.name)),
      ];
      for (const t of tools) {
        // A name or an input schema holding half a character (a lone surrogate): no call could
        // name it or send its arguments exactly (what is typed with one is refused), and the model's
        // endpoint may refuse every request listing it. Left out and said, as a schema nobody can use.
        if (holdsHalf(t.name) || wholeValue(t.inputSchema).halves > 0) {
          refused.push(HALF_IN_TOOL[locale](wholeText(t.name).text, server.name));
          continue;
        }
        // The SDK takes any JSON as a property's schema: one the panel and the argument reader
        // cannot use is left out and said, not drawn (a null property took the whole page down).
        try {
          describeArguments(t.inputSchema, { server: server.name, tool: t.name });
        } catch (error) {
          if (!(error instanceof ToolSchemaError)) throw error;
          refused.push(schemaLeftOut(locale, t.name, server.name, error));
          continue;
        }
        usable.push({
          server: server.name,
          name: servers.length > 1 ? `${server.name}__${t.name}` : t.name,
          // Only read (by the person, by the model): half a character as U+FFFD.
          ...(t.title ? { title: wholeText(t.title).text } : {}),
          ...(t.description ? { description: wholeText(t.description).text } : {}),
          inputSchema: t.inputSchema as ToolInfo['inputSchema'],
        });
      }
      return { usable, refused };
    }),
  );
  const listing: ToolListing = { tools: [], unavailable: [] };
  let first: Error | undefined;
  settled.forEach((result, i) => {
    const server = servers[i] as ServerConfig;
    if (result.status === 'fulfilled') {
      listing.tools.push(...result.value.usable);
      for (const message of result.value.refused) listing.unavailable.push({ server: server.name, message });
    } else {
      // Each failure names its server, where it is and why (never its headers).
      const failure = listingFailed(server, result.reason, locale);
      first ??= failure;
      listing.unavailable.push({ server: server.name, message: failure.message });
    }
  });
  // Only when no server answered: a server that answered with one tool left out still answered
  // (counting `unavailable` counted its note as a server down, and 502'd the others' tools away).
  if (first && settled.every((result) => result.status === 'rejected')) throw first;
  return listing;
}

/**
 * The server and the tool's own name behind a listed name. With several servers a listed name is
 * `server__tool`, and the tool's own name may hold `__` too (`files__read__all` is `read__all`):
 * the server is the one whose name and `__` begin it (server names never hold `__`, `config.ts`).
 * Only a name ending in `_` can make two fit (`a` and `a_` both begin `a___x`): the longer wins.
 */
function toolOf(listed: string, locale: Locale): { server: ServerConfig; name: string } {
  const { servers } = config();
  const only = servers.length === 1 ? servers[0] : undefined;
  if (only) return { server: only, name: listed };
  const server = servers
    .filter((s) => listed.startsWith(`${s.name}__`))
    .reduce<ServerConfig | undefined>((best, s) => (best && best.name.length >= s.name.length ? best : s), undefined);
  if (!server) {
    const names = servers.map((s) => `"${s.name}__"`).join(', ');
    throw new Error(NO_SERVER[locale](listed, names));
  }
  return { server, name: listed.slice(server.name.length + 2) };
}

/** The SDK's own timeout, left to the call's deadline: setTimeout's largest delay (a larger one fires at once). */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/** Calls a tool (by its listed name), waiting as long as a person may take to answer. */
export async function callTool(
  chat: Chat,
  listed: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  locale: Locale = 'en',
): Promise<ToolOutput> {
  const { server, name } = toolOf(listed, locale);
  // The server's time on the call, not the person's: standing still while a question of it is
  // open. Counted from the call's start (the SDK's `timeout`), a call asking twice, the person
  // taking most of each question's time, was timed out after its first answer was taken.
  const budget = config().questionTimeoutMs + 60_000;
  const deadline = serverDeadline(budget);
  const stopped = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  // A call is sent again only when it certainly never ran: refused before it was sent, or a 404
  // for the old session (the spec's answer of a server that did not process it). Never a replay.
  const sent = withConnection(
    chat,
    server,
    (c) =>
      callListed(
        c,
        // The chat's language travels with each call: an Elicitkit server (opsdesk) asks and answers in it.
        { name, arguments: args, _meta: { [LOCALE_META_KEY]: locale } },
        { timeout: NO_SDK_TIMEOUT, signal: stopped },
      ),
    (kind) => kind !== 'lost',
    true,
    locale,
  );
  // Told as the SDK tells its own timeout (`server-failure.ts` reads it so).
  const call = sent.catch((error: unknown) => {
    if (!deadline.signal.aborted || signal?.aborted) throw error;
    throw new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: budget }, { cause: error });
  });
  const running = startCall(chat, server.name, call, deadline);
  // However the call ends (result, error, abort), a question it left open can no longer be answered.
  const result = await call.finally(() => {
    deadline.stop();
    return withdrawQuestions(chat, endCall(chat, running));
  });
  const raw = ((result.content ?? []) as { type: string; text?: string }[])
    .map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`))
    .join('\n');
  // Half a character (a lone surrogate) reaches the page, the model and the saved history as U+FFFD,
  // and the text says so: U+FFFD alone reads as a character the server sent.
  const whole = wholeText(raw);
  // Structured content nested past what the chat carries is left out, and the text says so.
  const tooDeep = nestsDeeper(result.structuredContent);
  const wholeStructured = wholeValue(
    tooDeep ? undefined : (result.structuredContent as Record<string, unknown> | undefined),
  );
  const halves = whole.halves + wholeStructured.halves;
  const notes = [
    ...(halves > 0 ? [HALVES_REPLACED[locale](halves)] : []),
    ...(tooDeep ? [STRUCTURED_TOO_DEEP[locale]] : []),
  ];
  const text = [whole.text, ...notes].join('\n');
  const structured = wholeStructured.value;
  const status = typeof structured?.status === 'string' ? structured.status : undefined;
  const output: ToolOutput = {
    text,
    isError: result.isError === true,
    ...(status ? { status } : {}),
    ...(structured ? { structured } : {}),
  };
  return markTimeout(running, output, listed, locale);
}
