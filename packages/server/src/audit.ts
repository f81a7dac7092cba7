import type { AnyForm, ElicitAction, FieldModel, FormContent, FormSchema, Issue } from '@elicitkit/form';
import type { Adaptation } from '@elicitkit/form/clients';
import type { CloseReason, Question, RawAnswer } from './channel/channel.js';

/** Fields common to every audit record. */
interface AuditBase {
  /** One id per tool call, shared by every round and every record of that call. */
  contextId: string;
  tool: string;
  /** The ask key. */
  key: string;
  /** Who started the call, when the server knows (`identify`). */
  user?: string;
  /** Epoch milliseconds. */
  at: number;
}

/** The server asked (or would have asked, when `delivered` is false). */
export interface AuditRequest extends AuditBase {
  type: 'request';
  mode: 'form' | 'url';
  /**
   * The protocol version the call was negotiated on, as the client named it (it may be older than
   * every `Revision`, e.g. `2025-03-26`); the tool's `ctx.revision` is the `Revision` whose rules applied.
   */
  revision: string;
  message: string;
  /** Field names for forms; the URL's origin (never its path or query) for URL mode. */
  fields?: string[];
  origin?: string | undefined;
  delivered: boolean;
  /** Why it was not delivered. */
  reason?: string;
  /** The known client it was asked of (`KNOWN_CLIENTS` id), when the client named one. */
  client?: string;
  /** How the form was shaped for that client's quirks, when it was (e.g. booleans asked as Yes/No). */
  adaptation?: Adaptation;
}

/**
 * How the question ended. Content is redacted unless the kit says otherwise. A `cancel` with a
 * `reason` was not the person's: the client cancelled the call, or its connection went away.
 */
export interface AuditResponse extends AuditBase {
  type: 'response';
  action: ElicitAction | 'timeout' | 'error';
  content?: Record<string, unknown>;
  /** Milliseconds from asking to the end. */
  elapsedMs: number;
  /** Set when the question ended without the person: who or what ended it. */
  reason?: CloseReason;
  detail?: string;
}

/** What the server made of an accepted answer. Issue messages only, never the values. */
export interface AuditValidation extends AuditBase {
  type: 'validation';
  ok: boolean;
  issues: { field: string; code: string; message: string }[];
}

/** A rule finding raised at ask time, or a handler that broke the outcome contract in production. */
export interface AuditViolation extends AuditBase {
  type: 'violation';
  rule: string;
  message: string;
}

/** The three record kinds the field guidance asks to keep apart, plus rule violations. */
export type AuditEvent = AuditRequest | AuditResponse | AuditValidation | AuditViolation;

/** Receives audit events. Errors it throws are swallowed: auditing must never break a tool call. */
export type AuditSink = (event: AuditEvent) => void | Promise<void>;

/** `redacted` (default): choices and booleans kept, typed text and numbers masked; `full`: as answered. */
export type Redaction = 'redacted' | 'full' | ((content: FormContent, schema: FormSchema) => Record<string, unknown>);

/**
 * Masks what a person typed. Values picked from the server's own option lists and booleans say
 * nothing private and make the trail useful, so they stay; anything else in their place is masked.
 */
function redact(
  content: unknown,
  form: { schema: FormSchema; fields: readonly FieldModel[] } | undefined,
  mode: Redaction,
): Record<string, unknown> | undefined {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return undefined;
  // The record's own copy, and the redaction function's: a sink or a function that changes what it
  // is handed never changes the answer (still to be checked, and then the tool's value), nor does
  // the tool changing its value rewrite the record.
  const record = copied(content as Record<string, unknown>);
  if (record === undefined) return undefined;
  if (mode === 'full') return record;
  if (typeof mode === 'function' && form) return mode(record as FormContent, form.schema);
  const fields = new Map((form?.fields ?? []).map((f) => [f.name, f]));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    // Kept only when it is what the form offered: text typed where a choice was expected (an
    // invalid answer, a hostile client) is masked like any other typed text.
    if (offered(fields.get(key), value)) out[key] = value;
    else if (typeof value === 'string') out[key] = `[redacted: ${[...value].length} chars]`;
    else out[key] = `[redacted: ${value === null ? 'null' : typeof value}]`;
  }
  return out;
}

/**
 * A copy of an answer's content sharing nothing with it. Content comes as JSON (a client in the
 * same process may hand over anything: what the platform cannot copy is not recorded).
 */
function copied(content: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return structuredClone(content);
  } catch {
    return undefined;
  }
}

/** Whether `value` is one of the server's own options for `field`, or a boolean for a boolean field. */
function offered(field: FieldModel | undefined, value: unknown): boolean {
  switch (field?.kind) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'select':
      return field.options.some((o) => o.value === value);
    case 'multiselect':
      return Array.isArray(value) && value.every((v) => field.options.some((o) => o.value === v));
    default:
      return false;
  }
}

