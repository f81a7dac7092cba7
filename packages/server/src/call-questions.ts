import { type AnyForm, type Finding, type FormContent, type Issue, traitsOf } from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { formLintErrors, notAPage, urlLintErrors } from './ask-lint.js';
import type { AskOptions, AskUrlOptions } from './ask-options.js';
import { type AuditEvent, CallAudit, type Redaction } from './audit.js';
import type { Channel, CloseReason, Question, RawAnswer, Refusal } from './channel/channel.js';
import { isConnectionClosed } from './channel/push.js';
import { readBack, shapeForClient } from './client-quirks.js';
import { checkShape, leaving } from './commit.js';
import { duration, MAX_TIMER_MS } from './durations.js';
import { ElicitkitUsageError, FormLintError, isProduction } from './errors.js';
import { type Check, toIssues } from './issues.js';
import { type Locale, MESSAGES } from './messages.js';
import {
  ANSWER_UNUSED,
  type Cancelled,
  type Declined,
  type Invalid,
  type MissingArgument,
  missingOf,
  type Outcome,
  QUESTION_UNSTABLE,
  type TimedOut,
  type Unsupported,
  type UrlOutcome,
} from './outcome.js';
import type { Peer } from './peer.js';
import {
  type Completed,
  cancelledResult,
  declinedResult,
  doneSentence,
  invalidResult,
  pendingResult,
  type ResultContext,
  timeoutResult,
  unsupportedResult,
} from './results.js';
import { pollUntil } from './wait.js';

/** What every call of one tool is asked under: its forms and budget, the kit's timeouts, language and audit. */
export interface CallSettings {
  tool: string;
  forms: Readonly<Record<string, AnyForm>>;
  maxAsks: number;
  /** 2026-07-28: answers to one key set aside because its question changed, before the call ends. */
  maxQuestionChanges: number;
  timeoutMs: number;
  urlWaitMs: number;
  pollMs: number;
  locale: Locale;
  redaction: Redaction;
  now: () => number;
  /** Undefined when nobody listens: records are then not even built. */
  audit: ((event: AuditEvent) => void) | undefined;
}

const NONE_ASKED: readonly string[] = Object.freeze([]);

/** The audit note on a refusal that ended a call whose handler, run again, did not ask it again. */
const REFUSED_UNASKED = 'ended the call: run again, the tool went to its side effect without asking this again';
/** The audit note on a refusal that ended a call whose handler, run again, went to another question instead. */
const ANSWER_NOT_USED =
  'did not count: run again, the tool went to its side effect another way, without asking this again (answer_unused)';
const REFUSED_ASKING_ON = 'ended the call: run again, the tool asked another question instead of this one';

/**
 * What an unsupported question's outcome lists as missing: the ask's own `fallback`, else the
 * form's fields. A value, not a closure: it is made for every question and read for few.
 */
interface Fallback {
  given: MissingArgument[] | undefined;
  form: AnyForm | undefined;
}

/**
 * Where a call stopped asking: a decline or cancel of `key` (`person`: theirs, not a client that
 * went away), or its side effect having run.
 */
type Stop = { action: 'decline' | 'cancel'; key: string; person?: true } | { action: 'commit' };

/**
 * One tool call's questions: the budget, the stop rules (nothing after a decline, a cancel or the
 * call's side effect), capability handling, validation, and the audit trail. The channel decides
 * how a question travels; everything a handler can observe is decided here, the same on every
 * revision.
 */
export class CallQuestions {
  /** The keys asked so far, in order (a call asks one or two: a list, not a set). */
  private asked: readonly string[] = NONE_ASKED;
  private stopped: Stop | undefined;
  /** What the call did so far that the person saw take effect (made by the first such step). */
  private done: Completed[] | undefined;
  private readonly audit: CallAudit;

