import type { Status } from '@elicitkit/server';
import { type CallToolResult, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { urlsShown } from '../shown-url.js';

/** Why doctor did not make a call. */
export type SkipReason =
  /** An accepting answer to a destructive tool (annotations), without `--allow-destructive`. */
  | 'destructive'
  /** The first call of this case asked nothing, so another way of answering cannot change it. */
  | 'no-question'
  /** The case prepares the server's data, which only a throw-away server doctor started allows. */
  | 'needs-own-server'
  /** The connection died and could not be opened again. */
  | 'connection-lost';

/**
 * What one tool call ended in, decided from types and codes only: a result (with its
 * `structuredContent.status` when it has one), a JSON-RPC error from the server, a timeout (the
 * SDK's `RequestTimeout`; the call was cancelled), a failure of the connection or the client, or
 * not made at all.
 */
export type CallOutcome =
  | { kind: 'result'; isError: boolean; status?: string; text: string }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'timeout'; afterMs: number }
  | { kind: 'failed'; sdkCode: string; message: string }
  | { kind: 'skipped'; reason: SkipReason };

/** A tool result as doctor keeps it; `text` is for people to read, never for judging. */
export function fromResult(result: CallToolResult): CallOutcome {
  const text = (result.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const status = typeof structured?.status === 'string' ? structured.status : undefined;
  return { kind: 'result', isError: result.isError === true, text, ...(status !== undefined ? { status } : {}) };
}

/** A thrown call, by class and code. Anything that is not the server's JSON-RPC error is the connection's. */
export function fromError(error: unknown, afterMs: number): CallOutcome {
  if (error instanceof SdkError) {
    return error.code === SdkErrorCode.RequestTimeout
      ? { kind: 'timeout', afterMs }
      : { kind: 'failed', sdkCode: error.code, message: urlsShown(error.message) };
  }
  if (error instanceof ProtocolError) return { kind: 'error', code: error.code, message: error.message };
  return {
    kind: 'failed',
    sdkCode: error instanceof Error ? error.name : 'UNKNOWN',
    // The connection's failure, which may quote the target's URL (a redirect's): printed as the CLI prints one.
    message: urlsShown(error instanceof Error ? error.message : String(error)),
  };
}

/** What each of the kit's statuses says of the work; typed from its `Status`, so a status it adds must be placed here. */
const KIT_STATUS_DID_THE_WORK = {
  done: true,
  declined: false,
  cancelled: false,
  unsupported: false,
  invalid: false,
  rejected: false,
  timeout: false,
  pending: false,
} as const satisfies Record<Status, boolean>;

/** The statuses doctor knows: the kit's, and the words other servers use for not doing the work. */
const DID_THE_WORK: ReadonlyMap<string, boolean> = new Map([
  ...Object.entries(KIT_STATUS_DID_THE_WORK),
  ['failed', false],
  ['error', false],
  ['canceled', false],
]);

/**
 * Whether a call did the work. A status doctor knows says so. Any other status is a server's own
 * word (`ok`, `deployed`), for success as often as not — a server that deploys after a cancel and
 * says "deployed" did the work — so such a result is judged by `isError`, as one without a status
 * is; both verdicts are marked ambiguous, with the reason, so findings say so.
 */
export function succeeded(o: CallOutcome): { done: boolean; ambiguous: boolean; reason?: string } {
  if (o.kind !== 'result') return { done: false, ambiguous: false };
  const known = o.status === undefined ? undefined : DID_THE_WORK.get(o.status);
  if (known !== undefined) return { done: known, ambiguous: false };
  const reason =
    o.status === undefined
      ? 'the result has no structuredContent.status'
      : `its structuredContent.status "${o.status}" is none doctor knows`;
  return { done: !o.isError, ambiguous: true, reason };
}

/** True when the call got an answer from the server in time (a result or a JSON-RPC error). */
export function answered(o: CallOutcome): boolean {
  return o.kind === 'result' || o.kind === 'error';
}

/** What a call ended in, in a word or two: the status, `error CODE`, `timeout`, `failed`, or `skipped`. */
export function outcomeLabel(o: CallOutcome): string {
  switch (o.kind) {
    case 'result':
      return o.status ?? (o.isError ? 'error result' : 'result');
    case 'error':
      return `error ${o.code}`;
    case 'timeout':
      return 'timeout';
    case 'failed':
      return 'failed';
    case 'skipped':
      return 'skipped';
    default:
      return unreachable(o);
  }
}

function unreachable(o: never): never {
  throw new TypeError(`unknown outcome ${JSON.stringify(o)}`);
}
