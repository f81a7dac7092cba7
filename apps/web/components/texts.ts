import type { Unanswerable } from '@elicitkit/client';
import { notAsTypedIn } from '../lib/exact-json';
import type { Locale } from '../lib/locale';
import type { ElicitationData, RefusalData, Status } from '../lib/wire';
import type { SchemaRule } from './schema-check';
import type { FieldProblem, JsonType } from './tool-fields';

/** A span of milliseconds in words: `a minute`, `5 minutes`, `30 seconds`. */
function minutes(ms: number | undefined): string {
  if (ms === undefined) return 'a while';
  if (ms % 60_000 === 0) return ms === 60_000 ? 'a minute' : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}

/** The same in Chinese: `1 分钟`, `30 秒`. */
function minutesZh(ms: number | undefined): string {
  if (ms === undefined) return '一段时间';
  return ms % 60_000 === 0 ? `${ms / 60_000} 分钟` : `${Math.round(ms / 1000)} 秒`;
}

/** A JSON type as a tools panel field names what it takes. */
const TYPE_EN = {
  string: 'text in quotes ("…")',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object ({…})',
  array: 'a list ([…])',
  null: 'null',
} as const satisfies Record<JsonType, string>;

const TYPE_ZH = {
  string: '带引号的文本（"…"）',
  number: '数字',
  integer: '整数',
  boolean: 'true 或 false',
  object: '对象（{…}）',
  array: '列表（[…]）',
  null: 'null',
} as const satisfies Record<JsonType, string>;

/** Where in a field half a character keeps a question from being answered, as the notice names it. */
const UNANSWERABLE_EN = {
  name: 'the name of the field',
  choice: 'a choice of the field',
} as const satisfies Record<Unanswerable['where'], string>;

const UNANSWERABLE_ZH = {
  name: '名称',
  choice: '选项',
} as const satisfies Record<Unanswerable['where'], string>;

/** A JSON value as a mark quotes it: `"gpu"`, `8`, `null`. */
const json = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** The types a `type` rule names (Ajv gives them as one string, comma-separated). */
function typesOf(params: Record<string, unknown>): JsonType[] {
  const raw = Array.isArray(params.type) ? params.type.map(String) : String(params.type).split(',');
  return raw.filter((t): t is JsonType => Object.hasOwn(TYPE_EN, t));
}

/**
 * What a schema rule refuses, in English: `at most 8`, `missing "cpu", which is required`.
 * `subject` is `call` for a rule of the whole call, said on the form.
 */
function ruleEn(r: SchemaRule, subject: 'field' | 'call'): string {
  const p = r.params;
  const shapes = subject === 'call' ? 'the shapes the tool takes' : 'the shapes it may take';
  const said = ((): string => {
    switch (r.keyword) {
      case 'type':
        return `expected ${typesOf(p)
          .map((t) => TYPE_EN[t])
          .join(' or ')}`;
      case 'required':
        return `missing ${json(p.missingProperty)}, which is required`;
      case 'dependentRequired':
      case 'dependencies':
        return `${json(p.missingProperty)} is required when ${json(p.property)} is given`;
      case 'enum':
        return `not one of the choices (${(Array.isArray(p.allowedValues) ? p.allowedValues : []).map((v) => (typeof v === 'string' ? v : json(v))).join(', ')})`;
      case 'const':
        return `must be ${json(p.allowedValue)}`;
      case 'minimum':
        return `at least ${json(p.limit)}`;
      case 'maximum':
        return `at most ${json(p.limit)}`;
      case 'exclusiveMinimum':
        return `more than ${json(p.limit)}`;
      case 'exclusiveMaximum':
        return `less than ${json(p.limit)}`;
      case 'multipleOf':
        return `a multiple of ${json(p.multipleOf)}`;
      case 'minLength':
        return `at least ${json(p.limit)} characters`;
      case 'maxLength':
        return `at most ${json(p.limit)} characters`;
      case 'pattern':
        return `does not match the pattern ${String(p.pattern)}`;
      case 'format':
        return `not a valid ${String(p.format)}`;
      case 'minItems':
        return `at least ${json(p.limit)} items`;
      case 'maxItems':
      case 'additionalItems':
      case 'items':
      case 'unevaluatedItems':
        return `at most ${json(p.limit)} items`;
      case 'uniqueItems': {
        const [a, b] = [Number(p.i), Number(p.j)].sort((x, y) => x - y);
        return `items ${a} and ${b} are the same: each must be different`;
      }
      case 'contains':
        return p.maxContains !== undefined
          ? `holds more than ${json(p.maxContains)} of the items it asks for`
          : `holds fewer than ${json(p.minContains ?? 1)} of the items it asks for`;
      case 'minProperties':
        return `at least ${json(p.limit)} properties`;
      case 'maxProperties':
        return `at most ${json(p.limit)} properties`;
      case 'additionalProperties':
        return `has ${json(p.additionalProperty)}, which it does not take`;
      case 'unevaluatedProperties':
        return `has ${json(p.unevaluatedProperty)}, which it does not take`;
      case 'propertyNames':
        return `the name ${json(p.propertyName)} is not taken`;
      case 'anyOf':
        return `does not fit any of ${shapes} (anyOf)`;
      case 'oneOf':
        return Array.isArray(p.passingSchemas)
          ? `fits more than one of ${shapes}, and must fit exactly one (oneOf)`
          : `does not fit any of ${shapes} (oneOf)`;
      case 'not':
        return 'is what it must not be (not)';
      case 'false schema':
        return 'takes no value here';
      default:
        return `does not fit the schema (${r.keyword})`;
    }
  })();
  if (r.path !== '$') return `${r.path}: ${said}`;
  if (subject === 'field') return said;
  return VERBS.has(r.keyword) ? `the call ${said}` : `the call: ${said}`;
}