  constructor(
    private readonly settings: CallSettings,
    private readonly channel: Channel,
    private readonly peer: Peer,
    readonly contextId: string,
    user: string | undefined,
    private readonly signal: AbortSignal,
    /**
     * The HTTP request, if any: its signal (read only when needed — on the Node listener it is
     * made on first read) is aborted with `signal` when the request went away.
     */
    private readonly request?: { readonly signal: AbortSignal },
  ) {
    const { tool, redaction, now } = settings;
    // Nobody listens: no records are built, and every call shares one silent trail.
    this.audit = settings.audit
      ? new CallAudit(settings.audit, {
          contextId,
          tool,
          user,
          revision: peer.protocolVersion,
          client: peer.client?.id,
          redaction,
          now,
        })
      : CallAudit.silent;
  }

  /**
   * The side effect is about to run: no question may follow it (the question would be asked, and the
   * effect tried, again on a retry). After a cancel it must not run at all: outside production that
   * throws; in production the violation is recorded and the `cancelled` result is what to return.
   * `abandoned`: the call itself was cancelled or its connection lost before the effect started.
   * `blind`: a `commit`, whose effect runs whatever it finds (an `attempt` measures what it did and
   * keeps it only within what its tool allows unasked, or asks).
   */
  committing(abandoned?: CloseReason, blind?: 'blind'): CallToolResult | undefined {
    const stop = this.stopped;
    if (stop?.action === 'commit')
      throw new ElicitkitUsageError('COMMIT_TWICE', `${this.settings.tool} committed twice in one call.`);
    if (stop?.action === 'cancel') {
      const message = `${this.settings.tool} tried to commit its side effect after the user cancelled "${stop.key}". A cancel must end the call with outcome.result().`;
      if (!isProduction()) throw new ElicitkitUsageError('WORK_AFTER_CANCEL', message);
      this.audit.violation(stop.key, 'EK05', message);
      return cancelledResult(this.resultContext(stop.key, undefined));
    }
    // A 2026-07-28 round run again took another way to the side effect than the question the
    // person refused (what it found had changed): their no still holds, nothing runs.
    const refused = this.refusedUnasked(REFUSED_UNASKED);
    if (refused) return refused;
    // Nor does a commit run on a yes to a question this run no longer asked on its way here. (An
    // `attempt` may: what it keeps unasked is what its tool keeps unasked on a first run, measured.)
    const unused = blind ? this.channel.acceptedUnasked?.() : undefined;
    if (unused) {
      const { key, answer } = unused;
      const ctx = this.resultContext(key, undefined);
      const issues: Issue[] = [
        { path: [], code: ANSWER_UNUSED, message: MESSAGES[ctx.locale].answerUnused(key, doneSentence(ctx)) },
      ];
      this.audit.response(key, answer, undefined, ANSWER_NOT_USED);
      this.audit.validation(key, issues);
      return invalidResult(ctx, issues);
    }
    if (abandoned) {
      // The client cancelled the call (or went away) after the last answer, before the effect
      // started: nobody is waiting for it any more, so it does not start. A 2026-07-28 retry of
      // the same round still acts, once.
      const key = this.asked.at(-1) ?? '';
      this.stopped = { action: 'cancel', key };
      if (key !== '') this.audit.abandoned(key, abandoned);
      return cancelledResult(this.resultContext(key, undefined));
    }
    this.stopped = { action: 'commit' };
    return undefined;
  }

  /**
   * 2026-07-28: the person's no this round holds, where the round would end otherwise — asking a
   * question (one asked beside the refused one, or another the tool went to once what it found
   * had changed), or failing over the refusal (a `ElicitkitUsageError`: asked after it). The call
   * then ends with that no, recorded as its result as a no the tool returns is (execute.ts): never
   * a question after it, and no earlier round sent again with another answer acts. Undefined when
   * the round holds none (a refusal the tool took and went on from without asking ends no call).
   */
  standingNo(): CallToolResult | undefined {
    const stop = this.stopped;
    if (stop) {
      if (stop.action === 'commit' || stop.person !== true) return undefined;
      const ctx = this.resultContext(stop.key, undefined);
      return stop.action === 'cancel' ? cancelledResult(ctx) : declinedResult(ctx);
    }
    return this.refusedUnasked(REFUSED_ASKING_ON);
  }

