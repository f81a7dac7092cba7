/**
 * Seals a call's state into the `requestState` a 2026-07-28 client echoes back, and opens it again.
 *
 * `v5.<body>.<tag>`: `body` is a JSON array holding only what the next round needs — what binds the
 * call (the canonical text of its tool and its arguments as sent, when that is short, else its
 * digest: `execute.ts`), the audit context id, the expiry and each question (key, when asked, its
 * timeout, the answer and the form's adaptation once there are some, the digest of what it showed
 * last, and how many answers did not count because it had changed). It is the JSON text itself,
 * not base64 of it: smaller even with its quotes escaped on the wire, and no encoding pass either
 * way. `tag` is HMAC-SHA256 over `v5.<body>`, the request's method, the name of the server that
 * sealed it (as JSON; nothing for a server built by hand, which knows none) and the caller's
 * identity, truncated to 128 bits (RFC 2104 §5 allows truncating to half the hash). So the
 * bindings cost no bytes, a state opened under another identity or on a server of another name
 * fails like a forged one, and one MAC is computed per seal and at most one per open.
 *
 * `v4` states (the same, with no server in the MAC) sealed by the version before are still opened
 * wherever their identity and call match, so that a rolling upgrade keeps open questions. `v3`
 * states (the same body, the call bound by its arguments as the tool's schema made them) and `v2`
 * states (that, always by its digest; the tag over `v2.<body>`) sealed by earlier versions are
 * still opened, marked `boundAsParsed`, so that a restart or a rolling upgrade with the same key
 * keeps open questions. `v1` states (before 2026-12-01) are not: they were in the SDK codec's
 * format, which says nothing of who sealed it, so a hand-written tool keeping its state with the
 * SDK's codec under the same key could mint one, from what a client sent, that opened as the
 * kit's — answers nobody gave. A `v1.` text is another tool's (`formatOf`: `foreign`).
 */
import { ELICIT_ACTIONS } from '@elicitkit/form';
import { hmacSha256, sameMac } from './digest.js';
import type { AskRecord, Caller, CallState } from './state.js';

/** Seals and opens call states. */
export interface CallStateCodec {
  /**
   * `asOf` (ms, default now): when the round that seals it began. The state expires `ttlSeconds`
   * after that, to the whole second before it, so it never outlives a claim taken after the round
   * began (`execute.ts`).
   */
  seal(state: CallState, caller: Caller, asOf?: number): string;
  /** Throws (`malformed`, `mac`, `expired`, `bind`) on anything but an intact, unexpired state sealed for `caller`. */
  open(text: string, caller: Caller): CallState;
  /**
   * Whose format `text` is in: `mine` (`v2.` to `v5.`: only this codec seals them) or
   * `foreign` (anything else, the SDK codec's `v1.` included: a hand-written tool's).
   */
  formatOf(text: string): 'mine' | 'foreign';
}

export interface CallStateCodecOptions {
  key: Uint8Array | string;
  ttlSeconds: number;
  now: () => number;
}

/**
 * What this version seals. `v4.` states (the same, bound to no server) still open as they were;
 * `v3.` states (the same body, the call taken of the arguments as the schema made them) and `v2.`
 * states (that, always by its digest) still open, marked `boundAsParsed`.
 */
const PREFIX = 'v5.';
const V4 = 'v4.';
const V3 = 'v3.';
const V2 = 'v2.';
/** 128 bits of the MAC, as base64url (22 characters carry 132 bits; the last 4 are the 17th byte's). */
const TAG_LENGTH = 22;
/**
 * States this codec sealed, kept for their next round (the oldest forgotten first). A round that
 * comes back while its state is among the last few sealed (a client answering at once, a retry)
 * skips the MAC and the parse; one that a person answers minutes later is verified in full, as on
 * any other replica. Few, not a thousand: each is about a kilobyte (its text, its wire array), so
 * a thousand held that much per pending call between rounds, which the raw SDK does not hold at
 * all; these 64 hold at most about 70 KB in all (measured paired on the 2026-07-28 in-process line:
 * no slower than 1,024; none at all costs that line about two points).
 */
const SEALED_KEPT = 64;

type WireAnswer = 0 | [action: number, at: number] | [action: number, at: number, content: Record<string, unknown>];
type WireAsk =
  | [key: string, asked: number, timeoutMs: number]
  | [key: string, asked: number, timeoutMs: number, answer: WireAnswer]
  | [key: string, asked: number, timeoutMs: number, answer: WireAnswer, quirk: string | 0, fields: string[] | 0]
  | [
      key: string,
      asked: number,
      timeoutMs: number,
      answer: WireAnswer,
      quirk: string | 0,
      fields: string[] | 0,
      question: string,
      changes?: number,
    ];

