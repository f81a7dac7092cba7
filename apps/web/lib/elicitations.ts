import {
  createRegistryRenderer,
  type PendingEntry,
  type Prompt,
  type Renderer,
  type SettleReason,
} from '@elicitkit/client';
import { applyDefaults, validate } from '@elicitkit/form';
import { claimQuestion } from './call-questions';
import { config } from './config';
import { quoted } from './exact-json';
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
    timeoutMs: config().questionTimeoutMs,
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
    settled: (id) => show(chat, id),
  });
}

export type AnswerResult =
  | { status: 200; body: { ok: true } }
  | { status: 400; body: { error: string; issues?: unknown[] } }
  | { status: 403 | 404 | 409 | 410; body: { error: string } };

const GONE: Record<'expired' | 'withdrawn', string> = {
  expired: 'This question expired and was treated as cancelled.',
  // One settlement for every way: the server took it back (its call may go on), or the call or chat ended.
  withdrawn:
    'This question was withdrawn: no answer is awaited any more (its server took it back, or the tool call or chat it belonged to has ended).',
};

/** The keys an answer's body may have. */
const ANSWER_KEYS = new Set(['action', 'content', 'applyDefaults']);

/** Checks and delivers one answer; the HTTP status says why when it cannot. */
export async function answer(chat: Chat, id: string, body: unknown): Promise<AnswerResult> {
  const { registry } = state();
  const entry = await registry.get(id);
  if (!entry) return { status: 404, body: { error: 'There is no question with this id.' } };
  if (entry.owner !== chat.key) return { status: 403, body: { error: 'This question belongs to another chat.' } };
  // A settled question says so whatever the answer holds: a second answer is a 409, not a 400.
  if (entry.settlement) return refusal(entry.settlement.reason);
  const { prompt } = entry.data as QuestionData;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { status: 400, body: { error: 'The answer must be a JSON object.' } };
  // A misspelt key is refused, not ignored: "contents" would leave the answer empty and the form's
  // defaults would stand in for what was sent, "applydefaults": false would put a cleared default back.
  const unknown = Object.keys(body).filter((key) => !ANSWER_KEYS.has(key));
  if (unknown.length > 0)
    return {
      status: 400,
      body: {
        error: `The answer has ${unknown.length === 1 ? 'a field' : 'fields'} it does not take: ${unknown
          .slice(0, 5)
          .map((key) => JSON.stringify(quoted(key)))
          .join(
            ', ',
          )}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}. An answer is {"action", "content"?, "applyDefaults"?}.`,
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
    return { status: 400, body: { error: '"action" must be accept, decline or cancel.' } };
  }
  if (typeof fill !== 'boolean') return { status: 400, body: { error: '"applyDefaults" must be true or false.' } };
  let clean: Record<string, unknown> | undefined;
  if (action === 'accept' && prompt.mode === 'form') {
    // The page shows every default and posts what the person left (applyDefaults: false), so a
    // default they cleared stays cleared; a script may post a partial answer and take the rest.
    // Left out, it is nothing given; given, it is the form's fields — `null` is not "nothing".
    if (content !== undefined && (typeof content !== 'object' || content === null || Array.isArray(content)))
      return { status: 400, body: { error: '"content" must be an object: the fields of the form and their values.' } };
    const given = content ?? {};
    const result = validate(prompt.schema, fill ? applyDefaults(prompt.schema, given) : given);
    if (!result.ok) return { status: 400, body: { error: 'The answer does not fit the form.', issues: result.issues } };
    clean = result.value;
  } else if (content !== undefined) {
    return {
      status: 400,
      body: { error: action === 'accept' ? 'A URL consent carries no content.' : `A ${action} carries no content.` },
    };
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
      return refusal('answered');
    case 'expired': {
      const reason = (await registry.get(id))?.settlement?.reason;
      return refusal(reason === 'withdrawn' ? 'withdrawn' : 'expired');
    }
    case 'forbidden':
      return { status: 403, body: { error: 'This question belongs to another chat.' } };
    case 'unknown':
      return { status: 404, body: { error: 'There is no open question with this id.' } };
  }
}

/**
 * The refusal of an answer to a question of a chat that has ended, sent by that chat's page (`key`
 * from `ownChatKey`): closing withdrew it, so 410 (409 if it was answered first) rather than "No
 * session", which it gets for a question that is not its chat's or has not settled.
 */
export async function answerAfterEnd(key: string, id: string): Promise<AnswerResult | undefined> {
  const entry = await state().registry.get(id);
  if (entry?.owner !== key || !entry.settlement) return undefined;
  return refusal(entry.settlement.reason);
}

/** The refusal of an answer to a question that has settled already, by how it settled. */
function refusal(reason: Exclude<SettleReason, 'unknown'>): AnswerResult {
  switch (reason) {
    case 'answered':
    case 'cancelled':
      return { status: 409, body: { error: 'This question was already answered.' } };
    case 'expired':
    case 'withdrawn':
      return { status: 410, body: { error: GONE[reason] } };
  }
}
