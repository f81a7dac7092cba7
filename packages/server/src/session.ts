import {
  type AnyForm,
  downgrade,
  type Finding,
  type FormContent,
  type FormSchema,
  type Issue,
  lint,
} from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { type AuditEvent, issuesForAudit, type Redaction, redact } from './audit.js';
import type { Channel, RawAnswer } from './channel/channel.js';
import { ElicitkitUsageError, FormLintError, isProduction } from './errors.js';
import type { Cancelled, Declined, MissingArgument, Outcome, Unsupported, UrlOutcome } from './outcome.js';
import { needsDowngrade, type Peer } from './peer.js';
import {
  cancelledResult,
  declinedResult,
  invalidResult,
  type Locale,
  pendingResult,
  type ResultContext,
  timeoutResult,
  unsupportedResult,
} from './results.js';

/**
 * A business rule on an accepted answer: return nothing (`undefined` or `[]`) when it is fine, or
 * what is wrong.
 */
export type Check<T> = (
  value: T,
) => CheckIssue[] | CheckIssue | undefined | Promise<CheckIssue[] | CheckIssue | undefined>;
/** A problem a check found: a sentence, or a sentence tied to a field. */
export type CheckIssue = string | { field?: string; message: string };

export interface AskOptions<T> {
  /** What the person reads: who wants what, and why. */
  message: string;
  /** Business validation after the shape check; failures give `invalid` and the handler never sees the value. */
  check?: Check<T>;
  /** How long to wait for the person. Default: the kit's (10 minutes). */
  timeoutMs?: number;
  /** What to tell the caller when the client cannot ask; default: the form's fields. */
  fallback?: MissingArgument[];
}

export interface AskUrlOptions {
  message: string;
  /** An https URL (or http on loopback) to a page the server controls. */
  url: string;
  /** Whether the out-of-band flow has finished (polled after the person consents). */
  isComplete: () => boolean | Promise<boolean>;
  /** How long to wait for the person to respond to the request. Default: the kit's timeout. */
  timeoutMs?: number;
  /** How long to wait, after consent, for the flow to finish before answering `pending`. */
  waitMs?: number;
  fallback?: MissingArgument[];
}

export interface SessionSettings {
  tool: string;
  forms: Readonly<Record<string, AnyForm>>;
  maxAsks: number;
  timeoutMs: number;
  urlWaitMs: number;
  pollMs: number;
  locale: Locale;
  redaction: Redaction;
  now: () => number;
  /** Undefined when nobody listens: records are then not even built. */
  audit: ((event: AuditEvent) => void) | undefined;
}

interface Stopped {
  action: 'decline' | 'cancel';
  key: string;
}

/**
 * One tool call's questions: the budget, the stop rules (nothing after a decline or a cancel),
 * capability and revision handling, validation, and the audit trail. The channel decides how a
 * question travels; everything a handler can observe is decided here, the same on every revision.
 */
export class Session {
  private readonly asked = new Set<string>();
  private stopped: Stopped | undefined;

  constructor(
    private readonly settings: SessionSettings,
    private readonly channel: Channel,
    readonly peer: Peer,
    readonly contextId: string,
    readonly user: string | undefined,
    private readonly signal: AbortSignal,
  ) {}

  /** How the call ended, for the cancel guard. */
  get stop(): Stopped | undefined {
    return this.stopped;
  }

