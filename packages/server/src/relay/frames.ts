/**
 * What replicas say to each other on their Redis channels while relaying a 2025 session's
 * request: the request itself, then the response as a head, body chunks and an end, or an abort
 * either way. JSON, with bodies in base64 (an SSE chunk may split a UTF-8 character). A message
 * holds one frame, or — to a requester that said it takes them (`batch` on its request) — the
 * frames a holder wrote for it at once, in order (a relayed answer's response, the tool's result
 * and the end of the call's stream): sealed and opened once for all of them. To a requester that
 * asked for it (`seq`), each frame of a response carries its place in it (`i`): a message dropped
 * or held back on the way — each is sealed on its own, so only their order and count are not —
 * ends the relay with an error instead of a stream with a hole in it.
 *
 * Anyone who can PUBLISH on the Redis could say anything, and anyone who can SUBSCRIBE reads
 * everything, so every frame travels sealed: encrypted and authenticated (AES-256-GCM, the sender,
 * receiver, nonce and expiry as associated data) so requests, answers and results cannot be read
 * there and no field of the envelope or the frame can be made or changed without the key. A
 * message is `<mac>.<envelope>` — the envelope also signed (HMAC-SHA256), as every replica reads
 * it — or the envelope alone (`aead`: the GCM tag is its one check, which already covers every
 * field), sent only to a replica that said it reads that (its directory entry, or `aead` on its
 * request). A message is opened — the signature if it has one, then the envelope, then the frame
 * decrypted and checked field by field against its shape (`SHAPES`) — before anything is done with it; one that fails any
 * check is dropped, never thrown on.
 */
import { hkdfSync, randomFillSync } from 'node:crypto';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import { decrypt, encrypt, hmacSha256, type Mac, sameMac } from '../digest.js';

/** How long a sealed frame may take to arrive (clocks of replicas may differ by less). */
export const FRAME_TTL_MS = 30_000;
/**
 * How long past its expiry a message is still told as late (`open`): longer than any pause a
 * relay is worth waiting out (a client gives up on its call well before), older is dropped unopened.
 */
export const LATE_MS = 20 * FRAME_TTL_MS;
/** At most this many late messages remembered as told (`open`). */
const MAX_TOLD = 10_000;

const MAX_ID = 128;
/**
 * The most bytes one frame carries: a request body (the SDK's bound), or one piece of a response,
 * which the holder cuts to this size (a tool's result may be longer).
 */
export const MAX_DATA_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE;
/** The longest base64 a frame carries: of at most MAX_DATA_BYTES. */
const MAX_BASE64 = Math.ceil(MAX_DATA_BYTES / 3) * 4 + 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_FAIL = 2_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const HEADER_VALUE = /^[^\r\n\0]{0,16384}$/;
const URL_START = /^https?:\/\//;
const OWNER = /^[0-9a-f]{64}$/;
const NONCE = /^[A-Za-z0-9_-]{22}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The most characters the identity a relayed request carries may hold: its client id and its
 * scopes together, each scope counted one more. A bound on the whole, not on how many scopes: an
 * identity provider's token may carry dozens, and a session is usable through every replica or
 * none. Past it (an identity the size of a few pages of text), the request is refused by name.
 */
export const MAX_IDENTITY = 65_536;

/** An identity as a relayed request carries it: who, with what scopes, until when. */
export interface RelayedIdentity {
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  /** `AuthInfo.extra`, as JSON (an app's `identify` may name the person by it). */
  extra?: Record<string, unknown>;
  /** `AuthInfo.resource`, as its URL's text. */
  resource?: string;
}

/** A header list as a frame carries it: `[name, value]` pairs. */
type HeaderList = [string, string][];

/**
 * What replicas send each other (`Frame`). Every field is checked on arrival against `SHAPES`
 * below, which says the same field by field: no frame is acted on with a field of another type, out
 * of its bounds, or one more than its kind has.
 */
