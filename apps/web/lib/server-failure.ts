import { ConnectTimeoutError } from '@elicitkit/client';
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import type { ServerConfig } from './config';
import type { Locale } from './locale';

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

/** Every word `describeFailure` and `serverPlace` say, in each language of the chat. */
const SAY: Record<
  Locale,
  {
    opsdesk: string;
    command: (line: string) => string;
    invalidUrl: string;
    retry: string;
    fixUrl: string;
    fixToken: string;
    answered: (status: number, statusText: string) => string;
    wantsCredentials: (said: string) => string;
    notAllowed: (said: string) => string;
    nothingServed: (said: string) => string;
    fixPath: string;
    serverFailed: (said: string) => string;
    ownLog: string;
    refused: string;
    hostNotFound: (host: string) => string;
    dnsSilent: (host: string) => string;
    hostUnreachable: (host: string) => string;
    noRoute: string;
    connectTimedOut: string;
    responseTimedOut: string;
    reset: string;
    closed: string;
    tlsHandshake: string;
    certificate: (code: string) => string;
    fixCommand: string;
    noProgram: string;
    notExecutable: string;
    exited: string;
    exitedHint: string;
    noAnswerWithin: (time: string) => string;
    waitLonger: string;
    noAnswerInTime: string;
    badPort: (port: string) => string;
    otherPort: string;
    closedBeforeAnswer: string;
  }
> = {
  en: {
    opsdesk: 'the bundled opsdesk',
    command: (line) => `command: ${line}`,
    invalidUrl: '(an invalid URL)',
    retry: 'Try again once it is running.',
    fixUrl: 'Check its "url" in ELICITKIT_SERVERS.',
    fixToken: 'Check the token in its "headers" in ELICITKIT_SERVERS.',
    answered: (status, statusText) => `it answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`,
    wantsCredentials: (said) => `${said}: it wants credentials`,
    notAllowed: (said) => `${said}: its credentials are not allowed there`,
    nothingServed: (said) => `${said}: nothing is served at that path`,
    fixPath: 'Check the path of its "url" in ELICITKIT_SERVERS (MCP servers usually serve /mcp).',
    serverFailed: (said) => `${said} (the server failed)`,
    ownLog: 'Its own log says why.',
    refused: 'connection refused (nothing listens there)',
    hostNotFound: (host) => `host "${host}" not found`,
    dnsSilent: (host) => `host "${host}" could not be looked up (DNS did not answer)`,
    hostUnreachable: (host) => `host "${host}" is unreachable`,
    noRoute: 'no network route to it',
    connectTimedOut: 'no answer to the connection attempt (it timed out)',
    responseTimedOut: 'no answer (the response timed out)',
    reset: 'the connection was reset',
    closed: 'the connection was closed',
    tlsHandshake: 'the TLS handshake failed (is it https on a plain http port?)',
    certificate: (code) => `its TLS certificate was not accepted (${code})`,
    fixCommand: 'Check its "command" in ELICITKIT_SERVERS (the program must be on PATH, or a path to it).',
    noProgram: 'no such program (ENOENT)',
    notExecutable: 'permission denied: it is not executable (EACCES)',
    exited: 'the command exited before answering',
    exitedHint: 'Its error output is in the terminal running the app.',
    noAnswerWithin: (time) => `no answer within ${time}`,
    waitLonger: 'Try again once it is running, or set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer.',
    noAnswerInTime: 'no answer in time',
    badPort: (port) => `fetch does not connect to port ${port} (it is reserved for another protocol)`,
    otherPort: 'Serve it on another port.',
    closedBeforeAnswer: 'the connection closed before it answered',
  },
  zh: {
    opsdesk: '内置的 opsdesk',
    command: (line) => `命令：${line}`,
    invalidUrl: '（无效的 URL）',
    retry: '等它运行起来后再试。',
    fixUrl: '请检查 ELICITKIT_SERVERS 中它的 "url"。',
    fixToken: '请检查 ELICITKIT_SERVERS 中它 "headers" 里的令牌。',
    answered: (status, statusText) => `它回答了 HTTP ${status}${statusText ? ` ${statusText}` : ''}`,
    wantsCredentials: (said) => `${said}：它要求凭据`,
    notAllowed: (said) => `${said}：它的凭据在那里不被允许`,
    nothingServed: (said) => `${said}：那个路径上没有提供任何服务`,
    fixPath: '请检查 ELICITKIT_SERVERS 中它 "url" 的路径（MCP 服务器通常在 /mcp 提供服务）。',
    serverFailed: (said) => `${said}（服务器出错）`,
    ownLog: '原因见它自己的日志。',
    refused: '连接被拒绝（那里没有程序在监听）',
    hostNotFound: (host) => `找不到主机“${host}”`,
    dnsSilent: (host) => `无法查询主机“${host}”（DNS 没有回答）`,
    hostUnreachable: (host) => `主机“${host}”不可达`,
    noRoute: '没有通往它的网络路由',
    connectTimedOut: '连接尝试没有回答（超时）',
    responseTimedOut: '没有回答（响应超时）',
    reset: '连接被重置',
    closed: '连接被关闭',
    tlsHandshake: 'TLS 握手失败（是否在普通 http 端口上使用了 https？）',
    certificate: (code) => `它的 TLS 证书未被接受（${code}）`,
    fixCommand: '请检查 ELICITKIT_SERVERS 中它的 "command"（程序必须在 PATH 中，或写出它的路径）。',
    noProgram: '没有这个程序（ENOENT）',
    notExecutable: '权限被拒绝：它不可执行（EACCES）',
    exited: '命令在回答之前就退出了',
    exitedHint: '它的错误输出在运行本应用的终端里。',
    noAnswerWithin: (time) => `${time} 内没有回答`,
    waitLonger: '等它运行起来后再试，或设置 ELICITKIT_CONNECT_TIMEOUT_MS 以等待更久。',
    noAnswerInTime: '没有及时回答',
    badPort: (port) => `fetch 不连接端口 ${port}（它留给了另一种协议）`,
    otherPort: '请在另一个端口上提供它。',
    closedBeforeAnswer: '连接在它回答之前就关闭了',
  },
};

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
export function serverPlace(server: ServerConfig, locale: Locale = 'en'): string {
  switch (server.kind) {
    case 'opsdesk':
      return SAY[locale].opsdesk;
    case 'http':
      return safeUrl(server.url, locale);
    case 'stdio':
      return SAY[locale].command(commandLine(server.command, server.args));
  }
}