  async ask<T extends FormContent>(key: string, options: AskOptions<T> & { form?: AnyForm }): Promise<Outcome<T>> {
    const form = options.form ?? this.settings.forms[key];
    if (!form) {
      throw new ElicitkitUsageError(
        'UNKNOWN_FORM',
        `${this.settings.tool}: ask("${key}") has no form. Declare it under forms, or pass { form }.`,
      );
    }
    this.enter(key);
    this.lintForm(key, form);
    const ctx = this.resultContext(key, form);
    const fallback = () => options.fallback ?? missingOf(form);
    if (!this.peer.form)
      return this.unsupported(
        key,
        'form',
        options.message,
        form.schema,
        ctx,
        fallback,
        reason(this.settings.locale, 'no-form'),
      );

    let schema = form.schema;
    const legacySchema = needsDowngrade(this.peer.revision);
    if (legacySchema) {
      const down = downgrade(schema, '2025-06-18');
      if (!down.ok) {
        const detail = down.losses
          .filter((l) => l.fatal)
          .map((l) => l.message)
          .join(' ');
        return this.unsupported(
          key,
          'form',
          options.message,
          schema,
          ctx,
          fallback,
          `${reason(this.settings.locale, 'old-revision')} ${detail}`,
        );
      }
      schema = down.schema;
    }
    const params = {
      ...(legacySchema ? {} : { mode: 'form' as const }),
      message: options.message,
      requestedSchema: schema,
    };
    const raw = await this.channel.send(key, params as never, options.timeoutMs ?? this.settings.timeoutMs, () =>
      this.record({
        type: 'request',
        key,
        mode: 'form',
        revision: this.peer.revision,
        message: options.message,
        fields: Object.keys(schema.properties),
        delivered: true,
      }),
    );
    this.recordResponse(key, raw, form);
    switch (raw.kind) {
      case 'timeout':
        return {
          action: 'timeout',
          result: () => timeoutResult(ctx, minutes(options.timeoutMs ?? this.settings.timeoutMs)),
        };
      case 'failed':
        return this.unsupportedOutcome(ctx, fallback, `${reason(this.settings.locale, 'client-error')} ${raw.detail}`);
      case 'closed':
        this.stopped = { action: 'cancel', key };
        return { action: 'cancel', result: () => cancelledResult(ctx) };
    }
    if (raw.action === 'decline' || raw.action === 'cancel') return this.refuse(key, raw.action, ctx);
    return (await this.accept(key, raw, form, options.check, ctx)) as Outcome<T>;
  }

  async askUrl(key: string, options: AskUrlOptions): Promise<UrlOutcome> {
    this.enter(key);
    this.lintUrl(key, options.message, options.url);
    const ctx: ResultContext = {
      tool: this.settings.tool,
      locale: this.settings.locale,
      question: key,
      labels: [options.message],
    };
    const fallback = () => options.fallback ?? [];
    if (!this.peer.url) {
      this.record({
        type: 'request',
        key,
        mode: 'url',
        revision: this.peer.revision,
        message: options.message,
        origin: originOf(options.url),
        delivered: false,
        reason: 'no-url-capability',
      });
      return this.unsupportedOutcome(ctx, fallback, reason(this.settings.locale, 'no-url'));
    }
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const raw = await this.channel.send(
      key,
      { mode: 'url', message: options.message, url: options.url } as never,
      timeoutMs,
      () =>
        this.record({
          type: 'request',
          key,
          mode: 'url',
          revision: this.peer.revision,
          message: options.message,
          origin: originOf(options.url),
          delivered: true,
        }),
    );
    this.recordResponse(key, raw, undefined);
    switch (raw.kind) {
      case 'timeout':
        return { action: 'timeout', result: () => timeoutResult(ctx, minutes(timeoutMs)) };
      case 'failed':
        return this.unsupportedOutcome(ctx, fallback, `${reason(this.settings.locale, 'client-error')} ${raw.detail}`);
      case 'closed':
        this.stopped = { action: 'cancel', key };
        return { action: 'cancel', result: () => cancelledResult(ctx) };
    }
    if (raw.action !== 'accept') return this.refuse(key, raw.action, ctx);
    // Accept in URL mode is consent, not completion: wait for the flow to finish.
    if (await this.waitFor(options.isComplete, options.waitMs ?? this.settings.urlWaitMs)) {
      await this.channel.complete(key);
      return { action: 'accept', value: true };
    }
    return { action: 'pending', result: () => pendingResult(ctx) };
  }

  /** The cancel guard (EK05): after a cancel, only a `cancelled` result may leave the tool. */
  finish(result: CallToolResult): CallToolResult {
    const stop = this.stopped;
    if (stop?.action !== 'cancel') return result;
    const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
    if (status === 'cancelled') return result;
    const message = `${this.settings.tool} returned "${String(status ?? (result.isError ? 'an error' : 'a result'))}" after the user cancelled "${stop.key}". A cancel must end the call with outcome.result().`;
    if (!isProduction()) throw new ElicitkitUsageError('WORK_AFTER_CANCEL', message);
    this.record({ type: 'violation', key: stop.key, rule: 'EK05', message });
    return cancelledResult(this.resultContext(stop.key, undefined));
  }

