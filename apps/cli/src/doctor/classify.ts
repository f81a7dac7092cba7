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

/**
 * Whether a call did the work. With a `structuredContent.status` it is `done` and nothing else;
 * without one only `isError` can tell, and the verdict is marked ambiguous so findings say so.
 */
export function succeeded(o: CallOutcome): { done: boolean; ambiguous: boolean } {
  if (o.kind !== 'result') return { done: false, ambiguous: false };
  if (o.status !== undefined) return { done: o.status === 'done', ambiguous: false };
  return { done: !o.isError, ambiguous: true };
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