export type Frame =
  | {
      t: 'request';
      /** The relay's id, drawn by the requester. */
      r: string;
      method: 'GET' | 'POST' | 'DELETE' | 'HEAD';
      url: string;
      headers: HeaderList;
      /** The body, base64. */
      body?: string;
      /** SHA-256 (hex) of the owner the requester checked against the session's directory entry. */
      owner: string;
      /**
       * The requester takes several frames in one message (a list: `sealFrames`): set only for a
       * holder whose directory entry says it reads this field (one that does not refuses the frame).
       */
      batch?: true;
      /**
       * The requester reads messages authenticated by their encryption alone (`aead`): set only for
       * a holder whose directory entry says it reads this field and such messages.
       */
      aead?: true;
      /**
       * The requester takes the response numbered (`i` on each of its frames, from 0) and fails the
       * relay on a frame missing or out of order: set only for a holder whose directory entry says
       * it numbers them (`SessionEntry.sequenced`).
       */
      seq?: true;
      /** Who the requesting replica authenticated the request as; its credential stays there. */
      auth?: RelayedIdentity;
      /**
       * The requester answers `ping`s on the direct connection this request came on, and pings the
       * holder on it (`direct.ts`): set only for a holder whose directory entry says it answers them
       * (`SessionEntry.pings`).
       */
      ping?: true;
    }
  /**
   * The requester gave up on the relay: drop the request at the holder, and end the calls it
   * carried — the requester told its client they failed. With `resume`, its client only went away,
   * told nothing: only the stream ends, and a session that keeps its events lets the client pick
   * its calls up again with Last-Event-ID. With `ack` (sent only to a holder whose directory entry
   * says it answers them: `SessionEntry.acks`), the holder answers `dropped` once it has.
   */
  | { t: 'abort'; r: string; resume?: true; ack?: true }
  /**
   * The holder's answer to an `abort` with `ack`, the way the abort came: relay `r` is dropped
   * here, its calls ended (or it never ran here, and will not: a request still on its way is not
   * run when it comes). Its requester tells its client the relay failed only then.
   */
  | { t: 'dropped'; r: string }
  /**
   * The response's status and headers; with `end`, the whole response (`body` if it has one).
   * `i`, on this and the other response frames, is the frame's place in its response (0 for the
   * head), to a requester that asked for them numbered (`seq`): sealed with the frame, so a
   * message dropped, held back or sent twice on the way is a gap the requester sees, not a stream
   * that goes on without it.
   */
  | { t: 'head'; r: string; status: number; headers: HeaderList; end?: boolean; body?: string; i?: number }
  | { t: 'data'; r: string; d: string; i?: number }
  | { t: 'end'; r: string; i?: number }
  /** The holder could not run the request or finish its response. */
  | { t: 'fail'; r: string; message: string; i?: number }
  /** The first message each way on a direct connection (`direct.ts`): who is at its other end. */
  | { t: 'hello' }
  /**
   * On a direct connection a relay uses (`direct.ts`), to a peer that said it answers: are you
   * there? `p` numbers it on its connection. Sent only to a replica whose directory entry says it
   * answers (`SessionEntry.pings`), or that asked on its request (`ping`): an earlier version
   * refuses the frame, and closes the connection.
   */
  | { t: 'ping'; p: number }
  /** The answer to the `ping` numbered `p`, on the connection it came on. */
  | { t: 'pong'; p: number };

/** Whether a field's value is what the field may hold. */
type Check = (value: unknown) => boolean;
/** A kind of frame (or the envelope): its fields in order, each with its check and whether it must be there. */
type Shape = readonly (readonly [field: string, check: Check, required: boolean])[];

const text =
  (min: number, max: number, form?: RegExp): Check =>
  (v) =>
    typeof v === 'string' && v.length >= min && v.length <= max && (form === undefined || form.test(v));
const whole =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
const only =
  (...values: unknown[]): Check =>
  (v) =>
    values.includes(v);
