import {
  createRegistryRenderer,
  type PendingEntry,
  type Prompt,
  type Renderer,
  type SettleReason,
} from '@elicitkit/client';
import { applyDefaults, validate } from '@elicitkit/form';
import { claimQuestion, questionSettled } from './call-questions';
import { config } from './config';
import { quoted } from './exact-json';
import type { Locale } from './locale';
import { type Chat, state } from './state';
import type { ElicitationData, RefusalData } from './wire';

/** What the registry keeps with each question of a chat, beside its owner and deadline. */
interface QuestionData {
  server: string;
  prompt: Prompt;
}

/** A registry entry as the page sees it: the question and, once it settled, how. */
export function elicitationData(entry: PendingEntry): ElicitationData {
  const { server, prompt } = entry.data as QuestionData;
  const base = { id: entry.id, server, prompt, publishedAt: entry.openedAt, expiresAt: entry.expiresAt };
  const settlement = entry.settlement;
  switch (settlement?.reason) {
    case undefined:
      return { ...base, status: 'open' };
    case 'answered':
      return { ...base, status: 'answered', action: settlement.answer.action };
    case 'cancelled':
      return { ...base, status: 'answered', action: 'cancel' };
    case 'expired':
    case 'withdrawn':
      return { ...base, status: settlement.reason, action: 'cancel' };
  }
}

/** Writes (or rewrites, by id) the question's data part into the chat stream. */
async function show(chat: Chat, id: string): Promise<void> {
  const entry = await state().registry.get(id);
  if (entry) chat.writer?.write({ type: 'data-elicitation', id, data: elicitationData(entry) });
}

/**
 * Withdraws those of `ids` still open — their tool call has ended, so no answer may reach it — and
 * rewrites their parts now, while the turn's stream is still open to carry them.
 */
export async function withdrawQuestions(chat: Chat, ids: string[]): Promise<void> {
  const { registry } = state();
  for (const id of ids) {
    const entry = await registry.get(id);
    if (!entry || entry.settlement) continue;
    await registry.withdraw(id);
    await show(chat, id);
  }
}

/**
 * Tells the chat about a question `attach` declined without showing it (its policy's rate limit or
 * secret fields): the person sees what was asked and why it was declined for them, rather than a
 * tool result that reads as their own decline.
 */
export function showRefusal(chat: Chat, refusal: RefusalData): void {
  chat.writer?.write({ type: 'data-refusal', data: refusal });
}

/**
 * The renderer behind each of a chat's MCP connections: a question becomes a pending entry
 * owned by this chat and a data part in its chat stream; it settles when the person answers
 * through `POST /api/elicitations/{id}` (on any replica), when it expires, or when the server
 * or its tool call's end withdraws it, and the part is rewritten with how. A question asked
 * while no call of `server` runs is not shown: the call it was asked for has ended.
 */
export function chatRenderer(chat: Chat, server: string): Renderer {
  return createRegistryRenderer({
    registry: state().registry,
    owner: chat.key,
    // From when the question arrived: the servers time it from when they asked. Questions of one
    // connection are shown one at a time; counted from when it was shown, one that waited behind
    // another outlived opsdesk's wait (the page's time + 30 s): the person's answer was taken
    // ('ok', "answered accept") and the call had already ended "no answer arrived".
    timeoutMs: config().questionTimeoutMs,
    timeoutFrom: 'received',
    // answer() has applied the defaults the poster asked for: what reaches the registry is final.
    prefillsDefaults: true,
    data: (prompt): QuestionData => ({ server, prompt }),
    publish: (id) => {
      if (!chat.writer) throw new Error('no chat is open to show the question in');
      // Asked while the chat closes (its calls get a moment to end): nobody may answer it now.
      if (chat.ended) throw new Error('the chat has ended');
      if (!claimQuestion(chat, server, id)) throw new Error('the tool call that asked this question has ended');
      return show(chat, id);
    },
    settled: (id, settlement) => {
      questionSettled(chat, id, settlement.reason);
      return show(chat, id);
    },
  });
}

