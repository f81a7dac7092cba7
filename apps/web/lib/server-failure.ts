import { ConnectTimeoutError } from '@elicitkit/client';
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import type { ServerConfig } from './config';

/**
 * A stdio server's process ended while the chat was connecting to it: the command started but
 * exited (or closed its output) before answering. Its own error output went to the app's terminal.
 */
export class ServerExitedError extends Error {
  constructor(cause: unknown) {
    super('the command exited before answering', { cause });
    this.name = 'ServerExitedError';
  }
}

/**
 * Why a configured server failed, in plain words (`text`), with what to do (`hint`). `started`
 * is false when a stdio server's command could not be started (not found, not executable, exited
 * at once).
 */
export interface FailureCause {
  text: string;
  hint: string;
  started: boolean;
}

/**
 * Where a configured server is, as a message may show it: an HTTP server's URL without
 * credentials, query or fragment; a stdio server's command line, with the values of arguments
 * that look like secrets (`--token x`, `--api-key=x`, `Bearer x`) replaced by `***`.
 *
 * @example
 * serverPlace({ name: 'ops', kind: 'http', url: 'http://u:p@h/mcp?key=1', headers: {}, revision: 'auto' }); // 'http://h/mcp?…'
 */
export function serverPlace(server: ServerConfig): string {
  switch (server.kind) {
    case 'opsdesk':
      return 'the bundled opsdesk';
    case 'http':
      return safeUrl(server.url);
    case 'stdio':
      return `command: ${commandLine(server.command, server.args)}`;
  }
}

/** `"ops" (http://127.0.0.1:7777/mcp)`: the server's name and where it is. */
export function serverLabel(server: ServerConfig): string {
  return `"${server.name}" (${serverPlace(server)})`;
}

function parsedUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function safeUrl(raw: string): string {
  const url = parsedUrl(raw);
  return url ? `${url.origin}${url.pathname}${url.search ? '?…' : ''}` : '(an invalid URL)';
}

const SECRET_NAME = /(token|secret|passw(or)?d|api[-_]?key|auth|bearer|credential|cookie)/i;