/** Rules whose words read after "the call" as a sentence: the others follow it with a colon. */
const VERBS = new Set(['anyOf', 'oneOf', 'not']);

/** The same in Chinese: `应至多为 8`、`缺少必填的 "cpu"`. */
function ruleZh(r: SchemaRule, subject: 'field' | 'call'): string {
  const p = r.params;
  const shapes = subject === 'call' ? '该工具接受的任何一种形式' : '它接受的任何一种形式';
  const said = ((): string => {
    switch (r.keyword) {
      case 'type':
        return `应为${typesOf(p)
          .map((t) => TYPE_ZH[t])
          .join('或')}`;
      case 'required':
        return `缺少必填的 ${json(p.missingProperty)}`;
      case 'dependentRequired':
      case 'dependencies':
        return `给出 ${json(p.property)} 时也必须给出 ${json(p.missingProperty)}`;
      case 'enum':
        return `不是可选的值之一（${(Array.isArray(p.allowedValues) ? p.allowedValues : []).map((v) => (typeof v === 'string' ? v : json(v))).join('、')}）`;
      case 'const':
        return `应为 ${json(p.allowedValue)}`;
      case 'minimum':
        return `应至少为 ${json(p.limit)}`;
      case 'maximum':
        return `应至多为 ${json(p.limit)}`;
      case 'exclusiveMinimum':
        return `应大于 ${json(p.limit)}`;
      case 'exclusiveMaximum':
        return `应小于 ${json(p.limit)}`;
      case 'multipleOf':
        return `应为 ${json(p.multipleOf)} 的倍数`;
      case 'minLength':
        return `至少 ${json(p.limit)} 个字符`;
      case 'maxLength':
        return `最多 ${json(p.limit)} 个字符`;
      case 'pattern':
        return `与模式 ${String(p.pattern)} 不匹配`;
      case 'format':
        return `不是有效的 ${String(p.format)}`;
      case 'minItems':
        return `至少 ${json(p.limit)} 项`;
      case 'maxItems':
      case 'additionalItems':
      case 'items':
      case 'unevaluatedItems':
        return `最多 ${json(p.limit)} 项`;
      case 'uniqueItems': {
        const [a, b] = [Number(p.i), Number(p.j)].sort((x, y) => x - y);
        return `第 ${a} 项和第 ${b} 项相同：每项都必须不同`;
      }
      case 'contains':
        return p.maxContains !== undefined
          ? `所要求的项多于 ${json(p.maxContains)} 个`
          : `所要求的项少于 ${json(p.minContains ?? 1)} 个`;
      case 'minProperties':
        return `至少 ${json(p.limit)} 个属性`;
      case 'maxProperties':
        return `最多 ${json(p.limit)} 个属性`;
      case 'additionalProperties':
        return `含有不接受的属性 ${json(p.additionalProperty)}`;
      case 'unevaluatedProperties':
        return `含有不接受的属性 ${json(p.unevaluatedProperty)}`;
      case 'propertyNames':
        return `不接受名称 ${json(p.propertyName)}`;
      case 'anyOf':
        return `不符合${shapes}（anyOf）`;
      case 'oneOf':
        return Array.isArray(p.passingSchemas)
          ? '符合不止一种形式，而只能恰好符合一种（oneOf）'
          : `不符合${shapes}（oneOf）`;
      case 'not':
        return '是不接受的值（not）';
      case 'false schema':
        return '这里不接受任何值';
      default:
        return `不符合模式（${r.keyword}）`;
    }
  })();
  if (r.path !== '$') return `${r.path}：${said}`;
  if (subject === 'field') return said;
  return VERBS.has(r.keyword) ? `这次调用${said}` : `这次调用：${said}`;
}

