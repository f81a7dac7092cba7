'use client';

import type { ChatMessage, ElicitationData, ToolOutput } from '../lib/wire';

const OUTCOME: Record<string, string> = {
  accept: 'answered',
  decline: 'declined',
  cancel: 'cancelled',
};

/** One line per question in the chat: what was asked, by whom, and how it ended. */
function QuestionLine({ q }: { q: ElicitationData }) {
  const what = q.prompt.mode === 'url' ? `asked you to open ${q.prompt.host}` : 'asked';
  const outcome =
    q.status === 'open'
      ? 'waiting for your answer…'
      : q.status === 'expired'
        ? 'no answer in time: treated as cancelled'
        : q.status === 'withdrawn'
          ? 'withdrawn by the server'
          : (OUTCOME[q.action ?? ''] ?? q.status);
  return (
    <div
      className={`question-line status-${q.status}`}
      data-question={q.id}
      data-status={q.status}
      data-action={q.action ?? ''}
      data-published-at={q.publishedAt}
    >
      <span className="badge">{q.server}</span> {what}: “{q.prompt.message}” — <strong>{outcome}</strong>
    </div>
  );
}

export function Message({ message }: { message: ChatMessage }) {
  return (
    <article className={`message message-${message.role}`}>
      {message.parts.map((part, i) => {
        const key = `${message.id}-${i}`;
        if (part.type === 'text')
          return (
            <p key={key} className="text">
              {part.text}
            </p>
          );
        if (part.type === 'data-elicitation') return <QuestionLine key={key} q={part.data} />;
        if (part.type === 'dynamic-tool') {
          const output = part.state === 'output-available' ? (part.output as ToolOutput) : undefined;
          return (
            <div
              key={key}
              className="tool-call"
              data-tool={part.toolName}
              data-state={part.state}
              data-status={output?.status ?? ''}
            >
              <div>
                <span className="badge">tool</span> <code>{part.toolName}</code>{' '}
                <code className="muted">{JSON.stringify(part.input)}</code>
              </div>
              {part.state === 'output-available' ? (
                <div className={`tool-result ${output?.isError ? 'is-error' : ''}`}>
                  {output?.status ? <span className={`status status-${output.status}`}>{output.status}</span> : null}
                  <pre>{output?.text}</pre>
                </div>
              ) : part.state === 'output-error' ? (
                <div className="tool-result is-error">{part.errorText}</div>
              ) : (
                <div className="muted">running…</div>
              )}
            </div>
          );
        }
        return null;
      })}
    </article>
  );
}