/** `"ops" (http://127.0.0.1:7777/mcp)`: the server's name and where it is. */
export function serverLabel(server: ServerConfig, locale: Locale = 'en'): string {
  return `"${server.name}" (${serverPlace(server, locale)})`;
}

function parsedUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function safeUrl(raw: string, locale: Locale): string {
  const url = parsedUrl(raw);
  return url ? `${url.origin}${url.pathname}${url.search ? '?…' : ''}` : SAY[locale].invalidUrl;
}

const SECRET_NAME =
  /(token|secret|passw(or)?d|pass(phrase)?|api[-_]?key|access[-_]?key|private[-_]?key|auth|bearer|credential|cookie)/i;

/**
 * A command line as shown in an error anyone using the chat reads: secrets hidden wherever a
 * command line carries them — the value after a secret-looking flag (`--token x`, `--api-key=x`),
 * a secret-looking `NAME=value` (`env API_KEY=…`), an environment variable's value after `-e` or
 * `--env` (`docker run -e GITHUB_TOKEN=…`: any name), a header's value after `-H` or `--header`,
 * a credential after `Bearer` or `Basic`, a URL's password (`postgresql://app:pw@db/…`) and its
 * secret-looking query values.
 */
function commandLine(command: string, args: readonly string[]): string {
  const shown = args.map((arg, i) => {
    const previous = args[i - 1];
    if (previous !== undefined && /^--?[\w-]+$/.test(previous)) {
      if (SECRET_NAME.test(previous)) return '***';
      if (/^(-e|--env)$/.test(previous) && /^[A-Za-z_][\w.-]*=/.test(arg))
        return `${arg.slice(0, arg.indexOf('='))}=***`;
      if (/^(-H|--header)$/i.test(previous) && arg.includes(':')) return `${arg.slice(0, arg.indexOf(':'))}: ***`;
    }
    const flag = /^(--?[\w-]+)=/.exec(arg);
    if (flag?.[1] && SECRET_NAME.test(flag[1])) return `${flag[1]}=***`;
    const assigned = /^([A-Za-z_][\w.-]*)=/.exec(arg);
    if (assigned?.[1] && SECRET_NAME.test(assigned[1])) return `${assigned[1]}=***`;
    return arg
      .replace(/\b(bearer|basic)\s+\S+/gi, '$1 ***')
      .replace(/(\b[a-z][\w+.-]*:\/\/[^\s/@:]*:)[^\s/@]*@/gi, '$1***@')
      .replace(/([?&][^=&#\s]*(token|key|secret|sig|signature|passw|auth|credential)[^=&#\s]*=)[^&#\s]*/gi, '$1***');
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

function httpStatus(status: number, statusText: string | undefined, say: (typeof SAY)[Locale]): FailureCause {
  const said = say.answered(status, statusText ?? '');
  if (status === 401) return { text: say.wantsCredentials(said), hint: say.fixToken, started: true };
  if (status === 403) return { text: say.notAllowed(said), hint: say.fixToken, started: true };
  if (status === 404) return { text: say.nothingServed(said), hint: say.fixPath, started: true };
  if (status >= 500) return { text: say.serverFailed(said), hint: say.ownLog, started: true };
  return { text: said, hint: say.fixUrl, started: true };
}

/** Node and undici error codes of a connection that could not be made or broke, in plain words. */
function networkCode(
  code: string,
  error: unknown,
  server: ServerConfig,
  say: (typeof SAY)[Locale],
): FailureCause | undefined {
  const host = text(error, 'hostname') ?? (server.kind === 'http' ? (parsedUrl(server.url)?.hostname ?? '') : '?');
  const { fixUrl, retry } = say;
  switch (code) {
    case 'ECONNREFUSED':
      return { text: say.refused, hint: retry, started: true };
    case 'ENOTFOUND':
      return { text: say.hostNotFound(host), hint: fixUrl, started: true };
    case 'EAI_AGAIN':
      return { text: say.dnsSilent(host), hint: fixUrl, started: true };
    case 'EHOSTUNREACH':
      return { text: say.hostUnreachable(host), hint: fixUrl, started: true };
    case 'ENETUNREACH':
      return { text: say.noRoute, hint: fixUrl, started: true };
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { text: say.connectTimedOut, hint: fixUrl, started: true };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { text: say.responseTimedOut, hint: retry, started: true };
    case 'ECONNRESET':
      return { text: say.reset, hint: retry, started: true };
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { text: say.closed, hint: retry, started: true };
    case 'EPROTO':
      return { text: say.tlsHandshake, hint: fixUrl, started: true };
  }
  if (/CERT|TLS|SSL|SELF_SIGNED/.test(code)) return { text: say.certificate(code), hint: fixUrl, started: true };
  return undefined;
}

function spawnFailure(code: string, message: string, say: (typeof SAY)[Locale]): FailureCause {
  const hint = say.fixCommand;
  if (code === 'ENOENT') return { text: say.noProgram, hint, started: false };
  if (code === 'EACCES') return { text: say.notExecutable, hint, started: false };
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
export function describeFailure(error: unknown, server: ServerConfig, locale: Locale = 'en'): FailureCause {
  return redacted(plain(error, server, SAY[locale]), server);
}

function plain(error: unknown, server: ServerConfig, say: (typeof SAY)[Locale]): FailureCause {
  const all = chain(error);
  if (all.some((e) => e instanceof ServerExitedError))
    return { text: say.exited, hint: say.exitedHint, started: false };
  for (const e of all) {
    const code = text(e, 'code');
    if (code && text(e, 'syscall')?.startsWith('spawn')) return spawnFailure(code, text(e, 'message') ?? code, say);
  }
  const deadline = all.find((e) => e instanceof ConnectTimeoutError);
  if (deadline) return { text: say.noAnswerWithin(seconds(deadline.timeoutMs)), hint: say.waitLonger, started: true };
  for (const e of all) {
    if (SdkHttpError.isInstance(e)) {
      const data = field(e, 'data');
      const status = field(data, 'status');
      if (typeof status === 'number') return httpStatus(status, text(data, 'statusText'), say);
    }
    if (SdkError.isInstance(e) && e.code === SdkErrorCode.RequestTimeout) {
      const ms = field(field(e, 'data'), 'timeout');
      return {
        text: typeof ms === 'number' ? say.noAnswerWithin(seconds(ms)) : say.noAnswerInTime,
        hint: say.retry,
        started: true,
      };
    }
  }
  for (const e of all) {
    // Node's and undici's codes, not the SDK's own (`SdkError.code` names its error kinds).
    const code = SdkError.isInstance(e) ? undefined : text(e, 'code');
    const known = code === undefined ? undefined : networkCode(code, e, server, say);
    if (known) return known;
  }
  // fetch refuses the ports of other protocols (WHATWG "bad ports": 1, 9, 25, 6000…) without trying.
  if (all.some((e) => e instanceof Error && e.message === 'bad port')) {
    const port = server.kind === 'http' ? parsedUrl(server.url)?.port : undefined;
    return { text: say.badPort(port || '?'), hint: say.otherPort, started: true };
  }
  if (all.some((e) => SdkError.isInstance(e) && e.code === SdkErrorCode.ConnectionClosed)) {
    return { text: say.closedBeforeAnswer, hint: say.retry, started: true };
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