function issuesForAudit(issues: readonly Issue[], typed: readonly string[] = []): AuditValidation['issues'] {
  return issues.map((i) => ({
    field: i.path.length > 0 ? String(i.path[0]) : '',
    code: i.code,
    message: typed.length > 0 ? maskQuoted(i.message, typed) : i.message,
  }));
}

/** The text answers the default redaction masks (typed, not offered), longest first. */
function typedText(content: unknown, form: AnyForm | undefined): string[] {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return [];
  const fields = new Map((form?.fields ?? []).map((f) => [f.name, f]));
  const record = content as Record<string, unknown>;
  const typed: string[] = [];
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (typeof value === 'string' && value !== '' && !offered(fields.get(key), value)) typed.push(value);
  }
  return typed.sort((a, b) => b.length - a.length);
}

/** Quotes a message may put around a value. */
const QUOTES: readonly [string, string][] = [
  ['"', '"'],
  ["'", "'"],
  ['“', '”'],
  ['‘', '’'],
  ['«', '»'],
  ['「', '」'],
];

/** Runs of this many characters of a typed value, found in a message, are masked. */
const RUN = 6;

/**
 * Text compared the way a check may have reshaped it before quoting it: each run of white space
 * one space, each control, format or bidi character U+FFFD (as shorteners show them), letters in
 * lower case. `from[i]` and `to[i]` are the code points of the text that `units[i]` stands for.
 */
interface Folded {
  units: string[];
  from: number[];
  to: number[];
}

function fold(chars: readonly string[]): Folded {
  const folded: Folded = { units: [], from: [], to: [] };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const unit =
      /^\s$/u.test(c) && c !== '\uFEFF' ? ' ' : /^[\p{Cc}\p{Cf}\uFFFD]$/u.test(c) ? '\uFFFD' : c.toLowerCase();
    const last = folded.units.length - 1;
    if (unit === ' ' && folded.units[last] === ' ') folded.to[last] = i + 1;
    else {
      folded.units.push(unit);
      folded.from.push(i);
      folded.to.push(i + 1);
    }
  }
  return folded;
}

/** Where `needle` occurs in `hay` (indexes of its first unit). */
function occurrences(hay: readonly string[], needle: readonly string[]): number[] {
  const at: number[] = [];
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let j = 0;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) at.push(i);
  }
  return at;
}

/**
 * `message` with what it quotes of each typed value masked, as the response record masks the
 * value. A check may quote a value reshaped — cut short, its spaces folded, control characters
 * made visible, in another case — so the text is compared folded (`fold`), and every run of
 * `RUN` characters of a value found in the message is masked, wherever it is; a value shorter
 * than that is masked where it appears whole when it is three characters or more, and only
 * where quoted when shorter (one or two letters would mask parts of other words: "Ti" in
 * "Ticket"). A masked stretch is told by its length: `[redacted: 16 chars]`.
 */
