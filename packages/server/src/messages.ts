/**
 * Everything the server library says to people and models, one table per locale. Result texts
 * tell the model what happened and what not to do next; reasons say why a client could not ask.
 * Apps on the kit (opsdesk) keep their own texts the same way: an interface, one table per
 * locale, checked by `LocaleTables`.
 */

import type { AdaptWords } from '@elicitkit/form/clients';

/**
 * The languages Elicitkit speaks, as `Locale` values.
 *
 * @example
 * if (!LOCALES.some((l) => l === flag)) throw new Error(`--lang must be ${LOCALES.join(' or ')}`);
 */
export const LOCALES = ['en', 'zh'] as const;

/** A language of the ready-made texts: `'en'` or `'zh'`. */
export type Locale = (typeof LOCALES)[number];

/**
 * One message table per locale, each a whole `M`: a key missing from any locale fails to compile,
 * and a locale added to `LOCALES` fails until every table has it. Builders pick a table by locale
 * and never branch on the language themselves.
 *
 * @example
 * interface Texts { greet(name: string): string }
 * const TEXTS = {
 *   en: { greet: (name) => `Hello, ${name}.` },
 *   zh: { greet: (name) => `你好，${name}。` },
 * } satisfies LocaleTables<Texts>;
 * TEXTS[locale].greet('Ada');
 */
export type LocaleTables<M> = { readonly [L in Locale]: M };

/** Why a client could not be asked, in the words an `unsupported` result gives. */
export type UnsupportedReason =
  | 'no-form'
  | 'no-url'
  | 'no-url-revision'
  | 'old-revision'
  | 'client-error'
  | 'text-only';

/**
 * The texts of an outcome that ended a call take `done`: what the call did before it ended that
 * way, as `alreadyDone` words it (a page the person finished, the tool's effect). Given, they never
 * say that nothing was done.
 */
interface Messages {
  /** "A", "A and B", "A, B and C". */
  list(items: readonly string[]): string;
  declined(tool: string, what: string, done?: string): string;
  declinedPage(tool: string, host: string, done?: string): string;
  cancelled(tool: string, done?: string): string;
  unsupported(tool: string, reason: string, done?: string): string;
  /** What a call did before an outcome ended it, as one sentence: `steps` from `pageDone` and `effectDone`. */
  alreadyDone(steps: readonly string[]): string;
  /** A page whose flow the person finished. */
  pageDone(host: string): string;
  /** The tool's own side effect ran (`commit`, or `attempt` kept it). */
  effectDone(tool: string): string;
  required: string;
  /** An argument the call did not give at all. */
  missingArgument(name: string): string;
  optional: string;
  oneOf: string;
  answerInvalid(tool: string, done?: string): string;
  argumentsInvalid: string;
  /** Nobody answered within `waitedMs` (said as the person would say it: 10 minutes, 30 seconds). */
  timeout(tool: string, waitedMs: number, done?: string): string;
  pending(tool: string): string;
  /** An earlier attempt of this call started its effect and never recorded how it ended. */
  unknownOutcome(tool: string): string;
  /** This call's effect went to the database to commit, and whether it did could not be learned. */
  commitOutcomeUnknown(tool: string): string;
  /** An earlier attempt of this call is still running its effect. */
  stillRunning(tool: string): string;
  /** The claim store could not be reached to learn whether this call already took effect. */
  claimsUnreachable(tool: string): string;
  /** The call's arguments nest deeper than they can be bound to the call's answers. */
  argumentsTooDeep: string;
  /** Appended to a result whose effect ran but could not be recorded. */
  unrecorded(tool: string): string;
  /** A 2026-07-28 question changed before each of its answers arrived, `changes` times: the call ended. */
  questionUnstable(key: string, changes: number, done?: string): string;
  /** A 2026-07-28 round's yes to `key`, which the tool, run again, no longer asked before its effect. */
  answerUnused(key: string, done?: string): string;
  reasons: Record<UnsupportedReason, string>;
  /** What a form adapted to a client's quirks shows (a Yes/No choice, a typed line's hint). */
  adapt: AdaptWords;
}