  /** Ends the call with an in-time refusal of a question this round did not ask, if there is one. */
  private refusedUnasked(note: string): CallToolResult | undefined {
    const refused = this.channel.refusedUnasked?.();
    if (!refused) return undefined;
    const { key, action, answer } = refused;
    this.stopped = { action, key, person: true };
    this.audit.response(key, answer, undefined, note);
    const ctx = this.resultContext(key, undefined);
    return action === 'cancel' ? cancelledResult(ctx) : declinedResult(ctx);
  }

  /**
   * The side effect ran but its result could not be recorded (the claim store failed, or JSON could
   * not hold the result whole): on the
   * audit trail as a violation of at most once's bookkeeping (`UNRECORDED`), beside the call's
   * last question, so whoever reads the trail knows a replay cannot be answered from the record.
   */
  unrecorded(message: string): void {
    this.audit.violation(this.asked.at(-1) ?? '', 'UNRECORDED', message);
  }

  /**
   * What this call did so far: pages the person finished, the tool's effect. Read when an
   * outcome's result is built, so a result never says nothing was done beside a step that was.
   */
  get completed(): readonly Completed[] {
    return this.done ?? NOTHING_DONE;
  }

  /** The tool's side effect ran (`commit`, or an `attempt` that kept it). */
  tookEffect(): void {
    if (!this.done?.some((s) => s.kind === 'effect')) this.step({ kind: 'effect' });
  }

  /** An attempted side effect undid itself (`ctx.attempt` withheld it): nothing ran, so questions may follow. */
  reopen(): void {
    if (this.stopped?.action === 'commit') this.stopped = undefined;
  }

  async ask<T extends FormContent>(key: string, options: AskOptions<T> & { form?: AnyForm }): Promise<Outcome<T>> {
    const { forms } = this.settings;
    // Own keys only: ask('toString') must not find Object.prototype's.
    const form = options.form ?? (Object.hasOwn(forms, key) ? forms[key] : undefined);
    if (!form) {
      throw new ElicitkitUsageError(
        'UNKNOWN_FORM',
        `${this.settings.tool}: ask("${key}") has no form. Declare it under forms, or pass { form }.`,
      );
    }
    const timeoutMs = askTimeout(`ask("${key}")`, options.timeoutMs, this.settings.timeoutMs);
    this.enter(key);
    this.raise(key, formLintErrors(form));
    const ctx = this.resultContext(key, form);
    const fallback: Fallback = { given: options.fallback, form };
    const held = this.channel.refusal?.(key);
    if (held) return this.refuseHeld(held, ctx, form);
    const reasons = MESSAGES[this.settings.locale].reasons;
    // The question as declared is made only for the audit trail of one that cannot be asked.
    // An answer given while the client could show the form stands, whatever it declares now.
    if (!this.peer.can.form && !this.channel.answered?.(key))
      return this.unsupported(key, declaredQuestion(options.message, form), ctx, fallback, reasons['no-form']);
    const shaped = shapeForClient(form, this.peer.client, this.settings.locale, options.adaptToClient !== false);
    if (!shaped.ok) {
      const why = `${reasons['text-only']} ${shaped.detail}`;
      return this.unsupported(key, declaredQuestion(options.message, form), ctx, fallback, why);
    }
    const asked: Question = {
      kind: 'form',
      message: options.message,
      schema: shaped.schema,
      ...(options.about === undefined ? {} : { about: options.about }),
    };
    if (shaped.adaptation) {
      asked.adaptation = shaped.adaptation;
      asked.declared = form.schema;
    }
    const sent = await this.channel.send(key, asked, timeoutMs, (superseded) => {
      if (superseded) this.audit.superseded(key, superseded, form);
      this.audit.request(key, asked);
    });
    if (sent.kind === 'unshowable')
      return this.unsupported(key, asked, ctx, fallback, `${reasons['old-revision']} ${sent.detail}`);
    // Read back into the form's own types (a Yes/No choice to a boolean) before anything looks at it.
    const { raw, issues } = readBack(sent, form, this.peer.revision);
    this.audit.response(key, raw, form);
    if (raw.kind !== 'answer') return this.ended(key, raw, ctx, fallback, timeoutMs);
    if (raw.action === 'decline' || raw.action === 'cancel') return this.refuse(key, raw.action, ctx);
    return this.accept(key, raw, form, options.check, ctx, issues);
  }