function maskQuoted(message: string, typed: readonly string[]): string {
  const chars = [...message];
  const text = fold(chars);
  const masked = new Uint8Array(chars.length);
  const mask = (unit: number, units: number): void => {
    masked.fill(1, text.from[unit], text.to[unit + units - 1]);
  };
  for (const value of typed) {
    const units = fold([...value.trim()]).units;
    if (units.length >= RUN) {
      const runs = new Set<string>();
      for (let i = 0; i + RUN <= units.length; i++) runs.add(units.slice(i, i + RUN).join('\0'));
      for (let i = 0; i + RUN <= text.units.length; i++) {
        if (runs.has(text.units.slice(i, i + RUN).join('\0'))) mask(i, RUN);
      }
    } else if (units.length >= 3) {
      for (const at of occurrences(text.units, units)) mask(at, units.length);
    } else if (units.length > 0) {
      for (const [open, close] of QUOTES) {
        for (const at of occurrences(text.units, [open, ...units, close])) mask(at + 1, units.length);
      }
    }
  }
  let out = '';
  for (let i = 0; i < chars.length; ) {
    if (masked[i] === 0) out += chars[i++];
    else {
      const start = i;
      while (i < chars.length && masked[i] === 1) i++;
      out += `[redacted: ${i - start} chars]`;
    }
  }
  return out;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Unstamped = DistributiveOmit<AuditEvent, 'contextId' | 'tool' | 'at' | 'user'>;
/** A record while it is being filled in. */
type Draft<T> = { -readonly [K in keyof T]?: T[K] };

/** What one tool call's records share. */
export interface AuditCall {
  contextId: string;
  tool: string;
  user: string | undefined;
  /** The negotiated protocol version (`AuditRequest.revision`). */
  revision: string;
  /** The known client's id, if the client named one. */
  client: string | undefined;
  redaction: Redaction;
  now: () => number;
}

/**
 * Builds one tool call's audit records from what the call did, and hands them to the sink. With
 * no sink nothing is built at all.
 */
export class CallAudit {
  /** The trail of a call nobody listens to: builds nothing, shared by every such call. */
  static readonly silent = new CallAudit(undefined, {
    contextId: '',
    tool: '',
    user: undefined,
    revision: '',
    client: undefined,
    redaction: 'redacted',
    now: Date.now,
  });

  constructor(
    private readonly sink: ((event: AuditEvent) => void) | undefined,
    private readonly call: AuditCall,
  ) {}

  // Records are built as literals and filled in, never spread into copies: on Node 20, once
  // optimized, a copy spread from two objects and given more keys (`{ ...common, ...where,
  // delivered }`) gets a new hidden class every time, on a slow path — 11–14 µs of a deploy's
  // three records, against under 1 µs filled in. Same keys, in the same order (audit.test.ts).

  /** The question went out (or, with `notSent`, could not: the reason why). */
  request(key: string, question: Question, notSent?: string): void {
    if (!this.sink) return;
    const { client } = this.call;
    const event = {
      type: 'request',
      key,
      revision: this.call.revision,
      message: question.message,
    } as Draft<AuditRequest>;
    if (client !== undefined) event.client = client;
    if (question.kind === 'form') {
      event.mode = 'form';
      event.fields = Object.keys(question.schema.properties);
      if (question.adaptation) event.adaptation = question.adaptation;
    } else {
      event.mode = 'url';
      event.origin = originOf(question.url);
    }
    event.delivered = notSent === undefined;
    if (notSent !== undefined) event.reason = notSent;
    this.emit(event as Unstamped);
  }

  /**
   * How the question ended: the person's answer, a timeout, a client error, or the call going away.
   * `note` says what became of an answer that did not count (see `superseded`).
   */
  response(key: string, raw: RawAnswer, form: AnyForm | undefined, note?: string): void {
    if (!this.sink || raw.kind === 'unshowable' || !raw.fresh) return;
    if (raw.kind === 'unstable') {
      // The answer of this round that did not count, and why the question is not asked again.
      if (raw.setAside) this.response(key, raw.setAside, form, unstableNote(raw.changes));
      return;
    }
    const event = { type: 'response', key, elapsedMs: raw.elapsedMs } as Draft<AuditResponse>;
    if (raw.kind === 'answer') {
      event.action = raw.action;
      const content = raw.content ? redact(raw.content, form, this.call.redaction) : undefined;
      if (content) event.content = content;
      if (note) event.detail = note;
    } else if (raw.kind === 'timeout') event.action = 'timeout';
    else if (raw.kind === 'closed') {
      event.action = 'cancel';
      event.reason = raw.reason;
      event.detail = raw.detail;
    } else {
      event.action = 'error';
      event.detail = raw.detail;
    }
    this.emit(event as Unstamped);
  }

  /** An answer that arrived for the question as it was before a later round changed it: it did not count. */
  superseded(key: string, raw: RawAnswer, form: AnyForm | undefined): void {
    this.response(key, raw, form, SUPERSEDED);
  }

  /**
   * The call was cancelled by the client, or lost its connection, after `key` was answered and
   * before its effect started: the effect did not run.
   */
  abandoned(key: string, reason: CloseReason, at: 'effect' | 'page' = 'effect'): void {
    if (!this.sink) return;
    const detail = at === 'page' ? ABANDONED_PAGE : ABANDONED;
    this.emit({ type: 'response', key, action: 'cancel', elapsedMs: 0, reason, detail });
  }

  /**
   * What the checks made of an accepted answer. A check's message may quote what the person typed
   * ("Ticket <ticket> is not approved"): what the response record masks is masked there too.
   */
  validation(key: string, issues: readonly Issue[], content?: unknown, form?: AnyForm): void {
    if (!this.sink) return;
    const typed = issues.length > 0 && this.call.redaction !== 'full' ? typedText(content, form) : [];
    this.emit({ type: 'validation', key, ok: issues.length === 0, issues: issuesForAudit(issues, typed) });
  }

  violation(key: string, rule: string, message: string): void {
    if (this.sink) this.emit({ type: 'violation', key, rule, message });
  }

  /** Stamps the call's fields onto `event` itself (see above) and hands it to the sink. */
  private emit(event: Unstamped): void {
    const { contextId, tool, user, now } = this.call;
    const stamped = event as Draft<AuditEvent>;
    stamped.contextId = contextId;
    stamped.tool = tool;
    stamped.at = now();
    if (user !== undefined) stamped.user = user;
    this.sink?.(stamped as AuditEvent);
  }
}

const SUPERSEDED =
  'the question changed before this answer arrived (what it showed is no longer so); it did not count and the question was asked again';

const ABANDONED =
  'the call was cancelled after this answer arrived and before its effect started: the effect did not run';
const ABANDONED_PAGE =
  'the call was cancelled after the person agreed to open the page and before the flow there finished: it ended as cancelled';

function unstableNote(changes: number): string {
  return `the question changed before this answer arrived, ${changes} times in this call (what it shows changes on every look); it did not count, and the call ended instead of asking again (question_unstable)`;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
