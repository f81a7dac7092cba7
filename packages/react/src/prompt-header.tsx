import type { FormPrompt, UrlPrompt } from '@elicitkit/client';
import type { Labels } from './labels.js';
import { formatClock, messageParts, plain } from './text.js';
import type { TimeLeft } from './use-time-left.js';

interface PromptHeaderProps {
  prompt: FormPrompt | UrlPrompt;
  labels: Labels;
  headingId: string;
  messageId: string;
  time: TimeLeft;
  /** The name the host knows the server by: who asks, before the name the server claims. */
  source?: string | undefined;
}

/** Who asks (the protocol asks clients to show which server is asking), what, and how long is left. */
export function PromptHeader({ prompt, labels, headingId, messageId, time, source }: PromptHeaderProps) {
  const { server } = prompt;
  const who =
    source !== undefined ? plain(source) : server ? plain(server.title ?? server.name) : labels.unidentifiedServer;
  return (
    <header className="ek-header">
      <div className="ek-header-row">
        <h2 id={headingId} className="ek-title">
          {prompt.mode === 'url' ? labels.asksToOpen(who) : labels.asks(who)}
        </h2>
        {time.msLeft !== undefined && !time.expired && (
          // The clock differs between a server render and the browser by design.
          <p role="timer" className="ek-time" suppressHydrationWarning>
            {labels.timeLeft(formatClock(time.msLeft))}
          </p>
        )}
      </div>
      {server && (
        <p className="ek-server">
          <span className="ek-server-name">{plain(server.name)}</span>{' '}
          <span className="ek-server-version">v{plain(server.version)}</span>
        </p>
      )}
      {time.expired && (
        <p role="alert" className="ek-expired">
          {labels.expired}
        </p>
      )}
      <div id={messageId} className="ek-message">
        {messageParts(prompt.message).map((part, i) =>
          part.code ? (
            // Lines meant to be read column by column (a diff): monospace, as they were sent.
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts are the message's, in its order.
            <pre key={i} className="ek-code">
              {plain(part.text)}
            </pre>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: as above.
            <p key={i}>{plain(part.text)}</p>
          ),
        )}
      </div>
    </header>
  );
}