  async askUrl(key: string, options: AskUrlOptions): Promise<UrlOutcome> {
    const timeoutMs = askTimeout(`askUrl("${key}")`, options.timeoutMs, this.settings.timeoutMs);
    const waitMs = duration(`askUrl("${key}") waitMs`, options.waitMs, this.settings.urlWaitMs, 0, MAX_TIMER_MS, false);
    // No web page at all (javascript:, file:, not absolute): never sent, in production too.
    const why = notAPage(options.url);
    if (why !== undefined) {
      throw new ElicitkitUsageError(
        'URL_NOT_A_PAGE',
        `${this.settings.tool}: askUrl("${key}") ${why}. URL mode sends the person to a web page (https, or http on loopback); nothing was asked.`,
      );
    }
    this.enter(key);
    this.raise(key, urlLintErrors(options.message, options.url));
    const host = hostOf(options.url);
    const ctx = new CallResultContext(this, key, undefined, host);
    const fallback: Fallback = { given: options.fallback, form: undefined };
    const held = this.channel.refusal?.(key);
    if (held) {
      if (await this.finishedAnyway(key, host, options.isComplete)) {
        this.audit.response(held.key, held.answer, undefined);
        return { action: 'accept', value: true };
      }
      return this.refuseHeld(held, ctx, undefined);
    }
    const question: Question = {
      kind: 'url',
      message: options.message,
      url: options.url,
      ...(options.about === undefined ? {} : { about: options.about }),
    };
    const { reasons } = MESSAGES[this.settings.locale];
    const noUrl = reasons['no-url'];
    if (!this.peer.can.url && !this.channel.answered?.(key)) {
      // A revision without modes (2025-06-18) has no URL mode, whatever its client declared.
      if (!traitsOf(this.peer.revision).modes)
        return this.unsupported(key, question, ctx, fallback, reasons['no-url-revision'], 'no-url-revision');
      return this.unsupported(key, question, ctx, fallback, noUrl, 'no-url-capability');
    }
    const raw = await this.channel.send(key, question, timeoutMs, (superseded) => {
      if (superseded) this.audit.superseded(key, superseded, undefined);
      this.audit.request(key, question);
    });
    if (raw.kind === 'unshowable') return this.unsupported(key, question, ctx, fallback, `${noUrl}: ${raw.detail}`);
    this.audit.response(key, raw, undefined);
    // Every way the question ends but consent: a link that never held still was put to the person
    // too, each time, and they may have finished the flow on one of them (2026-07-28).
    const ends = raw.kind !== 'answer' || raw.action !== 'accept';
    if (ends && (await this.finishedAnyway(key, host, options.isComplete))) return { action: 'accept', value: true };
    if (raw.kind !== 'answer') return this.ended(key, raw, ctx, fallback, timeoutMs);
    if (raw.action !== 'accept') return this.refuse(key, raw.action, ctx);
    // Accept in URL mode is consent, not completion: wait for the flow to finish.
    const { pollMs, now } = this.settings;
    if (
      await pollUntil(() => checked(options.isComplete, POLL), {
        waitMs,
        pollMs,
        now,
        signal: this.signal,
      })
    ) {
      this.pageDone(key, host);
      await this.channel.complete(key);
      return { action: 'accept', value: true };
    }
    // The client cancelled the call while the page was open: nobody waits for the flow any more,
    // so it ends as cancelled (the tool withdraws what the page would do), never as pending. A
    // request that only went away (or whose connection closed) stays pending: a flaky network's
    // retry finds the page done.
    if (this.signal.aborted && this.request?.signal.aborted !== true && !isConnectionClosed(this.signal.reason)) {
      // Finished on the page as the cancel came: that happened, and the call says so.
      if (await this.finishedAnyway(key, host, options.isComplete)) return { action: 'accept', value: true };
      this.stopped = { action: 'cancel', key };
      this.audit.abandoned(key, 'client-cancelled', 'page');
      return { action: 'cancel', result: () => cancelledResult(ctx) };
    }
    return { action: 'pending', result: () => pendingResult(ctx) };
  }