/**
 * @example
 * const codec = createCallStateCodec({ key: secret, ttlSeconds: 3600, now: Date.now });
 * const text = codec.seal(state, { method: 'tools/call', identity: 'alice' });
 * codec.open(text, { method: 'tools/call', identity: 'alice' }); // a copy of state
 */
export function createCallStateCodec(options: CallStateCodecOptions): CallStateCodec {
  const key = typeof options.key === 'string' ? new TextEncoder().encode(options.key) : Uint8Array.from(options.key);
  const mac = hmacSha256(key);
  // The version is part of the MAC's input: a state cannot be relabelled as another version. The
  // server's name goes in as JSON (a quoted string, so it ends where it ends) or as nothing for
  // none, before the identity (which starts with \0 or \x01): no name and identity run together
  // into another's. States before `v5` had no server in the MAC.
  const tagOf = (prefix: string, body: string, caller: Caller) =>
    mac(
      prefix === PREFIX
        ? `${prefix}${body}\0${caller.method}${caller.server === undefined ? '' : JSON.stringify(caller.server)}${whom(caller.identity)}`
        : `${prefix}${body}\0${caller.method}${whom(caller.identity)}`,
    );

  // Sealed states by their exact text, with whom they were sealed for and the call's canonical
  // text: the same text coming back from the same caller is what was signed, so its next round
  // (usually in this process) skips the MAC, and the call is compared by its text, not hashed
  // again — never the expiry. Nor the JSON parse where the state holds only primitives (no
  // answer's content, no adaptation): its wire array is kept and read again, which makes new
  // objects as a parse would (each open returns its own objects, which the round then changes).
  const sealed = new Map<string, Kept>();
  // Their texts in sealing order, a ring: the slot about to be reused holds the oldest.
  const order: (string | undefined)[] = new Array(SEALED_KEPT);
  let next = 0;

  const finish = (body: string, wire: unknown[], tag: string, state: CallState, caller: Caller): string => {
    const text = `${PREFIX}${body}.${tag.slice(0, TAG_LENGTH)}`;
    const oldest = order[next];
    if (oldest !== undefined) sealed.delete(oldest);
    order[next] = text;
    next = (next + 1) % SEALED_KEPT;
    sealed.set(text, {
      method: caller.method,
      identity: caller.identity,
      server: caller.server,
      callText: state.callText,
      wire: primitivesOnly(state) ? wire : undefined,
    });
    return text;
  };

  const check = (tag: string, given: string): void => {
    if (!sameMac(tag.slice(0, TAG_LENGTH), given)) throw new Error('mac');
  };

  return {
    formatOf: (text) =>
      text.startsWith(PREFIX) || text.startsWith(V4) || text.startsWith(V3) || text.startsWith(V2) ? 'mine' : 'foreign',
    seal(state, caller, asOf = options.now()) {
      const wire = toWire(state, Math.floor(asOf / 1000) + options.ttlSeconds);
      const body = JSON.stringify(wire);
      return finish(body, wire, tagOf(PREFIX, body, caller), state, caller);
    },
    open(text, caller) {
      const dot = text.lastIndexOf('.');
      // `v2.` to `v5.` are as long.
      const body = text.slice(PREFIX.length, dot);
      const known = sealed.get(text);
      if (known !== undefined) {
        // The same text from someone else is what a forged tag would be.
        if (known.method !== caller.method || known.identity !== caller.identity || known.server !== caller.server)
          throw new Error('mac');
        const state = known.wire ? fromWireValue(known.wire, options.now()) : fromWire(body, options.now());
        if (known.callText !== undefined) state.callText = known.callText;
        return state;
      }
      const prefix = text.startsWith(PREFIX)
        ? PREFIX
        : text.startsWith(V4)
          ? V4
          : text.startsWith(V3)
            ? V3
            : text.startsWith(V2)
              ? V2
              : undefined;
      if (prefix === undefined || dot !== text.length - TAG_LENGTH - 1 || dot <= PREFIX.length)
        throw new Error('malformed');
      const given = text.slice(dot + 1);
      check(tagOf(prefix, body, caller), given);
      const state = fromWire(body, options.now());
      return prefix === PREFIX || prefix === V4 ? state : asParsed(state);
    },
  };
}

/**
 * Who a state is sealed for, as the MAC takes it: one text for each identity, and another for
 * none. No identity and an identity of plain text (the usual kind) are taken as they always were
 * (`\0` and `\0<identity>`), so states sealed before keep opening; the empty identity (`\x01`),
 * which was taken as none, and one that UTF-8 cannot carry as it is (a lone surrogate, which it
 * would turn into U+FFFD, as it would another), written as JSON (`\x01"…"`), are taken apart.
 */