const id = text(1, MAX_ID);
const base64 = text(0, MAX_BASE64, BASE64);
const index = whole(0);

/**
 * At most 256 headers `new Headers()` accepts: a token name, a value without line breaks or NUL.
 * One loop for the list (a relayed request has a dozen).
 */
const headers: Check = (list) =>
  Array.isArray(list) &&
  list.length <= 256 &&
  list.every(
    (h) =>
      Array.isArray(h) &&
      h.length === 2 &&
      typeof h[0] === 'string' &&
      typeof h[1] === 'string' &&
      HEADER_NAME.test(h[0]) &&
      HEADER_VALUE.test(h[1]),
  );

/** Whether `auth` is an identity of at most MAX_IDENTITY characters, with nothing else in it. */
function identityWithin(auth: unknown): boolean {
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) return false;
  const { clientId, scopes, expiresAt, extra, resource, ...rest } = auth as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof clientId !== 'string' || !Array.isArray(scopes)) return false;
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) return false;
  if (resource !== undefined && (typeof resource !== 'string' || resource.length > 8_192 || !URL.canParse(resource)))
    return false;
  if (extra !== undefined && (typeof extra !== 'object' || extra === null || Array.isArray(extra))) return false;
  // What it adds is counted too (it was measured as JSON when the frame was opened).
  let size = clientId.length + (extra === undefined ? 0 : JSON.stringify(extra).length) + (resource?.length ?? 0);
  if (size > MAX_IDENTITY) return false;
  for (const scope of scopes) {
    if (typeof scope !== 'string') return false;
    size += scope.length + 1;
    if (size > MAX_IDENTITY) return false;
  }
  return size <= MAX_IDENTITY;
}

/** Each kind of frame, field by field, as `Frame` says it. */
const SHAPES: Record<Frame['t'], Shape> = {
  request: [
    ['r', id, true],
    ['method', only('GET', 'POST', 'DELETE', 'HEAD'), true],
    ['url', text(0, 8_192, URL_START), true],
    ['headers', headers, true],
    ['body', base64, false],
    ['owner', text(64, 64, OWNER), true],
    ['batch', only(true), false],
    ['aead', only(true), false],
    ['seq', only(true), false],
    ['auth', identityWithin, false],
    ['ping', only(true), false],
  ],
  abort: [
    ['r', id, true],
    ['resume', only(true), false],
    ['ack', only(true), false],
  ],
  dropped: [['r', id, true]],
  head: [
    ['r', id, true],
    ['status', whole(200, 599), true],
    ['headers', headers, true],
    ['end', (v) => typeof v === 'boolean', false],
    ['body', base64, false],
    ['i', index, false],
  ],
  data: [
    ['r', id, true],
    ['d', base64, true],
    ['i', index, false],
  ],
  end: [
    ['r', id, true],
    ['i', index, false],
  ],
  fail: [
    ['r', id, true],
    ['message', text(0, MAX_FAIL), true],
    ['i', index, false],
  ],
  hello: [],
  ping: [['p', index, true]],
  pong: [['p', index, true]],
};

/** Why `value` is no object of `shape`: the first field refused, `''` for no field in particular; undefined when it is one. */
function misfit(value: unknown, shape: Shape, alsoKnown = 0): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const fields = value as Record<string, unknown>;
  let present = alsoKnown;
  for (const [field, check, required] of shape) {
    if (!Object.hasOwn(fields, field)) {
      if (required) return field;
      continue;
    }
    present++;
    const v = fields[field];
    if (v === undefined ? required : !check(v)) return field;
  }
  // A field no kind of it has.
  return Object.keys(fields).length === present ? undefined : '';
}

/** Why `value` is no frame (as `misfit`: the first field refused, `t` when it is no kind of frame); undefined when it is one. */
function frameMisfit(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const t = (value as { t?: unknown }).t;
  if (typeof t !== 'string' || !Object.hasOwn(SHAPES, t)) return 't';
  return misfit(value, SHAPES[t as Frame['t']], 1);
}

