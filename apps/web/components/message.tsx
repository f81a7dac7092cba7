'use client';

import { plainText } from '@elicitkit/react';
import type { ChatMessage, ElicitationData, RefusalData, ToolOutput } from '../lib/wire';
import { localExpiresAt } from './deadline';
import { type PageTexts, personalText, questionStatusText, resultStatusText } from './texts';

/** One line per question in the chat: what was asked, by whom, and how it ended. */
function QuestionLine({ q, texts }: { q: ElicitationData; texts: PageTexts }) {
  // Seen now: its dialog counts the time left from here, by this browser's clock.
  localExpiresAt(q);
  const what = q.prompt.mode === 'url' ? texts.askedToOpen(q.prompt.host) : texts.asked;
  return (
    <div
      className={`question-line status-${q.status}`}
      data-question={q.id}
      data-status={q.status}
      data-action={q.action ?? ''}
      data-published-at={q.publishedAt}
    >
      <span className="badge">{q.server}</span> {what}: “
      <span className="question-message">{plainText(q.prompt.message)}</span>” —{' '}
      <strong>{questionStatusText(texts, q)}</strong>
    </div>
  );
}

/** A question the chat declined without showing it: what was asked, by whom, and why it was not shown. */
function RefusalLine({ refusal, texts }: { refusal: RefusalData; texts: PageTexts }) {
  return (
    <div className="question-line status-refused" data-refusal={refusal.reason}>
      <span className="badge">{refusal.server}</span> {texts.asked}: “
      <span className="question-message">{plainText(refusal.message)}</span>” —{' '}
      <strong>{texts.refused(refusal)}</strong>
    </div>
  );
}

/**
 * Whether the tool call at `index` was declined by the chat, not by the person: after it (before the
 * next call) comes a question declined unseen, and no question the person declined.
 */
function declinedUnseen(message: ChatMessage, index: number): boolean {
  let refused = false;
  for (const part of message.parts.slice(index + 1)) {
    if (part.type === 'dynamic-tool') break;
    if (part.type === 'data-refusal') refused = true;
    if (part.type === 'data-elicitation' && part.data.action === 'decline') return false;
  }
  return refused;
}

/**
 * The URL question this message's call waits on: consented to (accepted) and the call still
 * running, so the person is on the page — or undefined.
 */
function waitingOnPage(message: ChatMessage): (ElicitationData & { prompt: { mode: 'url' } }) | undefined {
  const last = message.parts.findLast((p) => p.type === 'data-elicitation');
  const q = last?.type === 'data-elicitation' ? last.data : undefined;
  return q && q.prompt.mode === 'url' && q.status === 'answered' && q.action === 'accept'
    ? (q as ElicitationData & { prompt: { mode: 'url' } })
    : undefined;
}

export function Message({
  message,
  texts,
  extra,
  running = true,
  onGiveUp,
}: {
  message: ChatMessage;
  texts: PageTexts;
  /** Whether the chat's stream is still going: a call without a result after it stopped has none. */
  running?: boolean;
  /** Stops the chat's call (a URL question the person will not finish). */
  onGiveUp?: () => void;
  /** Drawn under a finished tool call (the "fix and retry" action), given the call's part. */
  extra?: (part: Extract<ChatMessage['parts'][number], { type: 'dynamic-tool' }>) => React.ReactNode;
}) {
  return (
    <article className={`message message-${message.role}`}>
      {message.parts.map((part, i) => {
        const key = `${message.id}-${i}`;
        // A text line may quote the server (its tool names, why it is missing), as may the model.
        if (part.type === 'text')
          return (
            <p key={key} className="text">
              {plainText(part.text)}
            </p>
          );
        if (part.type === 'data-elicitation') {
          // "Open" is the last word of a stream that has ended: the server withdrew it with its call.
          const q = !running && part.data.status === 'open' ? { ...part.data, status: 'gone' as const } : part.data;
          return <QuestionLine key={key} q={q} texts={texts} />;
        }
        if (part.type === 'data-refusal') return <RefusalLine key={key} refusal={part.data} texts={texts} />;
        if (part.type === 'dynamic-tool') {
          const output = part.state === 'output-available' ? (part.output as ToolOutput) : undefined;
          const personal =
            output?.status === 'declined' && declinedUnseen(message, i)
              ? texts.declinedUnseen
              : personalText(texts, output?.status);
          return (
            <div
              key={key}
              className="tool-call"
              data-tool={part.toolName}
              data-state={part.state}
              data-status={output?.status ?? ''}
            >
              <div>
                <span className="badge">{texts.toolBadge}</span> <code>{plainText(part.toolName)}</code>{' '}
                <code className="muted">{plainText(JSON.stringify(part.input) ?? '')}</code>
              </div>
              {part.state === 'output-available' ? (
                <div className={`tool-result ${output?.isError ? 'is-error' : ''}`}>
                  {output?.status ? (
                    <span className={`status status-${output.status}`} data-status={output.status}>
                      {resultStatusText(texts, output.status)}
                    </span>
                  ) : null}
                  {personal ? (
                    <>
                      <p className="personal">{personal}</p>
                      <details className="told-model">
                        <summary>{texts.toldTheModel}</summary>
                        <pre>{plainText(output?.text ?? '')}</pre>
                      </details>
                    </>
                  ) : (
                    <pre>{plainText(output?.text ?? '')}</pre>
                  )}
                  {extra?.(part)}
                </div>
              ) : part.state === 'output-error' ? (
                <div className="tool-result is-error">{plainText(part.errorText ?? '')}</div>
              ) : !running ? (
                <div className="muted" data-stopped="">
                  {texts.stopped}
                </div>
              ) : waitingOnPage(message) ? (
                <WaitingOnPage q={waitingOnPage(message) as ElicitationData} texts={texts} onGiveUp={onGiveUp} />
              ) : (
                <div className="muted">{texts.running}</div>
              )}
            </div>
          );
        }
        return null;
      })}
    </article>
  );
}

/** A call waiting for the person to finish on a page they opened: where, the link again, or giving up. */
function WaitingOnPage({
  q,
  texts,
  onGiveUp,
}: {
  q: ElicitationData;
  texts: PageTexts;
  onGiveUp?: (() => void) | undefined;
}) {
  if (q.prompt.mode !== 'url') return null;
  const { url, host } = q.prompt;
  return (
    <div className="waiting-on-page" data-waiting="">
      <span>{texts.waitingOn(host)}</span>{' '}
      <a className="button secondary" href={url} target="_blank" rel="noopener noreferrer">
        {texts.reopenLink}
      </a>{' '}
      {onGiveUp ? (
        <button type="button" className="secondary" onClick={onGiveUp}>
          {texts.giveUp}
        </button>
      ) : null}
    </div>
  );
}
