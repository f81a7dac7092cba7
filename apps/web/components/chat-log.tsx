'use client';

import type { RefObject } from 'react';
import type { ChatMessage } from '../lib/wire';
import { Message } from './message';
import type { PageTexts } from './texts';
import type { Note } from './use-notes';

/**
 * The chat column: why the page has no chat (if so), the welcome (before the first message), the
 * messages with "fix and retry" under an invalid call, the page's notes and the model's error;
 * then "jump to latest" while newer content is out of view.
 */
export function ChatLog({
  scrollRef,
  texts,
  fatal,
  messages,
  notes,
  error,
  canRetry,
  onRetry,
  unseen,
  onJump,
}: {
  scrollRef: RefObject<HTMLElement | null>;
  texts: PageTexts;
  fatal: string | null;
  messages: ChatMessage[];
  notes: Note[];
  error: Error | undefined;
  canRetry: boolean;
  /** Runs `command` again as a retry (its form pre-filled with the last answer). */
  onRetry: (command: string) => void;
  /** Newer content is below the view (`useStickToBottom`). */
  unseen: boolean;
  onJump: () => void;
}) {
  return (
    <>
      <main className="chat" aria-live="polite" ref={scrollRef}>
        {fatal ? (
          <p className="error" role="alert">
            {fatal}
          </p>
        ) : null}
        {messages.length === 0 ? (
          <div className="welcome">
            <p>
              {texts.welcome[0]}
              <em>{texts.welcome[1]}</em>
              {texts.welcome[2]}
            </p>
            <p className="muted">
              {texts.tryCommands} <code>/deploy_service service=order-service</code>,{' '}
              <code>/execute_sql {'{"sql":"DELETE FROM order_items"}'}</code>, <code>/register_user</code>.
            </p>
          </div>
        ) : null}
        {messages.map((m) => (
          <Message
            key={m.id}
            message={m}
            texts={texts}
            extra={(part) =>
              part.state === 'output-available' &&
              (part.output as { status?: string } | undefined)?.status === 'invalid' ? (
                <div className="retry">
                  <button
                    type="button"
                    className="secondary"
                    disabled={!canRetry}
                    onClick={() => onRetry(`/${part.toolName} ${JSON.stringify(part.input ?? {})}`)}
                  >
                    {texts.retry}
                  </button>{' '}
                  <span className="muted small">{texts.retryNote}</span>
                </div>
              ) : null
            }
          />
        ))}
        {notes.map((n) => (
          <p key={n.id} className={n.info ? 'info-note' : 'note'} role={n.info ? undefined : 'alert'}>
            {n.text}
          </p>
        ))}
        {error ? (
          <p className="error" role="alert" data-model-error="">
            {error.message}
          </p>
        ) : null}
      </main>
      {unseen ? (
        <button type="button" className="jump-to-latest" onClick={onJump}>
          {texts.jumpToLatest}
        </button>
      ) : null}
    </>
  );
}
