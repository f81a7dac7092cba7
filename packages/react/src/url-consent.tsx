'use client';
import type { UrlPrompt } from '@elicitkit/client';
import { useId, useRef } from 'react';
import { ElicitationDialog } from './elicitation-dialog.js';
import { LABELS_EN, type Labels } from './labels.js';
import { PromptHeader } from './prompt-header.js';
import { plain } from './text.js';
import { useTimeLeft } from './use-time-left.js';
import { isWebUrl } from './web-url.js';

/**
 * Props of `<UrlConsent>`.
 *
 * @example
 * <UrlConsent prompt={prompt} onOpen={accept} onDecline={decline} onCancel={cancel} />
 */
export interface UrlConsentProps {
  prompt: UrlPrompt;
  /** Epoch milliseconds; shows the time left, and disables Open once it has passed. */
  expiresAt?: number;
  /** Called after the link was opened in a new tab: the person consented. */
  onOpen: () => void;
  onDecline: () => void;
  /** Also Esc. */
  onCancel: () => void;
  labels?: Labels;
  /**
   * The name the host knows the asking server by (the name it was configured under), shown as who
   * asks. Without it the name the server gives itself is shown, which any server may claim.
   */
  source?: string;
  /** The window whose `open` is used; default the global `window` (tests and iframes pass their own). */
  view?: Pick<Window, 'open'>;
}

/**
 * Consent to open a URL (the protocol's URL-mode consent): who asks, the full URL with its host highlighted, every
 * warning (look-alike punycode host, plain http, credentials, tokens), then Decline (focused, so
 * Enter never opens), Open and Cancel (Esc). The link is opened only inside the Open click, with
 * `noopener,noreferrer`; nothing here fetches or prefetches it, and it is not a clickable anchor.
 * A link that is not https or http (a prompt built without the client's checks) is never opened.
 *
 * @example
 * <UrlConsent
 *   prompt={part.prompt}
 *   expiresAt={part.expiresAt}
 *   onOpen={() => answer({ action: 'accept' })}
 *   onDecline={() => answer({ action: 'decline' })}
 *   onCancel={() => answer({ action: 'cancel' })}
 * />
 */
export function UrlConsent(props: UrlConsentProps) {
  const { prompt } = props;
  const labels = props.labels ?? LABELS_EN;
  const id = useId();
  const time = useTimeLeft(props.expiresAt);
  const declineRef = useRef<HTMLButtonElement>(null);
  const { url, host } = prompt;
  // A host that is not where the prompt says is not highlighted at all: never highlight the wrong part.
  const at = url.startsWith(host, prompt.hostIndex) && host !== '' ? prompt.hostIndex : -1;
  const openable = isWebUrl(url);

  const open = () => {
    if (!openable) return;
    try {
      (props.view ?? window).open(url, '_blank', 'noopener,noreferrer');
    } catch {
      // A sandbox may forbid new tabs; consent stands and the full URL is on screen to copy.
    }
    props.onOpen();
  };

  return (
    <ElicitationDialog
      onCancel={props.onCancel}
      labelledBy={`${id}-title`}
      describedBy={`${id}-message`}
      initialFocus={declineRef}
      lang={labels.lang}
      className="ek-url-dialog"
    >
      <PromptHeader
        prompt={prompt}
        labels={labels}
        headingId={`${id}-title`}
        messageId={`${id}-message`}
        time={time}
        source={props.source}
      />
      <div className="ek-link">
        <code className="ek-url" dir="ltr">
          {/* plain(): a URL the client read has no bidi controls left; one built by hand may. */}
          {at < 0 ? (
            plain(url)
          ) : (
            <>
              <span className="ek-url-rest">{plain(url.slice(0, at))}</span>
              <mark className="ek-host">{plain(host)}</mark>
              <span className="ek-url-rest">{plain(url.slice(at + host.length))}</span>
            </>
          )}
        </code>
        <p className="ek-host-line">
          {labels.host}:{' '}
          <strong className="ek-host-name" dir="ltr">
            {plain(host)}
          </strong>
        </p>
      </div>
      {!openable && (
        <p role="alert" className="ek-notice ek-danger">
          {labels.notOpenable}
        </p>
      )}
      {prompt.warnings.length > 0 && (
        <div role="alert" className="ek-notice ek-danger">
          <strong className="ek-notice-title">{labels.warningsTitle}</strong>
          <ul>
            {prompt.warnings.map((w) => (
              <li key={`${w.code}:${w.message}`} data-code={w.code}>
                {plain(labels.urlWarning(w.code, w.message))}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="ek-note">{labels.urlNote}</p>
      <div className="ek-actions">
        <button ref={declineRef} type="button" className="ek-button" onClick={props.onDecline}>
          {labels.decline}
        </button>
        <button type="button" className="ek-button ek-primary" disabled={time.expired || !openable} onClick={open}>
          {labels.open}
        </button>
        <button type="button" className="ek-button ek-quiet" onClick={props.onCancel}>
          {labels.cancel}
        </button>
      </div>
    </ElicitationDialog>
  );
}
