'use client';
import type { UrlPrompt } from '@elicitkit/client';
import { useId, useRef, useState } from 'react';
import { ElicitationDialog } from './elicitation-dialog.js';
import { LABELS_EN, type Labels } from './labels.js';
import { answerWith } from './one-answer.js';
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
  /**
   * The person chose Open: record (send) the accept here. The link is opened only once the accept
   * is taken — when this returns, or when the promise it returns resolves — and never when it
   * answers `false` or rejects: the dialog can then be answered again (say why in `error`).
   *
   * Each handler may return `false` (the answer was not taken) or a promise (the answer being
   * sent) that resolves `false` or rejects when it was not taken; anything else counts as taken.
   */
  onOpen: () => unknown;
  onDecline: () => unknown;
  /** Also Esc. */
  onCancel: () => unknown;
  /** A failure to show, e.g. the answer did not go through. */
  error?: string;
  /**
   * Whether the dialog opens the link itself once the accept is taken (default true). Pass false
   * when something else opens it afterwards (`createDomRenderer` leaves it to its opener).
   */
  opensLink?: boolean;
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
 * Enter never opens), Open and Cancel (Esc). One answer per link: the first of Open, Decline,
 * Cancel or Esc is the answer, and every later press is ignored while it is being sent and once it
 * was taken (a double click sends one accept and opens one tab; a Decline never lets an Open
 * through). The link opens only after the accept was taken (see `onOpen`), with
 * `noopener,noreferrer`; nothing here fetches or prefetches it, and it is not a clickable anchor.
 * A new link given to a mounted dialog is a new question: nothing chosen for the old one carries
 * over, and Decline has the focus again. A link that is not https or http (a prompt built without
 * the client's checks) is never opened.
 *
 * @example
 * <UrlConsent
 *   prompt={part.prompt}
 *   expiresAt={part.expiresAt}
 *   onOpen={() => answer({ action: 'accept' })} // a promise: the link opens once it resolves
 *   onDecline={() => answer({ action: 'decline' })}
 *   onCancel={() => answer({ action: 'cancel' })}
 * />
 */
export function UrlConsent(props: UrlConsentProps) {
  // Keyed by the link: a new link remounts the dialog, so no answer or focus carries over to it.
  return <Consent key={`${props.prompt.elicitationId ?? ''} ${props.prompt.url}`} {...props} />;
}

/** Where the dialog's one answer is: not chosen yet, being sent, or taken. */
type Answering = 'asking' | 'sending' | 'answered';

function Consent(props: UrlConsentProps) {
  const { prompt } = props;
  const labels = props.labels ?? LABELS_EN;
  const id = useId();
  const time = useTimeLeft(props.expiresAt);
  const declineRef = useRef<HTMLButtonElement>(null);
  // The ref answers a second press in the same event loop turn, before React has drawn the first.
  const answering = useRef<Answering>('asking');
  const [shown, setShown] = useState<Answering>('asking');
  const { url, host } = prompt;
  // A host that is not where the prompt says is not highlighted at all: never highlight the wrong part.
  const at = url.startsWith(host, prompt.hostIndex) && host !== '' ? prompt.hostIndex : -1;
  const openable = isWebUrl(url);

  const answer = (handler: () => unknown, taken?: () => void) => {
    if (answering.current !== 'asking') return;
    const settle = (ok: boolean) => {
      answering.current = ok ? 'answered' : 'asking';
      setShown(answering.current);
      if (ok) taken?.();
    };
    answering.current = 'sending';
    setShown('sending');
    answerWith(handler, settle);
  };

  const open = () => {
    if (!openable || time.expired) return;
    answer(props.onOpen, () => {
      if (props.opensLink === false) return;
      try {
        (props.view ?? window).open(url, '_blank', 'noopener,noreferrer');
      } catch {
        // A sandbox may forbid new tabs; consent stands and the full URL is on screen to copy.
      }
    });
  };
  const decline = () => answer(props.onDecline);
  const cancel = () => answer(props.onCancel);
  const settled = shown !== 'asking';

  return (
    <ElicitationDialog
      onCancel={cancel}
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
              <mark className="ek-host">{siteInHost(host, prompt.site)}</mark>
              <span className="ek-url-rest">{plain(url.slice(at + host.length))}</span>
            </>
          )}
        </code>
        {prompt.site !== undefined && (
          <p className="ek-site-line">
            {labels.site}:{' '}
            <strong className="ek-site" dir="ltr">
              {plain(prompt.site)}
            </strong>
          </p>
        )}
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
      {props.error && (
        <p role="alert" className="ek-notice ek-danger">
          {props.error}
        </p>
      )}
      <p className="ek-note">{labels.urlNote}</p>
      <div className="ek-actions" aria-busy={shown === 'sending'}>
        <button ref={declineRef} type="button" className="ek-button" disabled={settled} onClick={decline}>
          {labels.decline}
        </button>
        <button
          type="button"
          className="ek-button ek-primary"
          disabled={settled || time.expired || !openable}
          onClick={open}
        >
          {shown === 'sending' ? labels.sending : labels.open}
        </button>
        <button type="button" className="ek-button ek-quiet" disabled={settled} onClick={cancel}>
          {labels.cancel}
        </button>
      </div>
    </ElicitationDialog>
  );
}

/**
 * The host with its registrable domain (who owns the page) standing out, when the host ends with
 * it at a label boundary (before a trailing dot or the port); else the host as it is.
 */
function siteInHost(host: string, site: string | undefined) {
  if (site === undefined || site === '') return plain(host);
  const port = /:\d*$/.exec(host)?.[0] ?? '';
  const name = host.slice(0, host.length - port.length);
  const end = name.endsWith('.') ? name.length - 1 : name.length;
  const start = end - site.length;
  if (start < 0 || name.slice(start, end) !== site || (start > 0 && name[start - 1] !== '.')) return plain(host);
  return (
    <>
      {plain(name.slice(0, start))}
      <strong className="ek-site-part">{plain(site)}</strong>
      {plain(name.slice(end) + port)}
    </>
  );
}
