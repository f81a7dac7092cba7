import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConnectTimeoutError, connectWithin, guardStreamEnds, type RevisionChoice } from '@elicitkit/client';
import { localeFrom } from '@elicitkit/opsdesk';
import {
  type Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { headerOptions } from './header-option.js';
import type { Io } from './io.js';
import { shownUrl, withoutQuery, withoutUserinfo } from './shown-url.js';
import { UsageError } from './usage.js';

/** A server to talk to: an HTTP endpoint, or a command speaking stdio. */
export type Target =
  | { kind: 'http'; url: URL; headers: Record<string, string>; label: string }
  | { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string>; label: string };

/** The built CLI, whether this module runs from `src/` or `dist/` (both sit one level below the package). */
const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));

/**
 * Splits `argv` at the first `--`: what follows is a stdio command.
 *
 * @example
 * splitCommand(['call', 'deploy', '--', 'node', 'server.js']) // → { before: ['call', 'deploy'], command: ['node', 'server.js'] }
 */
export function splitCommand(argv: readonly string[]): { before: string[]; command: string[] | undefined } {
  const at = argv.indexOf('--');
  return at === -1
    ? { before: [...argv], command: undefined }
    : { before: argv.slice(0, at), command: argv.slice(at + 1) };
}

/**
 * Reads a target: an http(s) URL, the word `opsdesk` (the bundled reference server over stdio, on
 * `opsdeskData`), or a command given after `--`. (`doctor opsdesk` starts its own opsdesk.)
 */
export function parseTarget(
  word: string | undefined,
  command: string[] | undefined,
  options: { headers?: string[]; opsdeskData?: string; opsdesk?: string[] } = {},
): Target {
  if (command !== undefined) {
    if (word !== undefined) throw new UsageError(`give either a target (${word}) or a command after --, not both`);
    const [cmd, ...args] = command;
    if (!cmd) throw new UsageError('nothing after --: give the command that starts the server');
    return { kind: 'stdio', command: cmd, args, label: command.join(' ') };
  }
  if (word === undefined) throw new UsageError('missing <target>: an http(s)://…/mcp URL, opsdesk, or -- <command…>');
  if (word === 'opsdesk') {
    const data = options.opsdeskData;
    // A data directory made up here would be left behind: the caller says which one to use.
    if (data === undefined) throw new TypeError('parseTarget: the opsdesk target needs its data directory');
    const [cmd, ...args] = options.opsdesk ?? [process.execPath, BIN];
    return {
      kind: 'stdio',
      command: cmd as string,
      // The child does not inherit LANG (the SDK passes a minimal environment), so say it.
      args: [...args, 'serve', '--stdio', '--data', data, '--lang', localeFrom(process.env.LANG)],
      label: `opsdesk (data: ${data})`,
    };
  }
  let url: URL;
  try {
    url = new URL(word);
  } catch {
    throw new UsageError(
      `"${withoutQuery(withoutUserinfo(word))}" is not a target: use an http(s)://…/mcp URL, opsdesk, or -- <command…>`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`"${shownUrl(url)}": only http and https URLs are MCP endpoints`);
  const headers = parseHeaders(options.headers ?? []);
  if (url.username !== '' || url.password !== '') {
    // fetch refuses a URL holding credentials: they are sent as curl sends them, and the URL
    // printed anywhere (errors, doctor's report) is the one without them.
    if (headers.authorization !== undefined)
      throw new UsageError('give the credentials once: in the URL (user:password@) or in --header Authorization');
    let pair: string;
    try {
      pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw new UsageError(
        'the user name or password in the URL is not percent-encoded text (a % not followed by two hex digits)',
      );
    }
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { kind: 'http', url, headers, label: shownUrl(url) };
}

function parseHeaders(raw: string[]): Record<string, string> {
  // HTTP header names are case-insensitive: sent as lower case.
  return Object.fromEntries(Object.entries(headerOptions(raw)).map(([k, v]) => [k.toLowerCase(), v]));
}

/** A fresh transport to the target (stdio targets start a new child each time). */
export function transportFor(target: Target): Transport {
  if (target.kind === 'http')
    return new StreamableHTTPClientTransport(target.url, { requestInit: { headers: target.headers } });
  // The server's stderr goes to a file of its own. Not ours to print as it comes (nor its escape
  // sequences); never a pipe nobody reads (one fills at 64 KB and stalls a server that logs); never
  // a pipe a process the server left behind (`daemon &`) holds open, which hides the server's own
  // end. Its last lines say why the server stopped (`lastWords`).
  const path = join(tmpdir(), `elicitkit-server-stderr-${process.pid}-${randomBytes(6).toString('hex')}.log`);
  const fd = openSync(path, 'wx+', 0o600);
  // Gone from the folder at once where the system allows it (the open file stays); else at close.
  try {
    rmSync(path);
  } catch {
    // Windows keeps the name of a file open: removed at close.
  }
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    ...(target.env ? { env: target.env } : {}),
    stderr: fd,
  });
  let kept: string | undefined;
  lastStderr.set(transport, () => kept ?? tailOf(fd));
  // The SDK closes the connection itself (stopping the server) when it cannot read what the server
  // sent (a line past its 10 MiB limit): the error it reported just before is why.
  let lastError: unknown;
  let closeCalled = false;
  let onerror: Transport['onerror'];
  Object.defineProperty(transport, 'onerror', {
    configurable: true,
    get: () => onerror,
    set(handler: Transport['onerror']) {
      onerror =
        handler &&
        ((error: Error) => {
          lastError = error;
          handler(error);
        });
    },
  });
  closedBy.set(transport, () => (closeCalled && lastError instanceof Error ? lastError.message : undefined));
  const close = transport.close.bind(transport);
  transport.close = async () => {
    closeCalled = true;
    await close();
    if (kept !== undefined) return;
    kept = tailOf(fd);
    closeSync(fd);
    rmSync(path, { force: true });
  };
  return transport;
}