/**
 * How a question's line in the chat says it stands: its `ElicitationData.status`, except that an
 * answered one says what the person did (accepted: `answered`; `declined`; `cancelled`).
 */
export type QuestionState = ElicitationData['status'] | 'declined' | 'cancelled';

/** The state a question's line shows (`PageTexts.questionStatus` has its words). */
export function questionState(q: Pick<ElicitationData, 'status' | 'action'>): QuestionState {
  if (q.status !== 'answered') return q.status;
  return q.action === 'accept' ? 'answered' : q.action === 'decline' ? 'declined' : 'cancelled';
}

/**
 * Every word of the page chrome (the question dialogs have `@elicitkit/react`'s labels). One
 * table per locale, each checked against this interface, so a missing key does not compile.
 */
export interface PageTexts {
  title: string;
  connecting: string;
  notConnected: string;
  noModel: string;
  model: (name: string) => string;
  testConnection: string;
  testing: string;
  connectionOk: (ms: number) => string;
  noModelToTest: string;
  auditTrail: string;
  backToChat: string;
  language: string;
  newChat: string;
  jumpToLatest: string;
  welcome: [before: string, you: string, after: string];
  tryCommands: string;
  message: string;
  placeholderModel: string;
  send: string;
  stop: string;
  serverGone: string;
  tools: string;
  loadingTools: string;
  toolsFailed: string;
  optional: string;
  choose: string;
  leaveEmpty: string;
  call: (tool: string) => string;
  /** Under a tools panel field typed as JSON: what it takes (`undefined`: any JSON). */
  jsonField: (types: JsonType[] | undefined) => string;
  /** On a tools panel field whose text cannot be sent (nothing is). */
  fieldProblem: (problem: FieldProblem) => string;
  /** On a tools panel form whose call breaks a rule of the whole schema no field breaks alone (nothing is sent). */
  callProblem: (rules: SchemaRule[]) => string;
  /** On a tools panel form whose schema check could not be loaded (nothing is sent). */
  checkUnavailable: (reason: string) => string;
  toolBadge: string;
  running: string;
  /** A URL question the person consented to: the call waits for them to finish on the page. */
  waitingOn: (host: string) => string;
  reopenLink: string;
  giveUp: string;
  /** A call the chat stopped before its result came: it has none. */
  stopped: string;
  asked: string;
  askedToOpen: (host: string) => string;
  /** A question the chat declined without showing it (`data-refusal`): why. */
  refused: (refusal: RefusalData) => string;
  /** A tool result after such a decline: the person did not decline, the chat did. */
  declinedUnseen: string;
  /** A question's line: how it stands (`questionState`). */
  questionStatus: Record<QuestionState, string>;
  /** A tool call's result: how it ended. A new `Status` does not compile until every table names it. */
  resultStatus: Record<Status, string>;
  /**
   * What the person reads for a call that ended by their own doing (or for want of an answer)
   * instead of the server's text, which is written for the model ("Do not ask again…").
   */
  personal: Partial<Record<Status, string>>;
  /** The label of the model's own text, kept folded under the person's. */
  toldTheModel: string;
  answerRefused: (status: number) => string;
  answerNotSent: (reason: string) => string;
  /** A question no answer can carry (`FormPrompt.unanswerable`): why, and that it may be declined or cancelled. */
  unanswerable: (found: Unanswerable[]) => string;
  noLongerOpen: string;
  retry: string;
  retryNote: string;
  /** Under a call refused for its arguments: the tool's form opens, the arguments to fix marked. */
  retryArgumentsNote: string;
  /** Under an invalid call that a later call of the same tool has done since. */
  retryDone: string;
  identity: string;
  identityNote: string;
  localOwner: string;
  nowActingAs: (user: string) => string;
}

