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
 * decrypted and checked against its schema — before anything is done with it; one that fails any
 * check is dropped, never thrown on.
 */
import { hkdfSync, randomFillSync } from 'node:crypto';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
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
const id = z.string().min(1).max(MAX_ID);
/**
 * The most bytes one frame carries: a request body (the SDK's bound), or one piece of a response,
 * which the holder cuts to this size (a tool's result may be longer).
 */
export const MAX_DATA_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE;
/** The longest base64 a frame carries: of at most MAX_DATA_BYTES. */
const MAX_BASE64 = Math.ceil(MAX_DATA_BYTES / 3) * 4 + 4;
const base64 = z
  .string()
  .max(MAX_BASE64)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);
const MAX_FAIL = 2_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const HEADER_VALUE = /^[^\r\n\0]{0,16384}$/;
/**
 * At most 256 headers `new Headers()` accepts: a token name, a value without line breaks or NUL.
 * One predicate for the list (a relayed request has a dozen): a schema per header and per field
 * cost the relay more than the rest of opening a message.
 */
const headers = z.custom<[string, string][]>(
  (list) =>
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
    ),
);

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
}

/** Whether `auth` is an identity of at most MAX_IDENTITY characters, with nothing else in it. */
function identityWithin(auth: unknown): boolean {
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) return false;
  const { clientId, scopes, expiresAt, ...rest } = auth as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof clientId !== 'string' || !Array.isArray(scopes)) return false;
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) return false;
  let size = clientId.length;
  for (const scope of scopes) {
    if (typeof scope !== 'string') return false;
    size += scope.length + 1;
    if (size > MAX_IDENTITY) return false;
  }
  return size <= MAX_IDENTITY;
}

/** One predicate for the identity, as for headers: its scopes may be many. */
const identity = z.custom<RelayedIdentity>(identityWithin);

/**
 * What a replica of an earlier version takes as an identity: at most 64 scopes of 256 characters,
 * a client id of 1,024. A holder whose directory entry does not say it takes more is sent no more:
 * a frame it would drop unseen would leave its request waiting.
 */
export function checkEarlierIdentity(auth: RelayedIdentity): void {
  if (auth.clientId.length > 1_024 || auth.scopes.length > 64 || auth.scopes.some((scope) => scope.length > 256))
    throw new FrameRefused(
      { t: 'request' },
      'its identity (the server instance holding this session is of an earlier version, which takes at most 64 scopes of 256 characters and a client id of 1,024)',
    );
}

/**
 * A response frame's place in its response (0 for the head), to a requester that asked for them
 * numbered (`seq`): sealed with the frame, so a message dropped, held back or sent twice on the
 * way is a gap the requester sees, not a stream that goes on without it.
 */
const index = z.number().int().nonnegative().optional();

const FRAME = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('request'),
    r: id,
    method: z.enum(['GET', 'POST', 'DELETE', 'HEAD']),
    url: z
      .string()
      .max(8_192)
      .regex(/^https?:\/\//),
    headers,
    body: base64.optional(),
    /** SHA-256 (hex) of the owner the requester checked against the session's directory entry. */
    owner: z.string().regex(/^[0-9a-f]{64}$/),
    /**
     * The requester takes several frames in one message (a list: `sealFrames`): set only for a
     * holder whose directory entry says it reads this field (one that does not refuses the frame).
     */
    batch: z.literal(true).optional(),
    /**
     * The requester reads messages authenticated by their encryption alone (`aead`): set only for
     * a holder whose directory entry says it reads this field and such messages.
     */
    aead: z.literal(true).optional(),
    /**
     * The requester takes the response numbered (`i` on each of its frames, from 0) and fails the
     * relay on a frame missing or out of order: set only for a holder whose directory entry says
     * it numbers them (`SessionEntry.sequenced`).
     */
    seq: z.literal(true).optional(),
    /** Who the requesting replica authenticated the request as; its credential stays there. */
    auth: identity.optional(),
    /**
     * The requester answers `ping`s on the direct connection this request came on, and pings the
     * holder on it (`direct.ts`): set only for a holder whose directory entry says it answers them
     * (`SessionEntry.pings`).
     */
    ping: z.literal(true).optional(),
  }),
  /**
   * The requester gave up on the relay: drop the request at the holder, and end the calls it
   * carried — the requester told its client they failed. With `resume`, its client only went away,
   * told nothing: only the stream ends, and a session that keeps its events lets the client pick
   * its calls up again with Last-Event-ID.
   */
  z.strictObject({ t: z.literal('abort'), r: id, resume: z.literal(true).optional() }),
  /** The response's status and headers; with `end`, the whole response (`body` if it has one). */
  z.strictObject({
    t: z.literal('head'),
    r: id,
    status: z.number().int().min(200).max(599),
    headers,
    end: z.boolean().optional(),
    body: base64.optional(),
    i: index,
  }),
  z.strictObject({ t: z.literal('data'), r: id, d: base64, i: index }),
  z.strictObject({ t: z.literal('end'), r: id, i: index }),
  /** The holder could not run the request or finish its response. */
  z.strictObject({ t: z.literal('fail'), r: id, message: z.string().max(MAX_FAIL), i: index }),
  /** The first message each way on a direct connection (`direct.ts`): who is at its other end. */
  z.strictObject({ t: z.literal('hello') }),
  /**
   * On a direct connection a relay uses (`direct.ts`), to a peer that said it answers: are you
   * there? `p` numbers it on its connection. Sent only to a replica whose directory entry says it
   * answers (`SessionEntry.pings`), or that asked on its request (`ping`): an earlier version
   * refuses the frame, and closes the connection.
   */
  z.strictObject({ t: z.literal('ping'), p: z.number().int().nonnegative() }),
  /** The answer to the `ping` numbered `p`, on the connection it came on. */
  z.strictObject({ t: z.literal('pong'), p: z.number().int().nonnegative() }),
]);

export type Frame = z.infer<typeof FRAME>;

/** At most this many frames in one message. */
export const MAX_BATCH = 64;
const FRAMES = z.array(FRAME).min(1).max(MAX_BATCH);

const ENVELOPE = z.strictObject({
  /** The replica that sealed it. */
  from: id,
  /** The replica it is for: a frame for one replica replayed on another's channel is refused. */
  to: id,
  /** Unique per frame: a frame seen once is not taken twice. */
  n: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  /** Epoch ms past which it is refused. */
  x: z.number().int().nonnegative(),
  /** The frame, encrypted: base64url of IV (12 bytes), ciphertext and GCM tag (16 bytes). */
  e: z.string().regex(/^[A-Za-z0-9_-]+$/),
});

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
  auth: `its identity (client id and scopes, at most ${MAX_IDENTITY.toLocaleString('en-US')} characters together)`,
  body: `its body (at most ${MAX_DATA_BYTES.toLocaleString('en-US')} bytes)`,
  status: 'its status (200–599)',
};

/** The field of a request or head the schema refuses first, as its refusal names it. */
function refusedField(frame: Frame): string | undefined {
  const field = FRAME.safeParse(frame).error?.issues[0]?.path[0];
  return field === undefined ? undefined : (BOUNDS[String(field)] ?? `its ${String(field)}`);
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
      return FRAME.safeParse(frame).success;
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
  const envelope = ENVELOPE.safeParse(parsed);
  if (!envelope.success) return { dropped: 'envelope' };
  const { from, to, n, x, e } = envelope.data;
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
    const batch = FRAMES.safeParse(f);
    return batch.success ? batch.data : undefined;
  }
  const frame = FRAME.safeParse(f);
  return frame.success ? [frame.data] : undefined;
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