/**
 * Why this side closed a stdio connection before anyone asked it to (the SDK's error then), or
 * undefined when the server ended it. Asked only before the command closes the connection itself.
 */
const closedBy = new WeakMap<Transport, () => string | undefined>();

/**
 * The failure to report for `error`, a request that failed while `during` (`during the call`): for
 * a connection that closed, who closed it and why — the server, with its last lines on stderr, or
 * elicitkit, which stops a server whose message it cannot read — else `error` itself.
 *
 * @example
 * throw connectionLost(transport, error, 'during the call, which may or may not have been done');
 */
export function connectionLost(transport: Transport, error: unknown, during: string): unknown {
  if (!(SdkError.isInstance(error) && error.code === SdkErrorCode.ConnectionClosed)) return error;
  const why = closedBy.get(transport)?.();
  if (why !== undefined)
    return new Error(`elicitkit closed the connection ${during}, and so stopped the server: ${why}`);
  // A stdio server that stopped said why on its stderr; "Connection closed" alone does not.
  return new Error(`the server stopped ${during} (${error.message})${lastWords(transport)}`);
}

/** How much of a stdio server's stderr is read back, and how many of its last lines are quoted. */
const LAST_WORDS_BYTES = 4_000;
const LAST_WORDS_LINES = 10;
const lastStderr = new WeakMap<Transport, () => string>();

/** The last `LAST_WORDS_BYTES` of the file open as `fd`. */
function tailOf(fd: number): string {
  const size = fstatSync(fd).size;
  const bytes = Buffer.alloc(Math.min(size, LAST_WORDS_BYTES));
  readSync(fd, bytes, 0, bytes.length, size - bytes.length);
  return bytes.toString('utf8');
}

/**
 * What the stdio server behind `transport` last wrote on stderr, as lines to add to a failure's
 * message ('' when it wrote nothing, or for HTTP): a server that stops says why there ("Cannot find
 * module", a setting missing), which "Connection closed" alone does not.
 */
export function lastWords(transport: Transport): string {
  const lines = (lastStderr.get(transport)?.() ?? '')
    // Every break the terminal filter makes one: a lone CR too, or the text after it would start a
    // line of its own, unmarked, that reads as ours.
    .split(/\r\n?|\n/)
    .filter((line) => line.trim() !== '')
    .slice(-LAST_WORDS_LINES);
  if (lines.length === 0) return '';
  // Printed through the terminal filter (main's), which keeps these line breaks and drops control characters.
  return `\nIts last lines on stderr:\n${lines.map((line) => `  | ${line}`).join('\n')}`;
}

/** How long a connect may take by default, version probe and handshake together. */
export const CONNECT_TIMEOUT_MS = 30_000;

/** When a connect still waiting says so on stderr (or halfway through a shorter timeout). */
const WAIT_NOTE_MS = 3_000;

/** How to connect: the revision the client was made for, where to say it waits, and for how long. */
export interface ConnectOptions {
  revision: RevisionChoice;
  io: Pick<Io, 'err'>;
  /** The whole connect, `auto`'s version probe included. Default `CONNECT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /**
   * Gives up connecting (Ctrl+C, SIGTERM): the transport is closed — a stdio server, and `auto`'s
   * probe of it, stopped with it — before `connectTo` rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/**
 * Connects within one deadline (`connectWithin`: with `auto` over stdio the version probe gets half
 * of it), turning a failure into a message that names the target. A connect still waiting after a
 * few seconds says so once on stderr. Resolves with the transport connected (`lastWords` reads it).
 *
 * @example
 * await connectTo(client, target, { revision: 'auto', io });
 */
export async function connectTo(client: Client, target: Target, options: ConnectOptions): Promise<Transport> {
  const { signal } = options;
  signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
  const transport = transportFor(target);
  const note = setTimeout(
    () => options.io.err(`elicitkit: waiting for ${target.label} to answer (up to ${seconds(timeoutMs)})…`),
    Math.min(WAIT_NOTE_MS, timeoutMs / 2),
  );
  // The client holds no transport until the probe is over: closing the client would stop nothing.
  let closing: Promise<void> | undefined;
  const stop = () => {
    closing = transport.close().catch(() => {});
  };
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await connectWithin(client, transport, { revision: options.revision, timeoutMs });
  } catch (error) {
    if (signal?.aborted) {
      await closing;
      throw signal.reason;
    }
    if (error instanceof ConnectTimeoutError)
      throw new Error(
        `could not connect to ${target.label}: no answer within ${seconds(timeoutMs)} (set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer)`,
      );
    throw new Error(
      `could not connect to ${target.label}: ${error instanceof Error ? error.message : String(error)}${lastWords(transport)}`,
    );
  } finally {
    clearTimeout(note);
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) {
    // Stopped just as the connect succeeded: the server is stopping all the same.
    await closing;
    throw signal.reason;
  }
  // A call whose response stream ends empty fails at once rather than after CALL_TIMEOUT_MS.
  guardStreamEnds(transport);
  return transport;
}

/** `30 s`, `1.5 s`: a timeout as a person reads it. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