const en: Messages = {
  list: (items) =>
    items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`,
  declined: (tool, what, done) =>
    `The user declined to provide ${what}, so ${tool} ${done === undefined ? 'did nothing.' : `went no further. ${done}`} Do not ask again unless the user brings it up.`,
  declinedPage: (tool, host, done) =>
    `The user declined to open the page on ${host}, so ${tool} ${done === undefined ? 'did nothing.' : `went no further. ${done}`} Do not ask again unless the user brings it up.`,
  cancelled: (tool, done) =>
    done === undefined
      ? `The user cancelled ${tool}. Nothing was done; do not retry or fill in the missing values yourself.`
      : `The user cancelled ${tool}, so it went no further. ${done} Do not retry or fill in the missing values yourself.`,
  unsupported: (tool, reason, done) =>
    `This client cannot ask the user (${reason}), so ${tool} ${done === undefined ? 'did nothing.' : `went no further. ${done}`} Ask the user for these values and call ${tool} again with them:`,
  alreadyDone: (steps) => `Already done in this call, and not undone: ${en.list(steps)}.`,
  pageDone: (host) => `the user finished the step on the page on ${host}`,
  effectDone: (tool) => `${tool} took effect`,
  required: 'required',
  missingArgument: (name) => `${name}: required, and not given`,
  optional: 'optional',
  oneOf: ': one of ',
  answerInvalid: (tool, done) =>
    done === undefined
      ? `The answer to ${tool}'s question was not accepted, so nothing was done:`
      : `The answer to ${tool}'s question was not accepted, so ${tool} went no further. ${done} What was wrong:`,
  argumentsInvalid: 'The arguments of this call were not accepted, so nothing was asked and nothing was done:',
  timeout: (tool, waitedMs, done) => {
    const { value, unit, about } = span(waitedMs);
    const units = { ms: ['millisecond', 'milliseconds'], s: ['second', 'seconds'], min: ['minute', 'minutes'] }[unit];
    const within = `${about ? 'about ' : ''}${value} ${units[value === 1 ? 0 : 1]}`;
    return `No answer arrived within ${within}, so ${tool} ${done === undefined ? 'did nothing.' : `went no further. ${done}`}`;
  },
  pending: (tool) =>
    `The user agreed to open the page but has not finished there yet. What the page does happens there when they finish; ${tool} does not go on by itself: call ${tool} again once they have.`,
  unknownOutcome: (tool) =>
    `An earlier attempt of this same ${tool} call started to act but its outcome was never recorded (the server stopped while it ran). It was not run again. It may or may not have taken effect: check the current state before calling ${tool} again.`,
  commitOutcomeUnknown: (tool) =>
    `${tool} sent its changes to the database to be saved, and the connection was lost before the database answered; asked again, it did not say whether they were saved. They may or may not have taken effect: check the current state before calling ${tool} again.`,
  stillRunning: (tool) =>
    `An earlier attempt of this same ${tool} call is still running. It was not run again; send the same request later to get its result.`,
  claimsUnreachable: (tool) =>
    `Whether this ${tool} call already took effect cannot be told now: the record of its effect cannot be reached. Nothing more was done; send the same request again later to get its result, rather than calling ${tool} anew.`,
  argumentsTooDeep: 'The arguments nest too deeply to be bound to the answers this call asks for: send them flatter.',
  unrecorded: (tool) =>
    `This took effect, but its result could not be recorded, so a retry of this same ${tool} call cannot be answered with it: check the current state rather than sending the call again.`,
  questionUnstable: (key, changes, done) =>
    `The question "${key}" changed ${changes} times before its answer arrived (what it shows, such as a time or a count, changes on every look), so no answer to it could count. ${done === undefined ? 'Nothing was done; calling' : `The call went no further. ${done} Calling`} the tool again starts over.`,
  answerUnused: (key, done) =>
    `The answer to "${key}" was given about things that changed before the tool acted on it: it now goes another way, which nobody confirmed. ${done === undefined ? 'Nothing was done; calling' : `The call went no further. ${done} Calling`} the tool again asks about things as they are now.`,
  reasons: {
    'no-form': 'it did not declare form elicitation',
    'no-url': 'it did not declare URL-mode elicitation, which this step needs',
    'no-url-revision': 'its protocol revision (2025-06-18) has no URL mode, which this step needs',
    'old-revision': 'its protocol revision (2025-06-18) cannot show this form.',
    'client-error': 'the client refused the question:',
    'text-only': 'it shows a question as one line of text, and',
  },
  adapt: {
    yes: 'Yes',
    no: 'No',
    typeYesNo: 'Answer yes or no.',
    typeOneOf: (options) => `Type one of: ${options}.`,
    typeSeveral: (options) => `Type any of: ${options}, separated by commas.`,
    typeNumber: 'Type a number.',
  },
};

