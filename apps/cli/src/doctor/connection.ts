import { listToolsSafely, revisionOptions } from '@elicitkit/client';
import { SchemaValidator } from '@elicitkit/client/schema-validator';
import { Client, type ElicitResult, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { lastWords } from '../target.js';
import type { Endpoint } from './endpoint.js';
import { canElicit, type Profile } from './profiles.js';
import { type RawAsk, tap } from './tap.js';

/** What a connection reports to the run: the raw questions, and the answer to each request. */
export interface ConnectionHooks {
  onAsks(asks: RawAsk[]): void;
  answer(params: Record<string, unknown>): ElicitResult;
}

/** One profile's live connection to the server. */
export interface Connection {
  client: Client;
  negotiated: string | undefined;
  close(): Promise<void>;
}

/**
 * A cold stdio server can take a while to start; a connection that takes longer (or longer than
 * `--timeout-ms`, when that is longer) is not coming.
 */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Connects as `profile`: its revision, its declared capabilities, and an elicitation handler
 * only when it declares a mode (a client without one cannot be asked).
 *
 * @example
 * const conn = await openConnection(endpoint, PROFILES[0], { onAsks, answer });
 */
export async function openConnection(
  endpoint: Endpoint,
  profile: Profile,
  hooks: ConnectionHooks,
  requestTimeoutMs = 0,
): Promise<Connection> {
  const client = new Client(
    { name: profile.client?.announces ?? 'elicitkit-doctor', version: '0.1.0' },
    {
      capabilities: profile.capabilities,
      ...revisionOptions(profile.revision),
      // Results checked against their output schemas with patterns in linear time: doctor reads
      // any server, and a hostile `pattern` must not stall it.
      jsonSchemaValidator: new SchemaValidator(),
    },
  );
  if (canElicit(profile)) {
    client.setRequestHandler('elicitation/create', async (request) =>
      hooks.answer(request.params as unknown as Record<string, unknown>),
    );
  }
  const transport = await endpoint.transport(profile);
  try {
    await client.connect(tap(transport, hooks.onAsks), {
      timeout: Math.max(CONNECT_TIMEOUT_MS, requestTimeoutMs),
    });
  } catch (error) {
    await client.close().catch(() => {});
    throw new ConnectFailure(error, lastWords(transport));
  }
  return {
    client,
    negotiated: client.getNegotiatedProtocolVersion?.(),
    close: () => client.close().catch(() => {}),
  };
}

/**
 * A connection that could not be opened: the failure (`cause`, its message as its own) and what a
 * stdio server last wrote on stderr (`lastWords`, '' when nothing or over HTTP).
 */
export class ConnectFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly lastWords: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'ConnectFailure';
  }
}

/**
 * Whether the server still answers on this connection: a ping, or on a revision without ping
 * (2026-07-28) a tool listing. A slow tool that was cancelled leaves a live connection; a server
 * that died or wedged does not.
 */
export async function isAlive(conn: Connection, timeoutMs: number): Promise<boolean> {
  try {
    await conn.client.ping({ timeout: timeoutMs });
    return true;
  } catch (error) {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion)) return false;
  }
  try {
    await listToolsSafely(conn.client, { timeout: timeoutMs });
    return true;
  } catch {
    return false;
  }
}
