import type { Issue, OptionModel } from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { type CheckIssue, toIssues } from './issues.js';
import { type Locale, MESSAGES } from './messages.js';
import type { MissingArgument } from './outcome.js';

/**
 * Every `structuredContent.status` a tool built on Elicitkit returns (`docs/server.md`, "Outcomes and statuses").
 *
 * @example
 * const ended = STATUSES.includes(result.structuredContent?.status as Status);
 */
export const STATUSES = [
  'done',
  'declined',
  'cancelled',
  'unsupported',
  'invalid',
  'rejected',
  'timeout',
  'pending',
] as const;
/** One of `STATUSES`: how a tool call ended. */
export type Status = (typeof STATUSES)[number];

/** What a question asked for: form fields by their labels, or a page (URL mode) by its host. */
export type Subject = { kind: 'fields'; labels: readonly string[] } | { kind: 'page'; host: string };

/**
 * A step of a call that took effect before the call ended another way: a page whose flow the
 * person finished (`askUrl` ended `accept`), or the tool's own side effect (`commit`, or an
 * `attempt` that kept it). A result that ends such a call says so, never "nothing was done".
 */
export type Completed = { kind: 'page'; question: string; host: string } | { kind: 'effect' };

/** What the ready-made results need to know about the question they answer for. */
export interface ResultContext {
  tool: string;
  locale: Locale;
  /** The ask key. */
  question: string;
  subject: Subject;
  /** What the call did before this result was built (none when absent). */
  readonly completed?: readonly Completed[];
}

function result(status: Status, text: string, isError: boolean, extra: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { status, message: text, ...extra }, isError };
}

/** What `c`'s call already did, as the sentence the texts take (`alreadyDone`); undefined when nothing. */
export function doneSentence(c: ResultContext): string | undefined {
  const steps = c.completed;
  if (steps === undefined || steps.length === 0) return undefined;
  const t = MESSAGES[c.locale];
  return t.alreadyDone(steps.map((s) => (s.kind === 'page' ? t.pageDone(s.host) : t.effectDone(c.tool))));
}

/** `doneSentence`, and the same as `structuredContent.completed`; nothing when the call did nothing. */
function already(c: ResultContext): { done?: string; extra: Record<string, unknown> } {
  const done = doneSentence(c);
  if (done === undefined) return { extra: {} };
  return { done, extra: { completed: (c.completed ?? []).map((s) => ({ ...s })) } };
}

/** The person refused: nothing (more) happened, and the model must not nag. */
export function declinedResult(c: ResultContext): CallToolResult {
  const t = MESSAGES[c.locale];
  const { done, extra } = already(c);
  const text =
    c.subject.kind === 'page'
      ? t.declinedPage(c.tool, c.subject.host, done)
      : t.declined(c.tool, t.list(c.subject.labels), done);
  return result('declined', text, false, { question: c.question, ...extra });
}

/** The person abandoned the operation: nothing (more) happened, and nothing may be guessed. */
export function cancelledResult(c: ResultContext): CallToolResult {
  const { done, extra } = already(c);
  return result('cancelled', MESSAGES[c.locale].cancelled(c.tool, done), false, { question: c.question, ...extra });
}

/** The client cannot ask: name every missing argument and its allowed values so the caller can pass them. */
export function unsupportedResult(c: ResultContext, missing: MissingArgument[], reason: string): CallToolResult {
  const t = MESSAGES[c.locale];
  const lines = missing.map((m) => {
    const values = m.allowed?.length
      ? `${t.oneOf}${m.allowed.map(optionText).join(', ')}`
      : m.description
        ? ` — ${m.description}`
        : '';
    return `- ${m.name} (${m.label}, ${m.required ? t.required : t.optional})${values}`;
  });
  const { done, extra } = already(c);
  return result('unsupported', `${t.unsupported(c.tool, reason, done)}\n${lines.join('\n')}`, true, {
    question: c.question,
    ...extra,
    missing: missing.map((m) => ({
      name: m.name,
      label: m.label,
      required: m.required,
      ...(m.allowed ? { allowed: m.allowed.map((o) => o.value) } : {}),
    })),
  });
}

/**
 * An option as the caller must pass it, with its label when that says more: `dev (Development)`.
 * A label that already ends in its value — "Development (dev)", "开发 (dev)" — is not doubled.
 */
function optionText(o: OptionModel): string {
  let label = o.label.trim();
  for (const [open, close] of [
    ['(', ')'],
    ['（', '）'],
  ] as const) {
    const suffix = `${open}${o.value}${close}`;
    if (label.endsWith(suffix)) label = label.slice(0, -suffix.length).trim();
  }
  return label === '' || label === o.value ? o.value : `${o.value} (${label})`;
}

function invalidWith(head: string, issues: readonly Issue[], extra: Record<string, unknown>): CallToolResult {
  return result('invalid', `${head}\n${issues.map((i) => `- ${i.message}`).join('\n')}`, true, {
    ...extra,
    issues: issues.map((i) => ({
      field: i.path.length > 0 ? String(i.path[0]) : '',
      code: i.code,
      message: i.message,
    })),
  });
}

/** The answer failed a check: list why, do nothing, do not re-ask on its own. */
export function invalidResult(c: ResultContext, issues: Issue[]): CallToolResult {
  const { done, extra } = already(c);
  return invalidWith(MESSAGES[c.locale].answerInvalid(c.tool, done), issues, { question: c.question, ...extra });
}

/**
 * The tool refuses its *arguments* before asking anything: every reason, one per line, with
 * `status: 'invalid'` and no `question` (none was asked).
 *
 * @example
 * const problems = checkRange(args);
 * if (problems.length > 0) return invalid(problems, { locale: ctx.locale });
 */
