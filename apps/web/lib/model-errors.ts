import {
  APICallError,
  InvalidToolInputError,
  JSONParseError,
  NoSuchToolError,
  RetryError,
  TypeValidationError,
} from 'ai';
import type { Locale } from './locale';

/** What went wrong talking to the model endpoint, decided from error classes, status codes and error codes. */
export type ModelProblemKind =
  | 'unreachable'
  | 'unauthorized'
  | 'unknown-model'
  | 'timeout'
  | 'rate-limited'
  | 'endpoint-error'
  | 'other';

/** The environment variable that fixes it. */
export type ModelVariable = 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'ELICITKIT_MODEL';

export interface ModelProblem {
  kind: ModelProblemKind;
  variable?: ModelVariable;
  /** HTTP status or system error code, when there is one (shown as detail, never matched). */
  detail?: string;
}

const VARIABLE: Record<ModelProblemKind, ModelVariable | undefined> = {
  unreachable: 'OPENAI_BASE_URL',
  unauthorized: 'OPENAI_API_KEY',
  'unknown-model': 'ELICITKIT_MODEL',
  timeout: 'OPENAI_BASE_URL',
  'rate-limited': undefined,
  'endpoint-error': undefined,
  other: undefined,
};

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The error and its causes (fetch wraps the socket's error; retries wrap the last attempt). */
function* chain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current);
    yield current;
    if (RetryError.isInstance(current)) current = current.lastError;
    else if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
}

/** OpenAI-style `{"error":{"code":"model_not_found"}}`: a code, not prose. */
function errorCodeOf(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; type?: unknown } };
    const code = parsed.error?.code ?? parsed.error?.type;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

function problem(kind: ModelProblemKind, detail?: string): ModelProblem {
  const variable = VARIABLE[kind];
  return { kind, ...(variable ? { variable } : {}), ...(detail ? { detail } : {}) };
}

/**
 * Classifies an error from the AI SDK's provider call: refused or unresolvable connection → the
 * base URL; 401/403 → the key; 404 or `model_not_found` → the model; timeouts; 429; 5xx.
 *
 * @example
 * classifyModelError(error); // { kind: 'unauthorized', variable: 'OPENAI_API_KEY', detail: '401' }
 */