const zh: Messages = {
  list: (items) =>
    items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join('、')}和${items[items.length - 1]}`,
  declined: (tool, what, done) =>
    `用户拒绝提供${what}，${tool} ${done === undefined ? '没有执行任何操作。' : `没有继续执行。${done}`}除非用户主动提起，请不要再次询问。`,
  declinedPage: (tool, host, done) =>
    `用户拒绝打开 ${host} 上的页面，${tool} ${done === undefined ? '没有执行任何操作。' : `没有继续执行。${done}`}除非用户主动提起，请不要再次询问。`,
  cancelled: (tool, done) =>
    `用户取消了 ${tool}，${done === undefined ? '没有执行任何操作。' : `没有继续执行。${done}`}不要重试，也不要猜测缺失的参数。`,
  unsupported: (tool, reason, done) =>
    `当前客户端无法向用户提问（${reason}），${tool} ${done === undefined ? '没有执行任何操作。' : `没有继续执行。${done}`}请让用户提供以下参数后，再次调用 ${tool}：`,
  alreadyDone: (steps) => `本次调用中已经完成且没有撤销的：${zh.list(steps)}。`,
  pageDone: (host) => `用户已在 ${host} 上的页面完成了操作`,
  effectDone: (tool) => `${tool} 已经生效`,
  required: '必填',
  missingArgument: (name) => `${name}：必填，但没有提供`,
  optional: '可选',
  oneOf: '：可选值 ',
  answerInvalid: (tool, done) =>
    done === undefined
      ? `${tool} 收到的回答未通过校验，没有执行任何操作：`
      : `${tool} 收到的回答未通过校验，没有继续执行。${done}原因：`,
  argumentsInvalid: '本次调用的参数未通过校验，没有提问，也没有执行任何操作：',
  timeout: (tool, waitedMs, done) => {
    const { value, unit, about } = span(waitedMs);
    const within = `${about ? '约 ' : ''}${value} ${{ ms: '毫秒', s: '秒', min: '分钟' }[unit]}`;
    return `${within}内没有收到回答，${tool} ${done === undefined ? '没有执行任何操作。' : `没有继续执行。${done}`}`;
  },
  pending: (tool) =>
    `用户已同意打开页面，但尚未在页面上完成。页面上的操作在用户完成时生效；${tool} 不会自行继续：用户完成后请再次调用 ${tool}。`,
  unknownOutcome: (tool) =>
    `同一次 ${tool} 调用的先前尝试已开始执行，但结果没有记录下来（执行期间服务器停止了）。本次没有再次执行。它可能已经生效，也可能没有：请先检查当前状态，再决定是否重新调用 ${tool}。`,
  commitOutcomeUnknown: (tool) =>
    `${tool} 已把改动提交给数据库保存，但在数据库答复之前连接断开了；再次询问时，数据库也没有说明是否已保存。改动可能已经生效，也可能没有：请先检查当前状态，再决定是否重新调用 ${tool}。`,
  stillRunning: (tool) =>
    `同一次 ${tool} 调用的先前尝试仍在执行中。本次没有再次执行；稍后发送相同的请求即可获得其结果。`,
  claimsUnreachable: (tool) =>
    `现在无法得知这次 ${tool} 调用是否已经生效：无法访问它的执行记录。本次没有再执行任何操作；请稍后再次发送相同的请求以获得其结果，而不要重新调用 ${tool}。`,
  argumentsTooDeep: '参数嵌套过深，无法与本次调用要询问的回答绑定：请用更浅的结构发送。',
  unrecorded: (tool) =>
    `操作已生效，但其结果未能记录，因此重试同一次 ${tool} 调用无法得到这个结果：请检查当前状态，而不要再次发送该调用。`,
  questionUnstable: (key, changes, done) =>
    `问题“${key}”在回答送达之前已变化 ${changes} 次（它显示的内容，例如时间或计数，每次查看都会变化），因此任何回答都无法生效。${done === undefined ? '没有执行任何操作；' : `调用没有继续执行。${done}`}再次调用该工具会重新开始。`,
  answerUnused: (key, done) =>
    `对问题“${key}”的回答所针对的情况在工具执行之前已经改变：工具现在会走另一条路，而这条路没有人确认过。${done === undefined ? '没有执行任何操作；' : `调用没有继续执行。${done}`}再次调用该工具会按当前情况重新询问。`,
  reasons: {
    'no-form': '客户端未声明表单提问能力',
    'no-url': '客户端未声明 URL 模式提问能力，而这一步需要它',
    'no-url-revision': '客户端的协议版本（2025-06-18）没有 URL 模式，而这一步需要它',
    'old-revision': '客户端的协议版本（2025-06-18）无法显示此表单。',
    'client-error': '客户端拒绝了提问：',
    'text-only': '客户端只能以一行文字提问，而',
  },
  adapt: {
    yes: '是',
    no: '否',
    typeYesNo: '请回答“是”或“否”。',
    typeOneOf: (options) => `请输入以下之一：${options}。`,
    typeSeveral: (options) => `可输入以下多项，用逗号分隔：${options}。`,
    typeNumber: '请输入数字。',
  },
};

export const MESSAGES = { en, zh } satisfies LocaleTables<Messages>;

/**
 * A wait as a person says it: whole minutes as minutes; under two minutes, seconds (to a tenth);
 * under one, milliseconds; longer waits that are not whole minutes, about so many minutes.
 */
function span(ms: number): { value: number; unit: 'ms' | 's' | 'min'; about: boolean } {
  if (ms >= 60_000 && ms % 60_000 === 0) return { value: ms / 60_000, unit: 'min', about: false };
  if (ms >= 120_000) return { value: Math.round(ms / 60_000), unit: 'min', about: true };
  if (ms >= 1_000) return { value: Math.round(ms / 100) / 10, unit: 's', about: ms % 100 !== 0 };
  return { value: Math.round(ms), unit: 'ms', about: false };
}
