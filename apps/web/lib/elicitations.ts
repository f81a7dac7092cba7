import { createRegistryRenderer, type FormAnswer, type Prompt, type Renderer, type UrlAnswer } from '@elicitkit/client';
import { applyDefaults, validate } from '@elicitkit/form';
import { config } from './config';
import { type Chat, state } from './state';
import type { ElicitationData } from './wire';

/** Writes (or rewrites, by id) the question's data part into the chat stream. */
function show(chat: Chat, data: ElicitationData): void {
  chat.questions.set(data.id, data);
  state().owners.set(data.id, chat.id);
  chat.writer?.write({ type: 'data-elicitation', id: data.id, data });
}

/**
 * The renderer behind each of a chat's MCP connections: a question becomes a pending entry
 * owned by this chat and a data part in its chat stream; it settles when the person answers
 * through `POST /api/elicitations/{id}`, when it expires, or when the server withdraws it.
 */
export function chatRenderer(chat: Chat, server: string): Renderer {
  const { registry } = state();
  const timeoutMs = config().questionTimeoutMs;
  let current: string | undefined;
  const inner = createRegistryRenderer({
    registry,
    owner: chat.id,
    timeoutMs,
    publish: (id: string, prompt: Prompt) => {
      if (!chat.writer) throw new Error('no chat is open to show the question in');
      current = id;
      const now = Date.now();
      show(chat, { id, server, status: 'open', prompt, publishedAt: now, expiresAt: now + timeoutMs });
    },
  });
  const settle = (answer: FormAnswer | UrlAnswer, signal: AbortSignal) => {
    const id = current;
    const data = id ? chat.questions.get(id) : undefined;
    if (data?.status !== 'open') return;
    const answered = chat.answered.get(data.id);
    show(
      chat,
      answered
        ? { ...data, status: 'answered', action: answered }
        : { ...data, status: signal.aborted ? 'withdrawn' : 'expired', action: answer.action },
    );
  };
  return {
    ...inner,
    async renderForm(prompt, signal) {
      const answer = await inner.renderForm(prompt, signal);
      settle(answer, signal);
      return answer;
    },
    async renderUrl(prompt, signal) {
      const answer = await inner.renderUrl(prompt, signal);
      settle(answer, signal);
      return answer;
    },
  };
}

export type AnswerResult =
  | { status: 200; body: { ok: true } }
  | { status: 400; body: { error: string; issues?: unknown[] } }
  | { status: 403 | 404 | 409 | 410; body: { error: string } };

/** Checks and delivers one answer; the HTTP status says why when it cannot. */
export async function answer(chat: Chat, id: string, body: unknown): Promise<AnswerResult> {
  const question = chat.questions.get(id);
  const { registry, owners } = state();
  if (!question) {
    return owners.has(id)
      ? { status: 403, body: { error: 'This question belongs to another chat.' } }
      : { status: 404, body: { error: 'There is no question with this id.' } };
  }
  if (typeof body !== 'object' || body === null)
    return { status: 400, body: { error: 'The answer must be a JSON object.' } };
  const { action, content } = body as { action?: unknown; content?: unknown };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return { status: 400, body: { error: '"action" must be accept, decline or cancel.' } };
  }
  let clean: Record<string, unknown> | undefined;
  if (action === 'accept' && question.prompt.mode === 'form') {
    const result = validate(question.prompt.schema, applyDefaults(question.prompt.schema, content ?? {}));
    if (!result.ok) return { status: 400, body: { error: 'The answer does not fit the form.', issues: result.issues } };
    clean = result.value;
  } else if (content !== undefined) {
    return {
      status: 400,
      body: { error: action === 'accept' ? 'A URL consent carries no content.' : `A ${action} carries no content.` },
    };
  }
  if (question.status !== 'open')
    return { status: 409, body: { error: `This question was already ${question.status}.` } };
  chat.answered.set(id, action);
  const resolved = await registry.resolve(
    id,
    chat.id,
    action === 'accept' ? (clean ? { action, content: clean as never } : { action }) : { action },
  );
  switch (resolved) {
    case 'ok':
      return { status: 200, body: { ok: true } };
    case 'already-answered':
      return { status: 409, body: { error: 'This question was already answered.' } };
    case 'expired':
      chat.answered.delete(id);
      return { status: 410, body: { error: 'This question expired and was treated as cancelled.' } };
    case 'forbidden':
      chat.answered.delete(id);
      return { status: 403, body: { error: 'This question belongs to another chat.' } };
    case 'unknown':
      chat.answered.delete(id);
      return { status: 404, body: { error: 'There is no open question with this id.' } };
  }
}