const EN: PageTexts = {
  title: 'Elicitkit chat',
  connecting: 'Connecting…',
  notConnected: 'Not connected',
  noModel: 'No model configured — use the tools panel or /tool commands',
  model: (name) => `Model: ${name}`,
  testConnection: 'Test connection',
  testing: 'Testing…',
  connectionOk: (ms) => `The model endpoint answered (${ms} ms).`,
  noModelToTest: 'No model is configured: set OPENAI_API_KEY or OPENAI_BASE_URL, and ELICITKIT_MODEL.',
  auditTrail: 'Audit trail',
  backToChat: '← Back to the chat',
  language: 'Language',
  newChat: 'New chat',
  jumpToLatest: 'Jump to latest ↓',
  welcome: [
    'Ask for a deploy and watch the server ask ',
    'you',
    ' — not the model — which environment and which release ticket.',
  ],
  tryCommands: 'Try',
  message: 'Message',
  placeholderModel: 'Ask for a deploy, a report…',
  send: 'Send',
  stop: 'Stop',
  serverGone: 'The chat server did not answer. Is `npm start` still running?',
  tools: 'Tools',
  loadingTools: 'Loading tools…',
  toolsFailed: 'Could not load the tools.',
  optional: '(optional)',
  choose: 'choose…',
  leaveEmpty: '(leave empty: the tool may ask)',
  call: (tool) => `Call ${tool}`,
  jsonField: (types) => `JSON: ${types ? types.map((t) => TYPE_EN[t]).join(' or ') : 'any value'}`,
  fieldProblem: (p) => {
    switch (p.is) {
      case 'not-a-number':
        return 'not a number: write it as JSON does (12, -0.5, 1e3). Nothing was sent.';
      case 'not-whole':
        return 'a whole number is asked for. Nothing was sent.';
      case 'not-json':
        return `not valid JSON (${p.detail}). Nothing was sent.`;
      case 'not-as-typed':
        return `${p.path === '$' ? '' : `${p.path}: `}${notAsTypedIn('en', p.reason)}. Nothing was sent.`;
      case 'wrong-type':
        return `expected ${p.types.map((t) => TYPE_EN[t]).join(' or ')}. Nothing was sent.`;
      case 'not-a-choice':
        return `not one of the choices (${p.choices.join(', ')}). Nothing was sent.`;
      case 'required':
        return `required: ${p.choose ? 'choose one' : 'fill it in'}. Nothing was sent.`;
      case 'schema':
        return `${p.rules.map((r) => ruleEn(r, 'field')).join('; ')}. Nothing was sent.`;
    }
  },
  callProblem: (rules) => `${rules.map((r) => ruleEn(r, 'call')).join('; ')}. Nothing was sent.`,
  checkUnavailable: (reason) =>
    `The call could not be checked against the tool's schema (${reason}), so nothing was sent. Is the app still running? Try again.`,
  toolBadge: 'tool',
  running: 'running…',
  waitingOn: (host) => `Waiting for you on ${host}`,
  reopenLink: 'Reopen link',
  giveUp: 'Give up',
  stopped: 'Stopped: no result.',
  asked: 'asked',
  askedToOpen: (host) => `asked you to open ${host}`,
  refused: (refusal) =>
    refusal.reason === 'rate-limit'
      ? `not shown: it asked more than ${refusal.limit?.max ?? 'its limit of'} questions within ${minutes(refusal.limit?.perMs)}, so this chat declined it for you`
      : 'not shown: the form asks for a password or key, which this chat does not take, so it declined it for you',
  declinedUnseen: 'This chat declined the question without showing it to you (see above), so nothing was done.',
  questionStatus: {
    open: 'waiting for your answer…',
    expired: 'no answer in time: the tool was told it timed out',
    withdrawn: 'withdrawn by the server',
    gone: 'no longer open',
    answered: 'answered',
    declined: 'declined',
    cancelled: 'cancelled',
  },
  resultStatus: {
    done: 'done',
    declined: 'declined',
    cancelled: 'cancelled',
    unsupported: 'unsupported',
    invalid: 'invalid',
    rejected: 'rejected',
    timeout: 'timed out',
    pending: 'pending',
  },
  personal: {
    declined: 'You declined, so nothing was done.',
    cancelled: 'Cancelled: nothing was done.',
    timeout: 'No answer came in time, so nothing was done.',
    unsupported: 'The question could not be shown here, so nothing was done.',
    pending:
      'This call has ended while the page waits for you: what you do there happens there, and the rest of this step runs only if it is asked for again once you have finished.',
  },
  toldTheModel: 'What the assistant was told',
  answerRefused: (status) => `The answer was refused (${status}).`,
  answerNotSent: (reason) => `The answer could not be sent: ${reason}`,
  unanswerable: (found) =>
    `This question cannot be answered as sent: ${found
      .map((u) => `${UNANSWERABLE_EN[u.where]} “${u.field}” holds half of a character`)
      .join(
        '; ',
      )}, which no answer can carry (a lone UTF-16 surrogate, shown as \uFFFD). Decline it or cancel it: the server is told which.`,
  noLongerOpen: 'This question is no longer open (the page was reloaded or the server forgot it).',
  retry: 'Fix and retry',
  retryNote: 'Runs the same call again; the form opens with your previous answers.',
  retryArgumentsNote: 'Opens the tool’s form with these arguments, the ones to fix marked.',
  retryDone: 'Done since, by a later call.',
  identity: 'Acting as',
  identityNote: 'A demo switch, not authentication: opsdesk applies this user’s permissions.',
  localOwner: 'local owner',
  nowActingAs: (user) => `From now on opsdesk acts as ${user} (a demo switch, not authentication).`,
};

