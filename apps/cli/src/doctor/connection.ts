import { listToolsSafely, revisionOptions } from '@elicitkit/client';
import { SchemaValidator } from '@elicitkit/client/schema-validator';
import {
  Client,
  type ElicitResult,
  ProtocolError,
  type RequestId,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from '@modelcontextprotocol/client';
import { lastWords } from '../target.js';
import type { Endpoint } from './endpoint.js';
import { canElicit, type Profile } from './profiles.js';
import { type RawAsk, type SentAnswer, tap } from './tap.js';

/** What a connection reports to the run: the raw questions, the answer to each request, and when answers leave. */
export interface ConnectionHooks {
  onAsks(asks: RawAsk[]): void;
  /** `id`: the request's JSON-RPC id (a pushed question), or its `inputRequests` key (an embedded one). */
  answer(params: Record<string, unknown>, id: RequestId): ElicitResult;
  onSent?(sent: SentAnswer): void;
}

/** One profile's live connection to the server. */
export interface Connection {
  client: Client;
  negotiated: string | undefined;
  /**
   * Resolves once everything the server sent before now has come (`barrier`): a question it pushed
   * along with a call's result, or along with another question, then reads as sent before doctor's next step.
   */
  barrier(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A cold stdio server can take a while to start; a connection that takes longer (or longer than
 * `--timeout-ms`, when that is longer) is not coming.
 */
const CONNECT_TIMEOUT_MS = 30_000;
/** How long checking one result against its tool's output schema may take, ms (`SchemaValidator`). */
const CHECK_TIMEOUT_MS = 1_000;

/** The longest doctor waits for the server's answer to a barrier's ping. */
const BARRIER_MS = 1_000;

/**
 * A ping round trip on a revision whose servers push questions (2025): the server answers the
 * ping only after all it wrote before reading it, and on stdio messages come in the order they
 * were written, so everything it sent until then has come. Any reply will do, an error too; a
 * server that never answers pings is only slower to check (`BARRIER_MS` each time). 2026-07-28
 * has no ping, and a server asks there only in its answers to doctor's requests.
 */
function barrierOf(client: Client, profile: Profile): () => Promise<void> {
  if (profile.revision === '2026-07-28') return async () => {};
  return async () => {
    await client.ping({ timeout: BARRIER_MS }).catch(() => {});
  };
}

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
      // Results checked against their output schemas with patterns in linear time, each check
      // bounded: doctor reads any server, and a hostile schema must not stall it. A second at
      // most: every profile runs at once, and while one check is waited for, the other profiles'
      // calls wait too — on their own timeouts.
      jsonSchemaValidator: new SchemaValidator({ timeoutMs: CHECK_TIMEOUT_MS }),
    },
  );
  const barrier = barrierOf(client, profile);
  if (canElicit(profile)) {
    // A 2025 server (or the SDK's legacy shim, for a 2026-07-28 round) may push several questions
    // at once, one message each, which can come apart by tens of milliseconds on a busy machine.
    // Before an answer to a pushed question goes out, doctor waits for the barrier: every question
    // sent along with this one has then come before the answer left, and none reads as asked
    // after it (EK12, EK05). 2026-07-28 questions come in rounds the protocol marks.
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const answer = hooks.answer(request.params as unknown as Record<string, unknown>, ctx.mcpReq.id);
      await barrier();
      return answer;
    });
  }
  const transport = await endpoint.transport(profile);
  let answered = false;
  const tapped = tap(transport, {
    onAsks: hooks.onAsks,
    ...(hooks.onSent ? { onSent: hooks.onSent } : {}),
    onResponse: () => {
      answered = true;
    },
  });
  try {
    await client.connect(tapped, { timeout: Math.max(CONNECT_TIMEOUT_MS, requestTimeoutMs) });
  } catch (error) {
    await client.close().catch(() => {});
    throw new ConnectFailure(error, lastWords(transport), refusedRevision(error, answered));
  }
  return {
    client,
    negotiated: client.getNegotiatedProtocolVersion?.(),
    barrier,
    close: () => client.close().catch(() => {}),
  };
}

/**
 * Whether a connect failed because the server would not speak the profile's revision: it answered
 * the handshake with a JSON-RPC error, or with a version this client does not take (the SDK's
 * plain error after the server `answered`), or did not offer the pinned 2026-07-28 on the version
 * probe (a 2025 server that ends on a request it does not know refuses it so too), or refused the
 * HTTP request as the Streamable HTTP transport says to refuse a version (400). A connection that
 * closed or timed out before any answer — a server that crashed on this revision's `initialize` —
 * is no refusal.
 */
function refusedRevision(error: unknown, answered: boolean): boolean {
  if (error instanceof ProtocolError) return true;
  if (error instanceof SdkHttpError) return error.status === 400 || error.code === SdkErrorCode.EraNegotiationFailed;
  if (SdkError.isInstance(error)) return error.code === SdkErrorCode.EraNegotiationFailed;
  return answered;
}

/**
 * A connection that could not be opened: the failure (`cause`, its message as its own), what a
 * stdio server last wrote on stderr (`lastWords`, '' when nothing or over HTTP), and whether the
 * server refused the revision (`refused`) rather than closing, crashing or hanging while connecting.
 */
export class ConnectFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly lastWords: string,
    readonly refused: boolean,
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
