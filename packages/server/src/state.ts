/**
 * The memory of a 2026-07-28 tool call between rounds. It travels inside the HMAC-sealed
 * `requestState`, so the server keeps nothing: every answer given so far, when each question was
 * asked, and a digest of the call it belongs to (state minted for one call is refused by another).
 */

export interface StoredAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  /** Epoch ms the answer reached the server. */
  at: number;
}

export interface AskRecord {
  mode: 'form' | 'url';
  /** Epoch ms the question was first sent. */
  asked: number;
  timeoutMs: number;
  answer?: StoredAnswer;
}

export interface CallState {
  v: 1;
  /** Digest of tool name + arguments. */
  call: string;
  /** The audit context id of this call. */
  cid: string;
  asks: Record<string, AskRecord>;
}

export function isCallState(value: unknown): value is CallState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CallState>;
  return (
    v.v === 1 &&
    typeof v.call === 'string' &&
    typeof v.cid === 'string' &&
    typeof v.asks === 'object' &&
    v.asks !== null
  );
}

/** JSON with sorted keys, so that equal arguments always hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of the tool name and its arguments, hex, via WebCrypto (any runtime). */
export async function callDigest(tool: string, args: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(`${tool}\0${canonical(args ?? {})}`);
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