export type AnswerResult =
  | { status: 200; body: { ok: true } }
  | { status: 400; body: { error: string; issues?: unknown[] } }
  | { status: 403 | 404 | 409 | 410; body: { error: string } };

/** Every sentence the answer route refuses with, in each language of the page. */
const TEXTS: Record<
  Locale,
  {
    noQuestion: string;
    noOpenQuestion: string;
    anotherChat: string;
    answered: string;
    gone: Record<'expired' | 'withdrawn', string>;
    notObject: string;
    unknownKeys: (keys: string[], more: number) => string;
    action: string;
    applyDefaults: string;
    contentNotObject: string;
    doesNotFit: string;
    noContent: (action: 'accept' | 'decline' | 'cancel') => string;
    /** An accept of a question no answer can carry (`FormPrompt.unanswerable`). */
    unanswerable: string;
  }
> = {
  en: {
    noQuestion: 'There is no question with this id.',
    noOpenQuestion: 'There is no open question with this id.',
    anotherChat: 'This question belongs to another chat.',
    answered: 'This question was already answered.',
    gone: {
      expired: 'This question expired and was treated as cancelled.',
      // One settlement for every way: the server took it back (its call may go on), or the call or chat ended.
      withdrawn:
        'This question was withdrawn: no answer is awaited any more (its server took it back, or the tool call or chat it belonged to has ended).',
    },
    notObject: 'The answer must be a JSON object.',
    unknownKeys: (keys, more) =>
      `The answer has ${keys.length + more === 1 ? 'a field' : 'fields'} it does not take: ${keys.join(', ')}${more > 0 ? ` and ${more} more` : ''}. An answer is {"action", "content"?, "applyDefaults"?}.`,
    action: '"action" must be accept, decline or cancel.',
    applyDefaults: '"applyDefaults" must be true or false.',
    contentNotObject: '"content" must be an object: the fields of the form and their values.',
    doesNotFit: 'The answer does not fit the form.',
    unanswerable:
      'This question cannot be answered as sent: it holds half of a character (a lone UTF-16 surrogate) where an answer would have to carry it. Decline it or cancel it.',
    noContent: (action) =>
      action === 'accept' ? 'A URL consent carries no content.' : `A ${action} carries no content.`,
  },
  zh: {
    noQuestion: '没有这个 id 的问题。',
    noOpenQuestion: '没有这个 id 的待回答问题。',
    anotherChat: '这个问题属于另一个对话。',
    answered: '这个问题已经回答过了。',
    gone: {
      expired: '这个问题已过期，按取消处理。',
      withdrawn: '这个问题已撤回：不再等待回答（服务器收回了它，或它所属的工具调用或对话已结束）。',
    },
    notObject: '回答必须是 JSON 对象。',
    unknownKeys: (keys, more) =>
      `回答含有不接受的字段：${keys.join('、')}${more > 0 ? ` 等另外 ${more} 个` : ''}。回答的格式是 {"action", "content"?, "applyDefaults"?}。`,
    action: '"action" 必须是 accept、decline 或 cancel。',
    applyDefaults: '"applyDefaults" 必须是 true 或 false。',
    contentNotObject: '"content" 必须是对象：表单的字段及其值。',
    doesNotFit: '回答不符合表单。',
    unanswerable:
      '这个问题无法按原样回答：它在回答必须携带的地方含有半个字符（孤立的 UTF-16 代理项）。请拒绝或取消它。',
    noContent: (action) => (action === 'accept' ? '打开网址的同意不带内容。' : `${action} 不带内容。`),
  },
};

/** The keys an answer's body may have. */
const ANSWER_KEYS = new Set(['action', 'content', 'applyDefaults']);