function whom(identity: string | undefined): string {
  if (identity === undefined) return '\0';
  if (identity === '') return '\x01';
  return LONE_SURROGATE.test(identity) ? `\x01${JSON.stringify(identity)}` : `\0${identity}`;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Marks a state sealed before `v4`: its call was bound by the arguments as the schema made them. */
function asParsed(state: CallState): CallState {
  state.boundAsParsed = true;
  return state;
}

function toWire(state: CallState, exp: number): unknown[] {
  const out: unknown[] = [state.call, state.cid, exp];
  for (const key of Object.keys(state.asks)) {
    const r = state.asks[key] as AskRecord;
    const ask: unknown[] = [key, r.asked, r.timeoutMs];
    const a = r.answer;
    if (a || r.adaptation || r.question !== undefined) {
      ask.push(a ? [ELICIT_ACTIONS.indexOf(a.action), a.at, ...(a.content ? [a.content] : [])] : 0);
      if (r.adaptation) ask.push(r.adaptation.quirk, r.adaptation.fields);
      else if (r.question !== undefined) ask.push(0, 0);
      // Last, so that a version before it reads the rest as it always did.
      if (r.question !== undefined) {
        ask.push(r.question);
        // After it, likewise: how many answers did not count because the question changed.
        if (r.changes) ask.push(r.changes);
      }
    }
    out.push(ask);
  }
  return out;
}

/** A state this codec sealed, kept for its next round (`createCallStateCodec`). */
interface Kept {
  method: string;
  /** Undefined for none: never the same as `''`. */
  identity: string | undefined;
  /** The server's name; undefined for none (a server built by hand). */
  server: string | undefined;
  callText: string | undefined;
  /** The wire array it was sealed from, where that holds only primitives and arrays made for it. */
  wire: unknown[] | undefined;
}

/**
 * Whether a state's wire array (`toWire`) reads back as its JSON would: it shares no object with
 * the state (no answer's content, no adaptation) and holds no number JSON would not keep.
 */
function primitivesOnly(state: CallState): boolean {
  for (const key of Object.keys(state.asks)) {
    const r = state.asks[key] as AskRecord;
    if (r.adaptation || r.answer?.content || !Number.isFinite(r.asked) || !Number.isFinite(r.timeoutMs)) return false;
    if (r.answer && !Number.isFinite(r.answer.at)) return false;
  }
  return true;
}

/** Reads a body this key sealed (its MAC or the sealed map vouches for it); the shape is still checked. */
function fromWire(json: string, now: number): CallState {
  let wire: unknown;
  try {
    wire = JSON.parse(json);
  } catch {
    throw new Error('malformed');
  }
  return fromWireValue(wire, now);
}

/**
 * A state from its wire array, in new objects (the array's own are never handed out). `now` in ms:
 * the expiry (whole seconds) is compared to the millisecond, so a state is dead from its second
 * on, not a second later.
 */
function fromWireValue(wire: unknown, now: number): CallState {
  if (!Array.isArray(wire) || typeof wire[0] !== 'string' || typeof wire[1] !== 'string') throw new Error('malformed');
  const exp = wire[2];
  if (typeof exp !== 'number' || exp * 1000 < now) throw new Error('expired');
  const asks: Record<string, AskRecord> = {};
  for (let i = 3; i < wire.length; i++) {
    const ask: unknown = wire[i];
    if (!Array.isArray(ask)) throw new Error('malformed');
    const [key, asked, timeoutMs, answer, quirk, fields, question, changes] = ask as WireAsk;
    if (typeof key !== 'string' || typeof asked !== 'number' || typeof timeoutMs !== 'number')
      throw new Error('malformed');
    const record: AskRecord = { asked, timeoutMs };
    if (Array.isArray(answer)) {
      const action = ELICIT_ACTIONS[answer[0]];
      if (action === undefined || typeof answer[1] !== 'number') throw new Error('malformed');
      record.answer = { action, at: answer[1], ...(answer[2] ? { content: answer[2] } : {}) };
    }
    if ((quirk === 'booleanAsChoice' || quirk === 'textOnly') && Array.isArray(fields))
      record.adaptation = { quirk, fields };
    if (typeof question === 'string') record.question = question;
    if (typeof changes === 'number' && changes > 0) record.changes = changes;
    // Own keys only, whatever the key is called (`__proto__` included).
    Object.defineProperty(asks, key, { value: record, enumerable: true, writable: true, configurable: true });
  }
  const call = wire[0];
  // A NUL is in every call text and in no digest: the state carries the call's text itself.
  return call.includes('\0') ? { call, callText: call, cid: wire[1], asks } : { call, cid: wire[1], asks };
}