export function invalid(
  issues: readonly (CheckIssue | Issue)[] | CheckIssue,
  options: { locale?: Locale } = {},
): CallToolResult {
  return invalidWith(MESSAGES[options.locale ?? 'en'].argumentsInvalid, toIssues(issues), {});
}

/** Nobody answered within `waitedMs`. */
export function timeoutResult(c: ResultContext, waitedMs: number): CallToolResult {
  const { done, extra } = already(c);
  return result('timeout', MESSAGES[c.locale].timeout(c.tool, waitedMs, done), true, {
    question: c.question,
    ...extra,
  });
}

/** URL mode: the person is on the page but has not finished. */
export function pendingResult(c: ResultContext): CallToolResult {
  return result('pending', MESSAGES[c.locale].pending(c.tool), false, { question: c.question, ...already(c).extra });
}

/**
 * A replayed call whose first attempt began its effect and never recorded an outcome (the process
 * stopped mid-effect). At most once wins over liveness: it is not run again, and the caller is told
 * to look before trying again.
 */
export function unknownOutcomeResult(tool: string, locale: Locale): CallToolResult {
  return result('rejected', MESSAGES[locale].unknownOutcome(tool), true, { outcome: 'unknown' });
}

/**
 * A replay (or a duplicate waiting on an earlier attempt) could not read the call's claim: the
 * store is unreachable. The call may have acted, so this is never "nothing was done": the caller is
 * told to send the same request again, which is answered from the record once the store is back.
 */
export function claimsUnreachableResult(tool: string, locale: Locale): CallToolResult {
  return result('rejected', MESSAGES[locale].claimsUnreachable(tool), true, { outcome: 'unknown' });
}

/**
 * This call's effect was sent to its database to commit, the answer was lost, and the database
 * would not say what became of it: the same `outcome: 'unknown'`, told as this call's own.
 */
export function commitOutcomeUnknownResult(tool: string, locale: Locale): CallToolResult {
  return result('rejected', MESSAGES[locale].commitOutcomeUnknown(tool), true, { outcome: 'unknown' });
}

/**
 * The effect ran and returned `result`, but the claim store could not record it (it was down, or
 * lost the claim): the caller gets the result, marked `outcome: 'unrecorded'` with a sentence
 * saying a retry cannot be answered with it — never a plain "done" that no replay can find.
 */
export function unrecordedResult(result: CallToolResult, tool: string, locale: Locale): CallToolResult {
  const note = MESSAGES[locale].unrecorded(tool);
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  const message = typeof structured.message === 'string' ? `${structured.message} ${note}` : note;
  return {
    ...result,
    content: [...(result.content ?? []), { type: 'text', text: note }],
    structuredContent: { ...structured, message, outcome: 'unrecorded' },
  };
}

/** A replayed call whose first attempt is still running its effect after the wait: nothing more happened. */
export function stillRunningResult(tool: string, locale: Locale): CallToolResult {
  return result('pending', MESSAGES[locale].stillRunning(tool), false, { outcome: 'running' });
}

/**
 * A successful result: `text` for the model and people, `data` merged into `structuredContent`.
 *
 * @example
 * return done(`Deployed order-service v2.3.1 to prod (#42).`, { deployment: { id: 42 } });
 */
export function done(text: string, data: Record<string, unknown> = {}): CallToolResult {
  return result('done', text, false, data);
}

/**
 * Not finished yet, by the person's choice or on a page still open: nothing more happened.
 *
 * @example
 * return pending(`${path}: both versions left for you to merge by hand.`, { path });
 */
export function pending(text: string, data: Record<string, unknown> = {}): CallToolResult {
  return result('pending', text, false, data);
}

/**
 * The tool refused on its own rules (unknown service, unapproved ticket, several statements).
 *
 * @example
 * if (!service) return rejected(`There is no service called "${name}".`);
 */
export function rejected(text: string, data: Record<string, unknown> = {}): CallToolResult {
  return result('rejected', text, true, data);
}

/**
 * The `outputSchema` of a tool that asks: `status` and `message` always, the outcome details
 * (`question`, `missing`, `issues`) when they apply, and the tool's own fields — optional, since
 * only a `done` result carries them.
 *
 * @example
 * outputSchema: outcomeSchema({ deployment: z.object({ id: z.number(), env: z.string() }) })
 */
export function outcomeSchema<S extends z.ZodRawShape>(shape: S = {} as S) {
  const optional = Object.fromEntries(
    Object.entries(shape).map(([k, v]) => [k, (v as z.ZodType).optional()]),
  ) as unknown as {
    [K in keyof S]: z.ZodOptional<S[K]>;
  };
  return z.object({
    status: z.enum(STATUSES),
    message: z.string(),
    question: z.string().optional(),
    missing: z
      .array(
        z.object({
          name: z.string(),
          label: z.string(),
          required: z.boolean(),
          allowed: z.array(z.string()).optional(),
        }),
      )
      .optional(),
    issues: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
    /**
     * Set on a replay whose first attempt's outcome is not known (`unknown`) or not yet known
     * (`running`), and on a result whose effect ran but could not be recorded (`unrecorded`).
     */
    outcome: z.enum(['unknown', 'running', 'unrecorded']).optional(),
    /** What the call did before it ended another way: pages the person finished, the tool's effect. */
    completed: z
      .array(
        z.union([
          z.object({ kind: z.literal('page'), question: z.string(), host: z.string() }),
          z.object({ kind: z.literal('effect') }),
        ]),
      )
      .optional(),
    ...optional,
  });
}