/** Checks and delivers one answer; the HTTP status says why when it cannot, in the page's `locale`. */
export async function answer(chat: Chat, id: string, body: unknown, locale: Locale = 'en'): Promise<AnswerResult> {
  const say = TEXTS[locale];
  const { registry } = state();
  const entry = await registry.get(id);
  if (!entry) return { status: 404, body: { error: say.noQuestion } };
  if (entry.owner !== chat.key) return { status: 403, body: { error: say.anotherChat } };
  // A settled question says so whatever the answer holds: a second answer is a 409, not a 400.
  if (entry.settlement) return refusal(entry.settlement.reason, locale);
  const { prompt } = entry.data as QuestionData;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { status: 400, body: { error: say.notObject } };
  // A misspelt key is refused, not ignored: "contents" would leave the answer empty and the form's
  // defaults would stand in for what was sent, "applydefaults": false would put a cleared default back.
  const unknown = Object.keys(body).filter((key) => !ANSWER_KEYS.has(key));
  if (unknown.length > 0)
    return {
      status: 400,
      body: {
        error: say.unknownKeys(
          unknown.slice(0, 5).map((key) => JSON.stringify(quoted(key))),
          Math.max(0, unknown.length - 5),
        ),
      },
    };
  const {
    action,
    content,
    applyDefaults: fill = true,
  } = body as {
    action?: unknown;
    content?: unknown;
    applyDefaults?: unknown;
  };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return { status: 400, body: { error: say.action } };
  }
  if (typeof fill !== 'boolean') return { status: 400, body: { error: say.applyDefaults } };
  // No answer can carry what it asks for (half a character in a field's name or a choice): only
  // decline and cancel settle it, as the page offers.
  if (action === 'accept' && prompt.mode === 'form' && (prompt.unanswerable?.length ?? 0) > 0)
    return { status: 400, body: { error: say.unanswerable } };
  let clean: Record<string, unknown> | undefined;
  if (action === 'accept' && prompt.mode === 'form') {
    // The page shows every default and posts what the person left (applyDefaults: false), so a
    // default they cleared stays cleared; a script may post a partial answer and take the rest.
    // Left out, it is nothing given; given, it is the form's fields — `null` is not "nothing".
    if (content !== undefined && (typeof content !== 'object' || content === null || Array.isArray(content)))
      return { status: 400, body: { error: say.contentNotObject } };
    const given = content ?? {};
    const result = validate(prompt.schema, fill ? applyDefaults(prompt.schema, given) : given);
    if (!result.ok) return { status: 400, body: { error: say.doesNotFit, issues: result.issues } };
    clean = result.value;
  } else if (content !== undefined) {
    return { status: 400, body: { error: say.noContent(action) } };
  }
  const resolved = await registry.resolve(
    id,
    chat.key,
    action === 'accept' ? (clean ? { action, content: clean as never } : { action }) : { action },
  );
  switch (resolved) {
    case 'ok':
      return { status: 200, body: { ok: true } };
    case 'already-answered':
      return refusal('answered', locale);
    case 'expired': {
      const reason = (await registry.get(id))?.settlement?.reason;
      return refusal(reason === 'withdrawn' ? 'withdrawn' : 'expired', locale);
    }
    case 'forbidden':
      return { status: 403, body: { error: say.anotherChat } };
    case 'unknown':
      return { status: 404, body: { error: say.noOpenQuestion } };
  }
}

/**
 * The refusal of an answer to a question of a chat that has ended, sent by that chat's page (`key`
 * from `ownChatKey`): closing withdrew it, so 410 (409 if it was answered first) rather than "No
 * session", which it gets for a question that is not its chat's or has not settled.
 */
export async function answerAfterEnd(
  key: string,
  id: string,
  locale: Locale = 'en',
): Promise<AnswerResult | undefined> {
  const entry = await state().registry.get(id);
  if (entry?.owner !== key || !entry.settlement) return undefined;
  return refusal(entry.settlement.reason, locale);
}

/** The refusal of an answer to a question that has settled already, by how it settled. */
function refusal(reason: Exclude<SettleReason, 'unknown'>, locale: Locale): AnswerResult {
  switch (reason) {
    case 'answered':
    case 'cancelled':
      return { status: 409, body: { error: TEXTS[locale].answered } };
    case 'expired':
    case 'withdrawn':
      return { status: 410, body: { error: TEXTS[locale].gone[reason] } };
  }
}