  /** The cancel guard (EK05): after a cancel, only a `cancelled` result may leave the tool. */
  /**
   * Whether the call ends with the person's refusal: they declined or cancelled (not a client gone
   * away), and `result` — what `finish` made of the tool's — says so (a tool may go on after a
   * decline to what it can do without the answer).
   */
  endsRefused(result: CallToolResult): boolean {
    const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
    const stop = this.stopped;
    return (
      stop !== undefined &&
      stop.action !== 'commit' &&
      stop.person === true &&
      (status === 'declined' || status === 'cancelled')
    );
  }

  finish(result: CallToolResult): CallToolResult {
    const stop = this.stopped;
    const { tool, locale } = this.settings;
    checkShape(result, tool);
    if (stop?.action !== 'cancel') {
      const sent = leaving(result, tool, locale, stop?.action === 'commit');
      if (sent !== result) this.unrecorded(String((sent.structuredContent as { message?: unknown }).message));
      return sent;
    }
    const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
    if (status === 'cancelled') return leaving(result, tool, locale, false);
    const message = `${this.settings.tool} returned "${String(status ?? (result.isError ? 'an error' : 'a result'))}" after the user cancelled "${stop.key}". A cancel must end the call with outcome.result().`;
    if (!isProduction()) throw new ElicitkitUsageError('WORK_AFTER_CANCEL', message);
    this.audit.violation(stop.key, 'EK05', message);
    return cancelledResult(this.resultContext(stop.key, undefined));
  }

  private enter(key: string): void {
    const { tool, maxAsks } = this.settings;
    const stop = this.stopped;
    if (stop?.action === 'commit') {
      throw new ElicitkitUsageError(
        'ASK_AFTER_COMMIT',
        `${tool} asked "${key}" after committing its side effect. Ask everything first; commit last.`,
      );
    }
    // A question asked in an earlier round, asked again on the way the handler retraces each
    // round, was asked before the person's no (beside the refused one), not after it.
    if (stop && !(stop.person === true && this.channel.askedEarlier?.(key) === true)) {
      throw new ElicitkitUsageError(
        stop.action === 'cancel' ? 'ASK_AFTER_CANCEL' : 'ASK_AFTER_DECLINE',
        stop.action === 'cancel'
          ? `${tool} asked "${key}" after the user cancelled "${stop.key}". Cancel ends the whole operation: return the outcome's result().`
          : `${tool} asked "${key}" after the user declined "${stop.key}". Decline means stop asking: return the outcome's result().`,
      );
    }
    if (this.asked.includes(key)) {
      throw new ElicitkitUsageError(
        'DUPLICATE_ASK',
        `${tool} asked "${key}" twice in one call. Each question has its own key.`,
      );
    }
    this.asked = [...this.asked, key];
    if (this.asked.length > maxAsks) {
      throw new ElicitkitUsageError(
        'ASK_BUDGET',
        `${tool} asked ${this.asked.length} questions in one call; the budget is ${maxAsks}. Ask for every missing value in one form, or raise maxAsks for this tool.`,
      );
    }
  }

  private raise(key: string, errors: readonly Finding[]): void {
    if (errors.length === 0) return;
    if (!isProduction()) throw new FormLintError(`${this.settings.tool} ask("${key}")`, errors);
    for (const f of errors) this.audit.violation(key, f.rule, f.message);
  }