  private enter(key: string): void {
    const { tool, maxAsks } = this.settings;
    if (this.stopped) {
      const { action, key: at } = this.stopped;
      throw new ElicitkitUsageError(
        action === 'cancel' ? 'ASK_AFTER_CANCEL' : 'ASK_AFTER_DECLINE',
        action === 'cancel'
          ? `${tool} asked "${key}" after the user cancelled "${at}". Cancel ends the whole operation: return the outcome's result().`
          : `${tool} asked "${key}" after the user declined "${at}". Decline means stop asking: return the outcome's result().`,
      );
    }
    if (this.asked.has(key)) {
      throw new ElicitkitUsageError(
        'DUPLICATE_ASK',
        `${tool} asked "${key}" twice in one call. Each question has its own key.`,
      );
    }
    this.asked.add(key);
    if (this.asked.size > maxAsks) {
      throw new ElicitkitUsageError(
        'ASK_BUDGET',
        `${tool} asked ${this.asked.size} questions in one call; the budget is ${maxAsks}. Ask for every missing value in one form, or raise maxAsks for this tool.`,
      );
    }
  }

  /** Form rules do not depend on the message, so each form is linted once per process. */
  private lintForm(key: string, form: AnyForm): void {
    let errors = FORM_LINT.get(form);
    if (!errors) {
      errors = lint({ mode: 'form', message: PROBE_MESSAGE, requestedSchema: form.schema }).filter(
        (f) => f.severity === 'error',
      );
      FORM_LINT.set(form, errors);
    }
    this.raise(key, errors);
  }

  private lintUrl(key: string, message: string, url: string): void {
    this.raise(
      key,
      lint({ mode: 'url', message, url }).filter((f) => f.severity === 'error'),
    );
  }

  private raise(key: string, errors: readonly Finding[]): void {
    if (errors.length === 0) return;
    if (!isProduction()) throw new FormLintError(`${this.settings.tool} ask("${key}")`, errors);
    for (const f of errors) this.record({ type: 'violation', key, rule: f.rule, message: f.message });
  }

  private refuse(key: string, action: 'decline' | 'cancel', ctx: ResultContext): Declined | Cancelled {
    this.stopped = { action, key };
    return action === 'decline'
      ? { action: 'decline', result: () => declinedResult(ctx) }
      : { action: 'cancel', result: () => cancelledResult(ctx) };
  }

  private async accept<T extends FormContent>(
    key: string,
    raw: Extract<RawAnswer, { kind: 'answer' }>,
    form: AnyForm,
    check: ((value: T) => unknown) | undefined,
    ctx: ResultContext,
  ): Promise<Outcome<T>> {
    const content = raw.content;
    let issues: Issue[];
    let value: FormContent | undefined;
    if (content === undefined || Object.keys(content).length === 0) {
      // Accept without values is a broken client, never a success (EK04).
      issues = [{ path: [], code: 'empty', message: 'The form was accepted without any values.' }];
    } else {
      const parsed = form.parse(content);
      issues = parsed.ok ? [] : parsed.issues;
      value = parsed.ok ? parsed.value : undefined;
      if (parsed.ok && check) issues = toIssues(await check(parsed.value as T));
    }
    if (raw.fresh) this.record({ type: 'validation', key, ok: issues.length === 0, issues: issuesForAudit(issues) });
    if (issues.length > 0 || value === undefined)
      return { action: 'invalid', issues, result: () => invalidResult(ctx, issues) };
    return { action: 'accept', value: value as T };
  }

  private unsupported(
    key: string,
    mode: 'form' | 'url',
    message: string,
    schema: FormSchema,
    ctx: ResultContext,
    fallback: () => MissingArgument[],
    why: string,
  ): Unsupported {
    this.record({
      type: 'request',
      key,
      mode,
      revision: this.peer.revision,
      message,
      fields: Object.keys(schema.properties),
      delivered: false,
      reason: why,
    });
    return this.unsupportedOutcome(ctx, fallback, why);
  }

