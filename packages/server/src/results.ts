import type { Issue } from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { MissingArgument } from './outcome.js';

/** Every `structuredContent.status` a tool built on Elicitkit returns (SPEC §4). */
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
export type Status = (typeof STATUSES)[number];

export type Locale = 'en' | 'zh';

/** What the ready-made results need to know about the question they answer for. */
export interface ResultContext {
  tool: string;
  locale: Locale;
  /** The ask key. */
  question: string;
  /** Human labels of the fields asked for. */
  labels: string[];
}

function result(status: Status, text: string, isError: boolean, extra: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { status, message: text, ...extra }, isError };
}

const list = (labels: string[], locale: Locale) => labels.join(locale === 'zh' ? '、' : ', ');

/** The person refused: nothing happened, and the model must not nag. */
export function declinedResult(c: ResultContext): CallToolResult {
  const text =
    c.locale === 'zh'
      ? `用户拒绝提供${list(c.labels, c.locale)}，${c.tool} 没有执行任何操作。除非用户主动提起，请不要再次询问。`
      : `The user declined to provide ${list(c.labels, c.locale)}, so ${c.tool} did nothing. Do not ask again unless the user brings it up.`;
  return result('declined', text, false, { question: c.question });
}

/** The person abandoned the operation: nothing happened, and nothing may be guessed. */
export function cancelledResult(c: ResultContext): CallToolResult {
  const text =
    c.locale === 'zh'
      ? `用户取消了 ${c.tool}，没有执行任何操作。不要重试，也不要猜测缺失的参数。`
      : `The user cancelled ${c.tool}. Nothing was done; do not retry or fill in the missing values yourself.`;
  return result('cancelled', text, false, { question: c.question });
}

/** The client cannot ask: name every missing argument and its allowed values so the caller can pass them. */
export function unsupportedResult(c: ResultContext, missing: MissingArgument[], reason: string): CallToolResult {
  const lines = missing.map((m) => {
    const req = m.required ? (c.locale === 'zh' ? '必填' : 'required') : c.locale === 'zh' ? '可选' : 'optional';
    const values = m.allowed?.length
      ? `${c.locale === 'zh' ? '：可选值 ' : ': one of '}${m.allowed.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ')}`
      : m.description
        ? ` — ${m.description}`
        : '';
    return `- ${m.name} (${m.label}, ${req})${values}`;
  });
  const head =
    c.locale === 'zh'
      ? `当前客户端无法向用户提问（${reason}），${c.tool} 没有执行任何操作。请让用户提供以下参数后，再次调用 ${c.tool}：`
      : `This client cannot ask the user (${reason}), so ${c.tool} did nothing. Ask the user for these values and call ${c.tool} again with them:`;
  return result('unsupported', `${head}\n${lines.join('\n')}`, true, {
    question: c.question,
    missing: missing.map((m) => ({
      name: m.name,
      label: m.label,
      required: m.required,
      ...(m.allowed ? { allowed: m.allowed.map((o) => o.value) } : {}),
    })),
  });
}

/** The answer failed a check: list why, do nothing, do not re-ask on its own. */
export function invalidResult(c: ResultContext, issues: Issue[]): CallToolResult {
  const head =
    c.locale === 'zh'
      ? `${c.tool} 收到的回答未通过校验，没有执行任何操作：`
      : `The answer to ${c.tool}'s question was not accepted, so nothing was done:`;
  return result('invalid', `${head}\n${issues.map((i) => `- ${i.message}`).join('\n')}`, true, {
    question: c.question,
    issues: issues.map((i) => ({
      field: i.path.length > 0 ? String(i.path[0]) : '',
      code: i.code,
      message: i.message,
    })),
  });
}

/** Nobody answered in time. */
export function timeoutResult(c: ResultContext, minutes: number): CallToolResult {
  const text =
    c.locale === 'zh'
      ? `${minutes} 分钟内没有收到回答，${c.tool} 没有执行任何操作。`
      : `No answer arrived within ${minutes} minute${minutes === 1 ? '' : 's'}, so ${c.tool} did nothing.`;
  return result('timeout', text, true, { question: c.question });
}

/** URL mode: the person is on the page but has not finished. */
export function pendingResult(c: ResultContext): CallToolResult {
  const text =
    c.locale === 'zh'
      ? `用户已打开页面但尚未完成。完成后 ${c.tool} 的结果才会生效；稍后可再次调用以确认。`
      : `The user opened the page but has not finished there yet. ${c.tool} takes effect once they do; call it again later to check.`;
  return result('pending', text, false, { question: c.question });
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

/** Not finished yet, by the person's choice or on a page still open: nothing more happened. */
export function pending(text: string, data: Record<string, unknown> = {}): CallToolResult {
  return result('pending', text, false, data);
}

/** The tool refused on its own rules (unknown service, unapproved ticket, several statements). */
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
    ...optional,
  });
}