  /**
   * A question that ended without an answer that counts: timeout, a client error, the call going
   * away, or a question that kept changing before its answers arrived.
   */
  private ended(
    key: string,
    raw: Exclude<RawAnswer, { kind: 'answer' | 'unshowable' }>,
    ctx: ResultContext,
    fallback: Fallback,
    timeoutMs: number,
  ): TimedOut | Unsupported | Cancelled | Invalid {
    switch (raw.kind) {
      case 'unstable': {
        const message = MESSAGES[ctx.locale].questionUnstable(key, raw.changes, doneSentence(ctx));
        const issues: Issue[] = [{ path: [], code: QUESTION_UNSTABLE, message }];
        this.audit.validation(key, issues);
        this.audit.violation(key, 'EK18', message);
        return { action: 'invalid', issues, result: () => invalidResult(ctx, issues) };
      }
      case 'timeout':
        return { action: 'timeout', result: () => timeoutResult(ctx, timeoutMs) };
      case 'failed':
        return this.unsupportedOutcome(ctx, fallback, `${MESSAGES[ctx.locale].reasons['client-error']} ${raw.detail}`);
      case 'closed':
        this.stopped = { action: 'cancel', key };
        return { action: 'cancel', result: () => cancelledResult(ctx) };
    }
  }

  /** A refusal the channel holds for `key` (`Channel.refusal`): it ends the ask as it came. */
  /**
   * Whether a page question's flow finished although the question was not accepted: URL mode shows
   * the person the link, so they may finish there and then decline, cancel or leave the dialog.
   * What they did on the page happened; the call must not report that nothing was done. It is the
   * last question (`final`): the tool closes the flow in the same step, so no submit lands after
   * it. A check that throws counts as not finished (`checked`).
   */
  private async finishedAnyway(key: string, host: string, isComplete: AskUrlOptions['isComplete']): Promise<boolean> {
    if (!(await checked(isComplete, FINAL))) return false;
    this.pageDone(key, host);
    await this.channel.complete(key);
    return true;
  }

  /** The person finished the flow of page question `key`: what its page does has happened. */
  private pageDone(key: string, host: string): void {
    if (!this.done?.some((s) => s.kind === 'page' && s.question === key))
      this.step({ kind: 'page', question: key, host });
  }

  private step(done: Completed): void {
    if (this.done) this.done.push(done);
    else this.done = [done];
  }

  private refuseHeld(held: Refusal, ctx: ResultContext, form: AnyForm | undefined): Declined | Cancelled {
    this.audit.response(held.key, held.answer, form);
    return this.refuse(held.key, held.action, ctx);
  }

  private refuse(key: string, action: 'decline' | 'cancel', ctx: ResultContext): Declined | Cancelled {
    this.stopped = { action, key, person: true };
    return action === 'decline'
      ? { action: 'decline', result: () => declinedResult(ctx) }
      : { action: 'cancel', result: () => cancelledResult(ctx) };
  }

  /** Synchronous unless the ask has a business check: an async step is a microtask turn or two per answer. */
  private accept<T extends FormContent>(
    key: string,
    raw: Extract<RawAnswer, { kind: 'answer' }>,
    form: AnyForm,
    check: Check<T> | undefined,
    ctx: ResultContext,
    /** Issues found reading the answer back from a client's adapted shape. */
    shapeIssues: Issue[],
  ): Outcome<T> | Promise<Outcome<T>> {
    const content = raw.content;
    if (content === undefined || Object.keys(content).length === 0) {
      // Accept without values is a broken client, never a success (EK04).
      const empty: Issue = { path: [], code: 'empty', message: 'The form was accepted without any values.' };
      return this.judged<T>(key, raw, form, ctx, [empty], undefined);
    }
    if (shapeIssues.length > 0) return this.judged<T>(key, raw, form, ctx, shapeIssues, undefined);
    // The revision asked on: a default the client was never shown (2025-06-18) is not filled in.
    const parsed = form.parse(content, { revision: this.peer.revision });
    if (!parsed.ok) return this.judged<T>(key, raw, form, ctx, parsed.issues, undefined);
    const value = parsed.value as T;
    if (!check) return this.judged(key, raw, form, ctx, [], value);
    return Promise.resolve(check(value)).then((found) => this.judged(key, raw, form, ctx, toIssues(found), value));
  }