const isFrame = (value: unknown): value is Frame => frameMisfit(value) === undefined;

/**
 * What a replica of an earlier version takes as an identity: at most 64 scopes of 256 characters,
 * a client id of 1,024. A holder whose directory entry does not say it takes more is sent no more:
 * a frame it would drop unseen would leave its request waiting.
 */
export function checkEarlierIdentity(auth: RelayedIdentity): void {
  if (auth.extra !== undefined || auth.resource !== undefined)
    throw new FrameRefused(
      { t: 'request' },
      "its identity (the server instance holding this session is of an earlier version, which would lose the identity's extra and resource: whom an app's identify names)",
    );
  if (auth.clientId.length > 1_024 || auth.scopes.length > 64 || auth.scopes.some((scope) => scope.length > 256))
    throw new FrameRefused(
      { t: 'request' },
      'its identity (the server instance holding this session is of an earlier version, which takes at most 64 scopes of 256 characters and a client id of 1,024)',
    );
}

/** At most this many frames in one message. */
export const MAX_BATCH = 64;

/** What a message holds around its frames. */
const ENVELOPE: Shape = [
  /** The replica that sealed it. */
  ['from', id, true],
  /** The replica it is for: a frame for one replica replayed on another's channel is refused. */
  ['to', id, true],
  /** Unique per frame: a frame seen once is not taken twice. */
  ['n', text(22, 22, NONCE), true],
  /** Epoch ms past which it is refused. */
  ['x', whole(0), true],
  /** The frame, encrypted: base64url of IV (12 bytes), ciphertext and GCM tag (16 bytes). */
  ['e', text(1, Number.POSITIVE_INFINITY, BASE64URL), true],
];
interface Envelope {
  from: string;
  to: string;
  n: string;
  x: number;
  e: string;
}

/** Why a message was dropped. */
export type DropReason = 'signature' | 'envelope' | 'schema' | 'misdirected' | 'expired' | 'replayed';

/** The keys frames are sealed with — one to sign, one to encrypt — derived from the replicas' shared secret (never the secret itself). */
export interface FrameKeys {
  mac: Mac;
  cipher: Uint8Array;
}

export function frameKey(secret: string | Uint8Array): FrameKeys {
  const derive = (info: string) => new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), info, 32));
  return {
    mac: hmacSha256(derive('elicitkit relay frames v1')),
    cipher: derive('elicitkit relay frames v1 encryption'),
  };
}

/** What the encryption binds the frame to besides itself: who sent it, to whom, which one, until when. */
const aad = (from: string, to: string, n: string, x: number) => Buffer.from(`${from}\n${to}\n${n}\n${x}`);

const MAC_LENGTH = 43; // base64url of 32 bytes

/**
 * A frame this replica was about to send that the receiver would drop (its schema refuses it),
 * saying which of its fields is out of bounds when one is (`what`): the client is told what to fix.
 */
export class FrameRefused extends Error {
  readonly code = 'FRAME_REFUSED';
  constructor(frame: { t: string }, what?: string) {
    super(`a relay ${frame.t} frame out of bounds${what ? `: ${what}` : ''}`);
  }
}

/** What each field of a request or head that comes from outside may be, as its refusal says it. */
const BOUNDS: Record<string, string> = {
  method: 'its method (GET, POST, DELETE or HEAD)',
  url: 'its URL (at most 8,192 characters)',
  headers:
    'its headers (at most 256, each a token name of 1–256 characters and a value of at most 16,384 without line breaks)',
  auth: `its identity (client id, scopes, extra and resource, at most ${MAX_IDENTITY.toLocaleString('en-US')} characters together)`,
  body: `its body (at most ${MAX_DATA_BYTES.toLocaleString('en-US')} bytes)`,
  status: 'its status (200–599)',
};