function commandLine(command: string, args: readonly string[]): string {
  const shown = args.map((arg, i) => {
    const previous = args[i - 1];
    if (previous !== undefined && /^--?[\w-]+$/.test(previous) && SECRET_NAME.test(previous)) return '***';
    const flag = /^(--?[\w-]+)=/.exec(arg);
    if (flag?.[1] && SECRET_NAME.test(flag[1])) return `${flag[1]}=***`;
    if (/^bearer\s/i.test(arg)) return 'Bearer ***';
    return arg;
  });
  return [command, ...shown].map((part) => (/^[\w@%+=:,./*-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}

/** The error, then its causes and the errors it aggregates (localhost tried on two addresses), breadth first. */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && out.length < 16) {
    const next = queue.shift();
    if (typeof next !== 'object' || next === null || out.includes(next)) continue;
    out.push(next);
    const { cause, errors } = next as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return out;
}

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

function text(error: unknown, name: string): string | undefined {
  const value = field(error, name);
  return typeof value === 'string' ? value : undefined;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const RETRY = 'Try again once it is running.';

function httpStatus(status: number, statusText: string | undefined): FailureCause {
  const said = `it answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  if (status === 401)
    return {
      text: `${said}: it wants credentials`,
      hint: 'Check the token in its "headers" in ELICITKIT_SERVERS.',
      started: true,
    };
  if (status === 403)
    return {
      text: `${said}: its credentials are not allowed there`,
      hint: 'Check the token in its "headers" in ELICITKIT_SERVERS.',
      started: true,
    };
  if (status === 404)
    return {
      text: `${said}: nothing is served at that path`,
      hint: 'Check the path of its "url" in ELICITKIT_SERVERS (MCP servers usually serve /mcp).',
      started: true,
    };
  if (status >= 500) return { text: `${said} (the server failed)`, hint: 'Its own log says why.', started: true };
  return { text: said, hint: 'Check its "url" in ELICITKIT_SERVERS.', started: true };
}

/** Node and undici error codes of a connection that could not be made or broke, in plain words. */
function networkCode(code: string, error: unknown, server: ServerConfig): FailureCause | undefined {
  const host =
    text(error, 'hostname') ?? (server.kind === 'http' ? (parsedUrl(server.url)?.hostname ?? '') : 'the host');
  const fixUrl = 'Check its "url" in ELICITKIT_SERVERS.';
  switch (code) {
    case 'ECONNREFUSED':
      return { text: 'connection refused (nothing listens there)', hint: RETRY, started: true };
    case 'ENOTFOUND':
      return { text: `host "${host}" not found`, hint: fixUrl, started: true };
    case 'EAI_AGAIN':
      return { text: `host "${host}" could not be looked up (DNS did not answer)`, hint: fixUrl, started: true };
    case 'EHOSTUNREACH':
      return { text: `host "${host}" is unreachable`, hint: fixUrl, started: true };
    case 'ENETUNREACH':
      return { text: 'no network route to it', hint: fixUrl, started: true };
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { text: 'no answer to the connection attempt (it timed out)', hint: fixUrl, started: true };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { text: 'no answer (the response timed out)', hint: RETRY, started: true };
    case 'ECONNRESET':
      return { text: 'the connection was reset', hint: RETRY, started: true };
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { text: 'the connection was closed', hint: RETRY, started: true };
    case 'EPROTO':
      return {
        text: 'the TLS handshake failed (is it https on a plain http port?)',
        hint: fixUrl,
        started: true,
      };
  }
  if (/CERT|TLS|SSL|SELF_SIGNED/.test(code)) {
    return { text: `its TLS certificate was not accepted (${code})`, hint: fixUrl, started: true };
  }
  return undefined;
}

function spawnFailure(code: string, message: string): FailureCause {
  const hint = 'Check its "command" in ELICITKIT_SERVERS (the program must be on PATH, or a path to it).';
  if (code === 'ENOENT') return { text: 'no such program (ENOENT)', hint, started: false };
  if (code === 'EACCES') return { text: 'permission denied: it is not executable (EACCES)', hint, started: false };
  return { text: message, hint, started: false };
}

/**
 * Why connecting to (or calling) a configured MCP server failed, in plain words, from the error's
 * type and its `cause` chain (the SDK wraps the transport's error, `fetch failed` wraps Node's):
 * refused, host not found, no answer within the timeout, the HTTP status it answered (never its
 * body), a stdio command that could not be started or exited at once. Never shows the server's
 * header values.
 *
 * @example
 * describeFailure(new TypeError('fetch failed', { cause: Object.assign(new Error(), { code: 'ECONNREFUSED' }) }), server).text;
 * // 'connection refused (nothing listens there)'
 */
export function describeFailure(error: unknown, server: ServerConfig): FailureCause {
  return redacted(plain(error, server), server);
}

function plain(error: unknown, server: ServerConfig): FailureCause {
  const all = chain(error);
  if (all.some((e) => e instanceof ServerExitedError)) {
    return {
      text: 'the command exited before answering',
      hint: 'Its error output is in the terminal running the app.',
      started: false,
    };
  }
  for (const e of all) {
    const code = text(e, 'code');
    if (code && text(e, 'syscall')?.startsWith('spawn')) return spawnFailure(code, text(e, 'message') ?? code);
  }
  const deadline = all.find((e) => e instanceof ConnectTimeoutError);
  if (deadline) {
    return {
      text: `no answer within ${seconds(deadline.timeoutMs)}`,
      hint: `Try again once it is running, or set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer.`,
      started: true,
    };
  }
  for (const e of all) {
    if (SdkHttpError.isInstance(e)) {
      const data = field(e, 'data');
      const status = field(data, 'status');
      if (typeof status === 'number') return httpStatus(status, text(data, 'statusText'));
    }
    if (SdkError.isInstance(e) && e.code === SdkErrorCode.RequestTimeout) {
      const ms = field(field(e, 'data'), 'timeout');
      return {
        text: typeof ms === 'number' ? `no answer within ${seconds(ms)}` : 'no answer in time',
        hint: RETRY,
        started: true,
      };
    }
  }
  for (const e of all) {
    // Node's and undici's codes, not the SDK's own (`SdkError.code` names its error kinds).
    const code = SdkError.isInstance(e) ? undefined : text(e, 'code');
    const known = code === undefined ? undefined : networkCode(code, e, server);
    if (known) return known;
  }
  // fetch refuses the ports of other protocols (WHATWG "bad ports": 1, 9, 25, 6000…) without trying.
  if (all.some((e) => e instanceof Error && e.message === 'bad port')) {
    const port = server.kind === 'http' ? parsedUrl(server.url)?.port : undefined;
    return {
      text: `fetch does not connect to port ${port || '?'} (it is reserved for another protocol)`,
      hint: 'Serve it on another port.',
      started: true,
    };
  }
  if (all.some((e) => SdkError.isInstance(e) && e.code === SdkErrorCode.ConnectionClosed)) {
    return { text: 'the connection closed before it answered', hint: RETRY, started: true };
  }
  // Anything else: the most specific message there is (the innermost), an SDK protocol mismatch included.
  const messages = all.map((e) => text(e, 'message')).filter((m): m is string => Boolean(m));
  return { text: messages.at(-1) ?? String(error), hint: '', started: true };
}

/** Header values (and a bearer token anywhere) never reach a message. */
function redacted(cause: FailureCause, server: ServerConfig): FailureCause {
  let out = cause.text.replace(/\b(bearer)\s+[^\s"',;)]+/gi, '$1 ***');
  if (server.kind === 'http') {
    const url = parsedUrl(server.url);
    const secrets = [
      ...Object.values(server.headers).flatMap((value) => [value, value.replace(/^\S+\s+/, '')]),
      ...(url ? [url.password, url.username, ...url.searchParams.values()] : []),
    ];
    for (const secret of secrets.sort((a, b) => b.length - a.length)) {
      if (secret.length >= 4) out = out.split(secret).join('***');
    }
  }
  return { ...cause, text: out };
}