export function classifyModelError(error: unknown): ModelProblem {
  for (const e of chain(error)) {
    if (APICallError.isInstance(e) && e.statusCode !== undefined) {
      const status = e.statusCode;
      const code = errorCodeOf(e.responseBody);
      if (code === 'model_not_found' || status === 404) return problem('unknown-model', code ?? String(status));
      if (status === 401 || status === 403) return problem('unauthorized', String(status));
      if (status === 408) return problem('timeout', String(status));
      if (status === 429) return problem('rate-limited', String(status));
      return problem(status >= 500 ? 'endpoint-error' : 'other', String(status));
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return problem('unreachable', code);
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return problem('timeout', code);
    if (e instanceof Error && e.name === 'TimeoutError') return problem('timeout', e.name);
  }
  return problem('other');
}

type Explain = (p: ModelProblem, endpoint: { baseURL: string; model: string }) => string;

const fix = (p: ModelProblem, en: boolean) =>
  p.variable ? (en ? ` Fix: set ${p.variable} and restart.` : ` 修正：设置 ${p.variable} 后重启。`) : '';

/** One table per locale: every kind must have its sentence in each. */
const EXPLAIN: Record<Locale, Record<ModelProblemKind, Explain>> = {
  en: {
    unreachable: (p, m) =>
      `The model endpoint ${m.baseURL} cannot be reached (${p.detail}): nothing listens there or the name does not resolve.${fix(p, true)}`,
    unauthorized: (p, m) => `The model endpoint ${m.baseURL} refused the API key (HTTP ${p.detail}).${fix(p, true)}`,
    'unknown-model': (p, m) =>
      `The model "${m.model}" is not known at ${m.baseURL} (${p.detail}).${fix(p, true)} If the model is right, check that OPENAI_BASE_URL ends in the API's base path (often /v1).`,
    timeout: (p, m) => `The model endpoint ${m.baseURL} did not answer in time (${p.detail}).${fix(p, true)}`,
    'rate-limited': (_p, m) =>
      `The model endpoint ${m.baseURL} is rate-limiting this key (HTTP 429): wait and try again.`,
    'endpoint-error': (p, m) =>
      `The model endpoint ${m.baseURL} failed (HTTP ${p.detail}): try again, or check the server.`,
    other: (p, m) =>
      `The model call to ${m.baseURL} failed${p.detail ? ` (HTTP ${p.detail})` : ''}. Check OPENAI_BASE_URL, OPENAI_API_KEY and ELICITKIT_MODEL.`,
  },
  zh: {
    unreachable: (p, m) =>
      `无法连接模型端点 ${m.baseURL}（${p.detail}）：该地址无人监听或域名无法解析。${fix(p, false)}`,
    unauthorized: (p, m) => `模型端点 ${m.baseURL} 拒绝了 API 密钥（HTTP ${p.detail}）。${fix(p, false)}`,
    'unknown-model': (p, m) =>
      `模型端点 ${m.baseURL} 不认识模型 "${m.model}"（${p.detail}）。${fix(p, false)}若模型名无误，请检查 OPENAI_BASE_URL 是否以 API 基础路径（通常为 /v1）结尾。`,
    timeout: (p, m) => `模型端点 ${m.baseURL} 未在时限内响应（${p.detail}）。${fix(p, false)}`,
    'rate-limited': (_p, m) => `模型端点 ${m.baseURL} 正在限流此密钥（HTTP 429）：请稍后重试。`,
    'endpoint-error': (p, m) => `模型端点 ${m.baseURL} 出错（HTTP ${p.detail}）：请重试或检查该服务。`,
    other: (p, m) =>
      `调用模型端点 ${m.baseURL} 失败${p.detail ? `（HTTP ${p.detail}）` : ''}。请检查 OPENAI_BASE_URL、OPENAI_API_KEY 和 ELICITKIT_MODEL。`,
  },
};

/**
 * The sentence the page shows for a model problem, naming the variable to fix.
 *
 * @example
 * explainModelProblem(classifyModelError(error), { baseURL, model }, 'en');
 */
export function explainModelProblem(
  p: ModelProblem,
  endpoint: { baseURL: string; model: string },
  locale: Locale,
): string {
  return EXPLAIN[locale][p.kind](p, endpoint);
}

/** One table per locale: a tool call the model got wrong, in its own words rather than the endpoint's. */
const TOOL_MISTAKE: Record<
  Locale,
  { noSuchTool: (tool: string, tools: string[]) => string; badInput: (tool: string, why: string) => string }
> = {
  en: {
    noSuchTool: (tool, tools) =>
      `The model called a tool that does not exist: "${tool}". Its tools: ${tools.join(', ') || 'none'}.`,
    badInput: (tool, why) => `The model called ${tool} with arguments that are not valid: ${why}`,
  },
  zh: {
    noSuchTool: (tool, tools) => `模型调用了不存在的工具："${tool}"。可用的工具：${tools.join('、') || '无'}。`,
    badInput: (tool, why) => `模型调用 ${tool} 时给出的参数无效：${why}`,
  },
};

/** Arguments the AI SDK could not parse as JSON, said without quoting them. */
const NOT_JSON: Record<Locale, string> = {
  en: 'they are not JSON the chat can read (malformed, cut short, or nested too deep).',
  zh: '它们不是可读取的 JSON（格式错误、被截断或嵌套过深）。',
};

/**
 * The sentence for a tool call the model itself got wrong (a tool nobody offered, arguments that
 * are not JSON), decided by the AI SDK's error classes; undefined for any other error. The
 * endpoint worked: its variables are not what to fix.
 *
 * @example
 * explainToolCallMistake(error, 'en') ?? explainModelProblem(classifyModelError(error), model, 'en');
 */
export function explainToolCallMistake(error: unknown, locale: Locale): string | undefined {
  if (NoSuchToolError.isInstance(error))
    return TOOL_MISTAKE[locale].noSuchTool(error.toolName, error.availableTools ?? []);
  if (InvalidToolInputError.isInstance(error)) {
    // A check that refused the input is wrapped by the SDK: its own words are in the cause.
    const why = TypeValidationError.isInstance(error.cause) ? error.cause.cause : error.cause;
    // The SDK's parse error quotes the whole text it could not read (and, for JSON nested
    // thousands of levels deep, its own stack overflow): said in a sentence instead.
    if (JSONParseError.isInstance(why)) return TOOL_MISTAKE[locale].badInput(error.toolName, NOT_JSON[locale]);
    const said = why instanceof Error ? why.message : String(why);
    return TOOL_MISTAKE[locale].badInput(error.toolName, said.length > 300 ? `${said.slice(0, 300)}…` : said);
  }
  return undefined;
}