/** The field of a request or head the schema refuses first, as its refusal names it. */
function refusedField(frame: Frame): string | undefined {
  const field = frameMisfit(frame);
  return field ? (BOUNDS[field] ?? `its ${field}`) : undefined;
}

/**
 * Throws `FrameRefused` for a frame the receiver's schema refuses: checked before it is queued, so
 * a frame is never sent only to be dropped and waited on. A frame carrying what came from outside —
 * a request's method, URL and headers, a response's status and headers — is held to the schema
 * itself; the others are made whole by this replica (ids it drew or was sent, base64 it encoded, a
 * reason it cut to length), and only their lengths are checked against the schema's bounds.
 */
export function checkFrame(frame: Frame): void {
  if (madeWhole(frame)) return;
  throw new FrameRefused(frame, frame.t === 'request' || frame.t === 'head' ? refusedField(frame) : undefined);
}

/** Whether the receiver takes `frame` (see `checkFrame`). */
function madeWhole(frame: Frame): boolean {
  switch (frame.t) {
    case 'request':
    case 'head':
      return isFrame(frame);
    case 'hello':
      return true;
    case 'ping':
    case 'pong':
      return Number.isSafeInteger(frame.p) && frame.p >= 0;
    default: {
      if (frame.r.length < 1 || frame.r.length > MAX_ID) return false;
      if (frame.t === 'data') return frame.d.length <= MAX_BASE64;
      return frame.t !== 'fail' || frame.message.length <= MAX_FAIL;
    }
  }
}

/** `frame` from `from` to `to`, checked (`checkFrame`) and sealed: `<mac>.<json>`, or `<json>` for `aead`. */
export function seal(keys: FrameKeys, from: string, to: string, frame: Frame, now = Date.now(), aead = false): string {
  checkFrame(frame);
  return sealFrames(keys, from, to, [frame], now, aead);
}

/**
 * Frames from `from` to `to`, each already checked (`checkFrame`), sealed in one message: one
 * frame alone as every replica reads it, several (at most `MAX_BATCH`) as a list, only for a
 * requester that asked for them so (`batch`). `aead`: without the signature, for a receiver that
 * reads such messages.
 */
export function sealFrames(
  keys: FrameKeys,
  from: string,
  to: string,
  frames: readonly Frame[],
  now = Date.now(),
  aead = false,
): string {
  if (frames.length === 0 || frames.length > MAX_BATCH) throw new RangeError(`1 to ${MAX_BATCH} frames in a message`);
  const envelope = { from, to, n: nonce(), x: now + FRAME_TTL_MS };
  return sealUnchecked(keys, envelope, frames.length === 1 ? frames[0] : frames, aead);
}

/**
 * 16 random bytes as base64url: a frame's nonce. Taken from a buffer of the platform's random
 * bytes filled a few hundred at a time, not one call per frame (as Node keeps its random UUIDs).
 */