  private unsupportedOutcome(ctx: ResultContext, fallback: () => MissingArgument[], why: string): Unsupported {
    const missing = fallback();
    return { action: 'unsupported', missing, reason: why, result: () => unsupportedResult(ctx, missing, why) };
  }

  private async waitFor(done: () => boolean | Promise<boolean>, waitMs: number): Promise<boolean> {
    const deadline = this.settings.now() + waitMs;
    for (;;) {
      if (await done()) return true;
      if (this.signal.aborted || this.settings.now() >= deadline) return false;
      await sleep(Math.min(this.settings.pollMs, Math.max(1, deadline - this.settings.now())), this.signal);
    }
  }

  private recordResponse(key: string, raw: RawAnswer, form: AnyForm | undefined): void {
    if (!raw.fresh || !this.settings.audit) return;
    const base = { type: 'response' as const, key, elapsedMs: raw.elapsedMs };
    if (raw.kind === 'answer') {
      const content = raw.content ? redact(raw.content, form, this.settings.redaction) : undefined;
      this.record({ ...base, action: raw.action, ...(content ? { content } : {}) });
    } else if (raw.kind === 'timeout') this.record({ ...base, action: 'timeout' });
    else this.record({ ...base, action: 'error', detail: raw.detail });
  }

  private record(event: DistributiveOmit<AuditEvent, 'contextId' | 'tool' | 'at' | 'user'>): void {
    if (!this.settings.audit) return;
    if (!this.settings.audit) return;
    const full = {
      ...event,
      contextId: this.contextId,
      tool: this.settings.tool,
      at: this.settings.now(),
      ...(this.user !== undefined ? { user: this.user } : {}),
    } as AuditEvent;
    this.settings.audit?.(full);
  }

  private resultContext(key: string, form: AnyForm | undefined): ResultContext {
    const { tool, locale } = this.settings;
    return {
      tool,
      locale,
      question: key,
      // Labels are only needed when a result is built.
      get labels() {
        return form ? form.fields.map((f) => f.label) : [key];
      },
    };
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Lint errors of each form seen, by identity. */
const FORM_LINT = new WeakMap<AnyForm, readonly Finding[]>();
/** Stands in for the message when a form is linted on its own (messages only draw warnings). */
export const PROBE_MESSAGE = 'Please review the details below before the operation continues.';

/** The fallback list a form implies: its fields, with allowed values for selects. */
export function missingOf(form: AnyForm): MissingArgument[] {
  return form.fields.map((f) => {
    const out: MissingArgument = { name: f.name, label: f.label, required: f.required };
    if (f.help) out.description = f.help;
    if (f.kind === 'select' || f.kind === 'multiselect') out.allowed = f.options;
    return out;
  });
}

function toIssues(found: unknown): Issue[] {
  const list = found === undefined || found === null ? [] : Array.isArray(found) ? found : [found];
  return list.map((item: CheckIssue) =>
    typeof item === 'string'
      ? { path: [], code: 'custom', message: item }
      : { path: item.field ? [item.field] : [], code: 'custom', message: item.message },
  );
}

function minutes(ms: number): number {
  return Math.max(1, Math.round(ms / 60_000));
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const REASONS = {
  en: {
    'no-form': 'it did not declare form elicitation',
    'no-url': 'it did not declare URL-mode elicitation, which this step needs',
    'old-revision': 'its protocol revision (2025-06-18) cannot show this form.',
    'client-error': 'the client refused the question:',
  },
  zh: {
    'no-form': '客户端未声明表单提问能力',
    'no-url': '客户端未声明 URL 模式提问能力，而这一步需要它',
    'old-revision': '客户端的协议版本（2025-06-18）无法显示此表单。',
    'client-error': '客户端拒绝了提问：',
  },
} as const;

function reason(locale: Locale, key: keyof (typeof REASONS)['en']): string {
  return REASONS[locale][key];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
