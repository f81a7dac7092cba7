import { ElicitkitError } from '@elicitkit/form';
import type { ServerConfig } from './config';
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

  constructor(code: ServerConnectionCode, server: ServerConfig, cause: unknown) {
    super(code, MESSAGES[code](server, cause), { cause });
    this.name = 'ServerConnectionError';
    this.server = server.name;
  }
}

export type ServerConnectionCode = 'SERVER_UNREACHABLE' | 'SERVER_RESTARTED';

const MESSAGES: Record<ServerConnectionCode, (server: ServerConfig, cause: unknown) => string> = {
  SERVER_UNREACHABLE: (server, cause) => {
    const why = describeFailure(cause, server);
    const what = why.started ? 'cannot be reached' : 'could not be started';
    return `The MCP server ${serverLabel(server)} ${what}: ${why.text}. The request was not sent.${why.hint ? ` ${why.hint}` : ''}`;
  },
  SERVER_RESTARTED: (server) =>
    `The MCP server ${serverLabel(server)} restarted (or its connection broke) during the call: it may or may not have run. Check before retrying; the next request connects afresh.`,
};

/**
 * A server that is connected but could not list its tools (a protocol error it answered): the
 * message names the server and where it is, then the server's own reason.
 */
export function listingFailed(server: ServerConfig, error: unknown): Error {
  if (error instanceof ServerConnectionError) return error;
  const why = describeFailure(error, server).text;
  return new Error(`The MCP server ${serverLabel(server)} could not list its tools: ${why}`, { cause: error });
}