function nonce(): string {
  if (randomAt + 16 > randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  randomAt += 16;
  return randomPool.toString('base64url', randomAt - 16, randomAt);
}
const randomPool = Buffer.alloc(16 * 256);
let randomAt = randomPool.length;

/**
 * Seals any value as a frame, unchecked: what a replica holding the key (or a bug in one) could
 * send. `seal` is the way to send; this is how the tests make what `open` must survive.
 */
export function sealUnchecked(
  keys: FrameKeys,
  envelope: { from: string; to: string; n: string; x: number },
  frame: unknown,
  aead = false,
): string {
  const { from, to, n, x } = envelope;
  const e = encrypt(keys.cipher, JSON.stringify(frame), aad(from, to, n, x));
  const json = JSON.stringify({ from, to, n, x, e });
  return aead ? json : `${keys.mac(json)}.${json}`;
}

/** The frames of a message and who sent them. */
export interface Opened {
  from: string;
  frames: Frame[];
}

/**
 * Opens a sealed message meant for `own`: its frames (one, or the several a holder batched) and
 * who sent them, or why it is dropped. `seen` holds the nonces taken (and when they expire), so a
 * replayed message is refused. One that opens but came after its expiry is dropped all the same,
 * its frames told beside (`late`): they are never acted on as if on time, but the relay they
 * belong to has lost them (its holder or requester paused, or cut off with its connection kept,
 * for longer than a frame lives), and must end instead of waiting on them. With `told` (the
 * nonces of late messages told already), each is told once, and only up to `LATE_MS` past its
 * expiry: a copy sent again, or one older than that, is dropped unopened, so replaying captured
 * messages costs a replica no more than sending it junk.
 */
export function open(
  keys: FrameKeys,
  own: string,
  message: string,
  seen: Map<string, number>,
  now = Date.now(),
  told?: Map<string, number>,
): Opened | { dropped: DropReason; late?: Opened } {
  // An envelope alone is authenticated by its encryption (below); any other message is signed.
  const aead = message.startsWith('{');
  let json = message;
  if (!aead) {
    if (message.length < MAC_LENGTH + 2 || message[MAC_LENGTH] !== '.') return { dropped: 'signature' };
    json = message.slice(MAC_LENGTH + 1);
    if (!sameMac(Buffer.from(message.slice(0, MAC_LENGTH), 'base64url'), keys.mac.bytes(json)))
      return { dropped: 'signature' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { dropped: 'envelope' };
  }
  if (misfit(parsed, ENVELOPE) !== undefined) return { dropped: 'envelope' };
  const { from, to, n, x, e } = parsed as Envelope;
  if (to !== own) return { dropped: 'misdirected' };
  if (x > now + 2 * FRAME_TTL_MS) return { dropped: 'expired' };
  const late = x < now;
  if (late ? x < now - LATE_MS || told?.has(n) : seen.has(n)) return { dropped: late ? 'expired' : 'replayed' };
  const plain = decrypt(keys.cipher, e, aad(from, to, n, x));
  // Unsigned, the tag is the check that it was sealed with this key: failing it is the signature's failure.
  if (plain === undefined) return { dropped: late ? 'expired' : aead ? 'signature' : 'envelope' };
  const frames = parseFrames(plain);
  if (late) {
    if (!frames) return { dropped: 'expired' };
    if (told) {
      remember(told, n, x + LATE_MS, now);
      // Bounded whatever the traffic: the oldest go first.
      if (told.size > MAX_TOLD) told.delete(told.keys().next().value as string);
    }
    return { dropped: 'expired', late: { from, frames } };
  }
  if (!frames) return { dropped: 'schema' };
  remember(seen, n, x, now);
  return { from, frames };
}

/** The frame, or the batch of frames, `plain` holds; undefined when it holds anything else. */
function parseFrames(plain: string): Frame[] | undefined {
  let f: unknown;
  try {
    f = JSON.parse(plain);
  } catch {
    return undefined;
  }
  if (Array.isArray(f)) {
    return f.length >= 1 && f.length <= MAX_BATCH && f.every(isFrame) ? f : undefined;
  }
  return isFrame(f) ? [f] : undefined;
}

/**
 * Keeps `n` until it expires (a frame past `x` is refused anyway). Expired nonces are swept from
 * the oldest as new ones come, stopping at the first still live: a Map iterates in insertion
 * order and frames arrive roughly in the order of their expiry, so each nonce is visited about
 * once. One that arrived out of order is kept until those before it expire (at most
 * `2 * FRAME_TTL_MS` later: `open` refuses an expiry further out), never dropped early.
 */
function remember(seen: Map<string, number>, n: string, x: number, now: number): void {
  for (const [k, until] of seen) {
    if (until >= now) break;
    seen.delete(k);
  }
  seen.set(n, x);
}

export function headerList(headers: Headers): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, key) => {
    list.push([key, value]);
  });
  return list;
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}
