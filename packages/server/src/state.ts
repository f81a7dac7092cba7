/**
 * The memory of a 2026-07-28 tool call between rounds. It travels inside the HMAC-sealed
 * `requestState` (`call-state-codec.ts`), so the server keeps nothing: every answer given so far,
 * when each question was asked, and a digest of the call it belongs to (state minted for one call
 * is refused by another). Who it was sealed for is not in it: that is bound by the MAC.
 */
import type { ElicitAction } from '@elicitkit/form';
import type { Adaptation } from '@elicitkit/form/clients';
import type { Question } from './channel/channel.js';
import { sha256 } from './digest.js';

export interface StoredAnswer {
  action: ElicitAction;
  content?: Record<string, unknown>;
  /** Epoch ms the answer reached the server. */
  at: number;
}

export interface AskRecord {
  /** Epoch ms the question was first sent (or sent again, changed: `question`). */
  asked: number;
  timeoutMs: number;
  /**
   * Digest of the question as last sent (`questionDigest`): an answer counts only for the question
   * it answered. Absent in states sealed before it was kept (their answers are taken as they were).
   */
  question?: string;
  /** How the form was shaped for the client's quirks when first sent: its answer is read back by it. */
  adaptation?: Adaptation;
  answer?: StoredAnswer;
  /**
   * How many answers to this key did not count because its question had changed before they
   * arrived. Bounded (`maxQuestionChanges`): a question that changes on every look ends the call.
   */
  changes?: number;
}

export interface CallState {
  /**
   * What binds the state to its call: the call's text (`callText`, always with a NUL between the
   * tool's name and its arguments) when it is short, or its digest (`callDigest`, never a NUL).
   */
  call: string;
  /**
   * The call's text, when known without hashing: `call` itself when it is the text, or the text
   * a digest was taken of when this process sealed the state. The next round compares it. Never
   * on the wire but as `call`.
   */
  callText?: string;
  /** The audit context id of this call. */
  cid: string;
  asks: Record<string, AskRecord>;
  /**
   * Set on a state sealed before `v4`, whose `call` was taken of the arguments as the tool's input
   * schema made them; since `v4` it is taken of the arguments as sent (a schema's output may hold
   * values, a `URL` say, that no text tells apart). Never on the wire.
   */
  boundAsParsed?: true;
}

export function isCallState(value: unknown): value is CallState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CallState>;
  return typeof v.call === 'string' && typeof v.cid === 'string' && typeof v.asks === 'object' && v.asks !== null;
}

/**
 * Who a state is sealed for: the request's method, the caller's identity and the server it was
 * sealed on (its name, for a server `kit.createServer` built; none for one built by hand).
 */
export interface Caller {
  method: string;
  identity: string | undefined;
  server?: string | undefined;
}

/**
 * JSON with sorted keys, so that equal arguments always hash the same. Written out by hand, in
 * one string, without the intermediate arrays of `map` and `join` (a call's text is taken on
 * every 2026-07-28 round); the text is exactly what the `map`/`join` form made, so the digests
 * of states already sealed still match.
 */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    // A hole (never in JSON arguments) is written as `join` wrote it: nothing.
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (i in value ? canonical(value[i]) : '');
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`;
  }
  return `${out}}`;
}

/**
 * What a call digest is taken of: the tool's name and its arguments, canonical; undefined for
 * arguments nested deeper than the stack walks (under a key the tool's schema ignores, say), which
 * no call's answers can be bound to.
 */
export function callText(tool: string, args: unknown): string | undefined {
  try {
    return `${tool}\0${canonical(args ?? {})}`;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** SHA-256 of a `callText`, base64url (43 characters where hex took 64: it travels in every state). */
export function callDigest(text: string): string {
  return sha256(text, 'base64url');
}

/**
 * Digests of the questions asked with each frozen form schema, by message: a question is usually
 * asked with the same message again (its answer's round, other calls with the same arguments), so
 * it is hashed once. A frozen schema cannot change under its entries; a hand-made one that is not
 * frozen is hashed every time. Bounded by forgetting a schema's entries all at once.
 */
const formDigests = new WeakMap<object, Map<string, string>>();
const DIGESTS_PER_SCHEMA = 256;

/**
 * What a person is shown of a question — its message and its form, or its URL — as a short
 * digest (SHA-256, 96 bits, base64url): a later round compares it to tell whether an answer given
 * then was given to the question asked now. The state carrying it is sealed, so it only has to
 * tell questions apart, not resist forgery.
 */
export function questionDigest(question: Question): string {
  // What it is about, when the tool says so, follows what is shown (a question without it digests as before).
  const about = question.about === undefined ? '' : `\0about\0${question.about}`;
  if (question.kind === 'url') return shortDigest(`url\0${question.message}\0${question.url}${about}`);
  // The form the tool declared, not a client's shape of it: the same question for any client.
  const declared = question.declared ?? question.schema;
  if (!Object.isFrozen(declared) || about !== '')
    return shortDigest(`form\0${question.message}\0${JSON.stringify(declared)}${about}`);
  let known = formDigests.get(declared);
  const cached = known?.get(question.message);
  if (cached !== undefined) return cached;
  const digest = shortDigest(`form\0${question.message}\0${JSON.stringify(declared)}`);
  if (!known) {
    known = new Map();
    formDigests.set(declared, known);
  } else if (known.size >= DIGESTS_PER_SCHEMA) known.clear();
  known.set(question.message, digest);
  return digest;
}

function shortDigest(text: string): string {
  return callDigest(text).slice(0, 16);
}