const ZH: PageTexts = {
  title: 'Elicitkit 对话',
  connecting: '连接中…',
  notConnected: '未连接',
  noModel: '未配置模型 —— 请使用工具面板或 /工具 命令',
  model: (name) => `模型：${name}`,
  testConnection: '测试连接',
  testing: '测试中…',
  connectionOk: (ms) => `模型端点已响应（${ms} 毫秒）。`,
  noModelToTest: '未配置模型：请设置 OPENAI_API_KEY 或 OPENAI_BASE_URL，以及 ELICITKIT_MODEL。',
  auditTrail: '审计记录',
  backToChat: '← 返回对话',
  language: '语言',
  newChat: '新对话',
  jumpToLatest: '跳到最新 ↓',
  welcome: ['请求一次部署，看服务器如何直接询问', '你', '（而不是模型）：部署到哪个环境、用哪个发布单。'],
  tryCommands: '试试',
  message: '消息',
  placeholderModel: '请求部署、生成周报…',
  send: '发送',
  stop: '停止',
  serverGone: '对话服务器没有响应。`npm start` 还在运行吗？',
  tools: '工具',
  loadingTools: '正在加载工具…',
  toolsFailed: '无法加载工具。',
  optional: '（可选）',
  choose: '请选择…',
  leaveEmpty: '（留空：工具可能会询问）',
  call: (tool) => `调用 ${tool}`,
  jsonField: (types) => `JSON：${types ? types.map((t) => TYPE_ZH[t]).join('或') : '任意值'}`,
  fieldProblem: (p) => {
    switch (p.is) {
      case 'not-a-number':
        return '不是数字：请按 JSON 的写法填写（12、-0.5、1e3）。未发送任何请求。';
      case 'not-whole':
        return '应为整数。未发送任何请求。';
      case 'not-json':
        return `不是有效的 JSON（${p.detail}）。未发送任何请求。`;
      case 'not-as-typed':
        return `${p.path === '$' ? '' : `${p.path}：`}${notAsTypedIn('zh', p.reason)}。未发送任何请求。`;
      case 'wrong-type':
        return `应为${p.types.map((t) => TYPE_ZH[t]).join('或')}。未发送任何请求。`;
      case 'not-a-choice':
        return `不是可选的值之一（${p.choices.join('、')}）。未发送任何请求。`;
      case 'required':
        return `必填：${p.choose ? '请选择一项' : '请填写'}。未发送任何请求。`;
      case 'schema':
        return `${p.rules.map((r) => ruleZh(r, 'field')).join('；')}。未发送任何请求。`;
    }
  },
  callProblem: (rules) => `${rules.map((r) => ruleZh(r, 'call')).join('；')}。未发送任何请求。`,
  checkUnavailable: (reason) =>
    `无法按工具的模式检查这次调用（${reason}），因此未发送任何请求。应用还在运行吗？请再试一次。`,
  toolBadge: '工具',
  running: '运行中…',
  waitingOn: (host) => `正在等你在 ${host} 上完成`,
  reopenLink: '重新打开链接',
  giveUp: '放弃',
  stopped: '已停止：没有结果。',
  asked: '提问',
  askedToOpen: (host) => `请你打开 ${host}`,
  refused: (refusal) =>
    refusal.reason === 'rate-limit'
      ? `未显示：它在 ${minutesZh(refusal.limit?.perMs)}内提问超过 ${refusal.limit?.max ?? '上限'} 次，本对话已代你拒绝`
      : '未显示：表单要求输入密码或密钥，本对话不接收这类内容，已代你拒绝',
  declinedUnseen: '本对话未向你显示这个问题就代你拒绝了（见上方），因此没有执行任何操作。',
  questionStatus: {
    open: '等待你的回答…',
    expired: '未在时限内回答：已告知工具超时',
    withdrawn: '服务器已撤回',
    gone: '已不再开放',
    answered: '已回答',
    declined: '已拒绝',
    cancelled: '已取消',
  },
  resultStatus: {
    done: '完成',
    declined: '已拒绝',
    cancelled: '已取消',
    unsupported: '不支持',
    invalid: '无效',
    rejected: '被拒绝',
    timeout: '超时',
    pending: '进行中',
  },
  personal: {
    declined: '你已拒绝，因此没有执行任何操作。',
    cancelled: '已取消：没有执行任何操作。',
    timeout: '未在时限内收到回答，因此没有执行任何操作。',
    unsupported: '这个问题无法在此显示，因此没有执行任何操作。',
    pending:
      '此次调用已结束，页面仍在等你完成：你在页面上做的在页面上生效，这一步余下的部分要在你完成后再次发起才会执行。',
  },
  toldTheModel: '告知助手的内容',
  answerRefused: (status) => `回答被拒绝（${status}）。`,
  answerNotSent: (reason) => `回答未能发送：${reason}`,
  unanswerable: (found) =>
    `这个问题无法按原样回答：${found
      .map((u) => `字段“${u.field}”的${UNANSWERABLE_ZH[u.where]}含有半个字符`)
      .join(
        '；',
      )}，任何回答都无法携带它（孤立的 UTF-16 代理项，显示为 \uFFFD）。请拒绝或取消它：服务器会得知你的选择。`,
  noLongerOpen: '这个问题已不再开放（页面已重新加载，或服务器已不再等待）。',
  retry: '修改后重试',
  retryNote: '再次执行同一调用；表单会预填你上次的回答。',
  retryArgumentsNote: '打开该工具的表单，预填这些参数，并标出需要修改的参数。',
  retryDone: '之后的一次调用已完成。',
  identity: '当前身份',
  identityNote: '演示用切换，不是身份验证：opsdesk 会按此用户的权限执行。',
  localOwner: '本机所有者',
  nowActingAs: (user) => `此后 opsdesk 以 ${user} 的身份执行（演示用切换，不是身份验证）。`,
};

export const PAGE_TEXTS = { en: EN, zh: ZH } as const satisfies Record<Locale, PageTexts>;

/** The words for a question's line: how it stands. */
export function questionStatusText(texts: PageTexts, q: Pick<ElicitationData, 'status' | 'action'>): string {
  return texts.questionStatus[questionState(q)];
}

/** What the person reads for a result with `status`, when it is theirs to read rather than the server's text. */
export function personalText(texts: PageTexts, status: string | undefined): string | undefined {
  return status !== undefined && Object.hasOwn(texts.personal, status) ? texts.personal[status as Status] : undefined;
}

/** The label of a result status; an unknown status (another server's) is shown as sent. */
export function resultStatusText(texts: PageTexts, status: string): string {
  return Object.hasOwn(texts.resultStatus, status) ? texts.resultStatus[status as Status] : status;
}
