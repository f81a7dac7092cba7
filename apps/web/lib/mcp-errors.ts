import { ElicitkitError } from '@elicitkit/form';

/**
 * A chat's MCP server could not serve a request because of its connection, not because of the
 * tool: `SERVER_UNREACHABLE` (nothing answered; the request was never sent) or
 * `SERVER_RESTARTED` (the connection broke while a call was running, so the call may or may not
 * have run — it is never replayed). The chat drops the connection; its next use connects afresh.
 *
 * @example
 * try { await callTool(chat, 'deploy_service', args); }
 * catch (e) { if (e instanceof ServerConnectionError && e.code === 'SERVER_RESTARTED') warnMaybeRan(e.server); }
 */
export class ServerConnectionError extends ElicitkitError {
  declare readonly code: ServerConnectionCode;
  /** The configured server's name. */
  readonly server: string;

  constructor(code: ServerConnectionCode, server: string, cause: unknown) {
    super(code, MESSAGES[code](server), { cause });
    this.name = 'ServerConnectionError';
    this.server = server;
  }
}

export type ServerConnectionCode = 'SERVER_UNREACHABLE' | 'SERVER_RESTARTED';

const MESSAGES: Record<ServerConnectionCode, (server: string) => string> = {
  SERVER_UNREACHABLE: (server) =>
    `The MCP server "${server}" cannot be reached (nothing answers at its address); the request was not sent. Try again once it is running.`,
  SERVER_RESTARTED: (server) =>
    `The MCP server "${server}" restarted (or its connection broke) during the call: it may or may not have run. Check before retrying; the next request connects afresh.`,
};
