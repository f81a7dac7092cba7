import { ElicitkitError } from '@elicitkit/form';
import type { ServerConfig } from './config';
import type { Locale } from './locale';
import { describeFailure, serverLabel } from './server-failure';

/**
 * A chat's MCP server could not serve a request because of its connection, not because of the
 * tool: `SERVER_UNREACHABLE` (it could not be connected to, or nothing answered; the request was
 * never sent) or `SERVER_RESTARTED` (the connection broke while a call was running, so the call
 * may or may not have run — it is never replayed). The chat drops the connection; its next use
 * connects afresh. The message names the server, where it is (its URL or command, never its
 * headers) and the cause in plain words (`describeFailure`).
 *
 * @example
 * try { await callTool(chat, 'deploy_service', args); }
 * catch (e) { if (e instanceof ServerConnectionError && e.code === 'SERVER_RESTARTED') warnMaybeRan(e.server); }
 */
export class ServerConnectionError extends ElicitkitError {
  declare readonly code: ServerConnectionCode;
  /** The configured server's name. */
  readonly server: string;

  constructor(code: ServerConnectionCode, server: ServerConfig, cause: unknown, locale: Locale = 'en') {
    super(code, MESSAGES[locale][code](server, cause), { cause });
    this.name = 'ServerConnectionError';
    this.server = server.name;
  }
}

export type ServerConnectionCode = 'SERVER_UNREACHABLE' | 'SERVER_RESTARTED';

/** What the chat says of each, in its language (streamed into the turn: the page shows it). */
const MESSAGES: Record<Locale, Record<ServerConnectionCode, (server: ServerConfig, cause: unknown) => string>> = {
  en: {
    SERVER_UNREACHABLE: (server, cause) => {
      const why = describeFailure(cause, server, 'en');
      const what = why.started ? 'cannot be reached' : 'could not be started';
      return `The MCP server ${serverLabel(server)} ${what}: ${why.text}. The request was not sent.${why.hint ? ` ${why.hint}` : ''}`;
    },
    SERVER_RESTARTED: (server) =>
      `The MCP server ${serverLabel(server)} restarted (or its connection broke) during the call: it may or may not have run. Check before retrying; the next request connects afresh.`,
  },
  zh: {
    SERVER_UNREACHABLE: (server, cause) => {
      const why = describeFailure(cause, server, 'zh');
      const what = why.started ? '无法连接' : '无法启动';
      return `MCP 服务器 ${serverLabel(server, 'zh')} ${what}：${why.text}。请求没有发出。${why.hint}`;
    },
    SERVER_RESTARTED: (server) =>
      `MCP 服务器 ${serverLabel(server, 'zh')} 在调用期间重启了（或它的连接断了）：调用可能运行了，也可能没有。重试前请先检查；下一个请求会重新连接。`,
  },
};

/**
 * A server that is connected but could not list its tools (a protocol error it answered): the
 * message names the server and where it is, then the server's own reason.
 */
export function listingFailed(server: ServerConfig, error: unknown, locale: Locale = 'en'): Error {
  if (error instanceof ServerConnectionError) return error;
  const why = describeFailure(error, server, locale).text;
  const said =
    locale === 'zh'
      ? `MCP 服务器 ${serverLabel(server, 'zh')} 无法列出它的工具：${why}`
      : `The MCP server ${serverLabel(server)} could not list its tools: ${why}`;
  return new Error(said, { cause: error });
}
