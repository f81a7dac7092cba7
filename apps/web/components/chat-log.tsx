'use client';

import { plainText } from '@elicitkit/react';
import type { RefObject } from 'react';
import type { ChatMessage, ToolOutput } from '../lib/wire';
import { type ArgumentFix, doneSince, refusedArguments } from './fix-retry';
import { Message } from './message';
import type { PageTexts } from './texts';
import type { Note } from './use-notes';

/**
 * The chat column: why the page has no chat (if so), the welcome (before the first message), the
 * messages with "fix and retry" under an invalid call (the same call again with its answers filled
 * in; for arguments refused, the tool's form with them marked; inactive once a later call of the
 * tool is done), the page's notes and the model's error;
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
  onFix,
  busy,
  onStop,
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
  /** Opens the tool's form with a refused call's arguments, those to fix marked. */
  onFix: (fix: Omit<ArgumentFix, 'nonce'>) => void;
  /** Whether the chat's stream is still going (a call without a result after it stopped has none). */
  busy: boolean;
  /** Stops the chat's call ("Give up" on a page the person will not finish). */
  onStop: () => void;
  /** Newer content is below the view (`useStickToBottom`). */
  unseen: boolean;
  onJump: () => void;
}) {
  const fixed = doneSince(messages);
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
            running={busy && m.id === messages.at(-1)?.id}
            onGiveUp={onStop}
            extra={(part) => {
              const output = part.state === 'output-available' ? (part.output as ToolOutput | undefined) : undefined;
              if (output?.status !== 'invalid') return null;
              const done = fixed.has(part.toolCallId);
              const refused = refusedArguments(output);
              const args = (part.input ?? {}) as Record<string, unknown>;
              return (
                <div className="retry" data-done={done ? '' : undefined}>
                  <button
                    type="button"
                    className="secondary"
                    disabled={!canRetry || done}
                    onClick={() =>
                      refused
                        ? onFix({ tool: part.toolName, args, marked: refused })
                        : onRetry(`/${part.toolName} ${JSON.stringify(args)}`)
                    }
                  >
                    {texts.retry}
                  </button>{' '}
                  <span className="muted small">
                    {done ? texts.retryDone : refused ? texts.retryArgumentsNote : texts.retryNote}
                  </span>
                </div>
              );
            }}
          />
        ))}
        {notes.map((n) => (
          <p key={n.id} className={n.info ? 'info-note' : 'note'} role={n.info ? undefined : 'alert'}>
            {n.text}
          </p>
        ))}
        {error ? (
          <p className="error" role="alert" data-model-error="">
            {/* A turn's error may quote the server (a tool it could not read). */}
            {plainText(error.message)}
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