  private judged<T extends FormContent>(
    key: string,
    raw: Extract<RawAnswer, { kind: 'answer' }>,
    form: AnyForm,
    ctx: ResultContext,
    issues: Issue[],
    value: T | undefined,
  ): Outcome<T> {
    if (raw.fresh) this.audit.validation(key, issues, raw.content, form);
    if (issues.length > 0 || value === undefined)
      return { action: 'invalid', issues, result: () => invalidResult(ctx, issues) };
    return { action: 'accept', value };
  }

  private unsupported(
    key: string,
    question: Question,
    ctx: ResultContext,
    fallback: Fallback,
    why: string,
    auditReason = why,
  ): Unsupported {
    this.audit.request(key, question, auditReason);
    return this.unsupportedOutcome(ctx, fallback, why);
  }

  private unsupportedOutcome(ctx: ResultContext, fallback: Fallback, why: string): Unsupported {
    // What the tool said to ask for instead, else every field of the form.
    const missing = fallback.given ?? (fallback.form ? missingOf(fallback.form) : []);
    return { action: 'unsupported', missing, reason: why, result: () => unsupportedResult(ctx, missing, why) };
  }

  private resultContext(key: string, form: AnyForm | undefined): ResultContext {
    return new CallResultContext(this, key, form, undefined);
  }

  /** For the result contexts of this call's questions. */
  get tool(): string {
    return this.settings.tool;
  }

  get locale(): Locale {
    return this.settings.locale;
  }
}

const NOTHING_DONE: readonly Completed[] = Object.freeze([]);

/**
 * A question's result context: a form's fields, or a page by its `host`. A class, not a literal
 * with getters: one is made per ask and most are never read (an accepted answer builds no ready
 * result), and a literal's accessors are defined anew each time. What the call did is read from
 * the call when a result is built: a step that took effect after the outcome (a decline of an
 * optional question, then the commit) is told too.
 */
class CallResultContext implements ResultContext {
  constructor(
    private readonly call: CallQuestions,
    readonly question: string,
    private readonly form: AnyForm | undefined,
    private readonly host: string | undefined,
  ) {}

  get tool(): string {
    return this.call.tool;
  }

  get locale(): Locale {
    return this.call.locale;
  }

  /** Labels are only needed when a result is built. */
  get subject(): ResultContext['subject'] {
    if (this.host !== undefined) return { kind: 'page', host: this.host };
    return { kind: 'fields', labels: this.form ? this.form.fields.map((f) => f.label) : [this.question] };
  }

  get completed(): readonly Completed[] {
    return this.call.completed;
  }
}

/** An ask's own `timeoutMs`, as the kit's is checked (its timer, the SDK's on 2025, holds no more). */
function askTimeout(asking: string, given: number | undefined, kits: number): number {
  return duration(`${asking} timeoutMs`, given, kits, 1, MAX_TIMER_MS, false);
}

const POLL = Object.freeze({ final: false });
const FINAL = Object.freeze({ final: true });

/**
 * Whether the tool says its page's flow finished. A check that throws (the page's store
 * unreachable a moment) or answers anything but `true` tells nothing: not finished, on every
 * check — a poll's error never ends the call while the person is on the page.
 */
async function checked(isComplete: AskUrlOptions['isComplete'], check: { final: boolean }): Promise<boolean> {
  try {
    return (await isComplete(check)) === true;
  } catch {
    return false;
  }
}

function declaredQuestion(message: string, form: AnyForm): Question {
  return { kind: 'form', message, schema: form.schema };
}

/** How a URL-mode decline names the page: its host (the person saw the full URL before declining). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
