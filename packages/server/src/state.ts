/**
 * The memory of a 2026-07-28 tool call between rounds. It travels inside the HMAC-sealed
 * `requestState`, so the server keeps nothing: every answer given so far, when each question was
 * asked, and a digest of the call it belongs to (state minted for one call is refused by another).
 */
import type { Adaptation } from '@elicitkit/form';
import type { AnswerAction } from './channel/channel.js';
import { nodeCrypto } from './node-builtins.js';

export interface StoredAnswer {
  action: AnswerAction;
  content?: Record<string, unknown>;
  /** Epoch ms the answer reached the server. */
  at: number;
}

export interface AskRecord {
  mode: 'form' | 'url';
  /** Epoch ms the question was first sent. */
  asked: number;
  timeoutMs: number;
  /** How the form was shaped for the client's quirks when first sent: its answer is read back by it. */
  adaptation?: Adaptation;
  answer?: StoredAnswer;
}

export interface CallState {
  v: 1;
  /** Digest of tool name + arguments. */
  call: string;
  /** The audit context id of this call. */
  cid: string;
  /** Digest of the identity that started the call: state is refused under any other. */
  who: string;
  asks: Record<string, AskRecord>;
}

export function isCallState(value: unknown): value is CallState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CallState>;
  return (
    v.v === 1 &&
    typeof v.call === 'string' &&
    typeof v.cid === 'string' &&
    typeof v.who === 'string' &&
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

/** SHA-256 of the tool name and its arguments, hex. */
export function callDigest(tool: string, args: unknown): Promise<string> {
  return sha256(`${tool}\0${canonical(args ?? {})}`);
}

/** Identity digests by method and identity: a handful of callers make every call, each digested once. */
const identities = new Map<string, string>();
const IDENTITIES_KEPT = 1024;

/** SHA-256 of who is calling (the identity never appears in clear in the state the client holds). */
export async function identityDigest(method: string, identity: string | undefined): Promise<string> {
  const text = `elicitkit.who\0${method}\0${identity ?? ''}`;
  const known = identities.get(text);
  if (known !== undefined) return known;
  const digest = await sha256(text);
  // Bounded by forgetting all at once: many identities only cost a digest each again.
  if (identities.size >= IDENTITIES_KEPT) identities.clear();
  identities.set(text, digest);
  return digest;
}

async function sha256(text: string): Promise<string> {
  if (nodeCrypto?.hash) return nodeCrypto.hash('sha256', text, 'hex');
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(text).digest('hex');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A deep copy of the records, cheaper than structuredClone for this plain JSON. */
export function copyAsks(asks: Record<string, AskRecord> | undefined): Record<string, AskRecord> {
  const out: Record<string, AskRecord> = {};
  for (const [key, record] of Object.entries(asks ?? {})) {
    out[key] = {
      ...record,
      ...(record.adaptation
        ? { adaptation: { quirk: record.adaptation.quirk, fields: [...record.adaptation.fields] } }
        : {}),
      ...(record.answer ? { answer: { ...record.answer } } : {}),
    };
  }
  return out;
}
