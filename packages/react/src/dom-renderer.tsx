'use client';
import type { FormAnswer, Renderer, UrlAnswer, UrlPrompt } from '@elicitkit/client';
import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { ElicitationForm } from './elicitation-form.js';
import { LABELS_EN, type Labels } from './labels.js';
import { plain } from './text.js';
import { UrlConsent } from './url-consent.js';
import { isWebUrl } from './web-url.js';

/**
 * Where and how `createDomRenderer` draws.
 *
 * @example
 * createDomRenderer({ container: document.getElementById('questions')!, labels: LABELS_ZH });
 */
export interface DomRendererOptions {
  /** Each question mounts in a fresh element appended here, removed once answered. */
  container: HTMLElement;
  labels?: Labels;
  /** Whose `open` opens consented links; default the container's window. */
  window?: Pick<Window, 'open'>;
}

const OPEN_FEATURES = 'noopener,noreferrer';

/**
 * A `Renderer` for `@elicitkit/client` running in the page: each question mounts an
 * `<ElicitationForm>` or `<UrlConsent>` into `container` with its own React root, resolves with
 * the person's answer and unmounts; when the signal aborts (withdrawn, timed out) it unmounts and
 * answers cancel. A render error rejects, which `attach` answers as cancel and reports.
 *
 * The Open click gives consent and no more: the link is opened by the renderer's `opener`, which
 * `attach` calls once it has taken the accept (after the click, in the same turn, so the browser
 * still counts it as the person's gesture), and never for a question withdrawn meanwhile. An
 * `opener` given to `attach` replaces it.
 *
 * Once a 2025-11-25 link was accepted, a notice in `container` says to finish on that page, and
 * turns to "finished" when the server says so (`notifications/elicitation/complete`); its Close
 * removes it either way, for a server that never says.
 *
 * @example
 * import { attach } from '@elicitkit/client';
 * const renderer = createDomRenderer({ container: document.body });
 * attach(client, { renderer });
 */
export function createDomRenderer(options: DomRendererOptions): Renderer {
  const { container, labels } = options;
  const view = options.window ?? container.ownerDocument.defaultView;
  if (!view) throw new TypeError('createDomRenderer needs a window: the container belongs to no browsing context.');
  /** Accepted links whose page is being finished, each with the notice that says so. */
  const onPage = new Map<UrlPrompt, () => void>();

  function mount<A extends FormAnswer | UrlAnswer>(
    signal: AbortSignal,
    cancelled: A,
    draw: (answer: (a: A) => void) => ReactNode,
  ): Promise<A> {
    if (signal.aborted) return Promise.resolve(cancelled);
    return new Promise<A>((resolve, reject) => {
      const host = container.ownerDocument.createElement('div');
      host.className = 'ek-root';
      container.append(host);
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        root.unmount();
        host.remove();
        settle();
      };
      const onAbort = () => finish(() => resolve(cancelled));
      // React reports the error while it is still committing: unmount once it has finished.
      const onUncaughtError = (error: unknown) => queueMicrotask(() => finish(() => reject(error)));
      const root = createRoot(host, { onUncaughtError });
      signal.addEventListener('abort', onAbort, { once: true });
      root.render(draw((answer) => finish(() => resolve(answer))));
    });
  }

  return {
    modes: { form: true, url: true },
    interactive: true,
    // The form's controls start from the defaults: what the person clears is sent cleared.
    prefillsDefaults: true,
    opener: (url) => {
      if (!isWebUrl(url))
        throw new TypeError(
          `Not opening ${JSON.stringify(plain(url).slice(0, 80))}: only https and http links are opened.`,
        );
      view.open(url, '_blank', OPEN_FEATURES);
    },
    renderForm: (prompt, signal) =>
      mount<FormAnswer>(signal, { action: 'cancel' }, (answer) => (
        <ElicitationForm
          prompt={prompt}
          {...(labels ? { labels } : {})}
          onSubmit={(content) => answer({ action: 'accept', content })}
          onDecline={() => answer({ action: 'decline' })}
          onCancel={() => answer({ action: 'cancel' })}
        />
      )),
    renderUrl: async (prompt, signal) => {
      const answer = await mount<UrlAnswer>(signal, { action: 'cancel' }, (answer) => (
        <UrlConsent
          prompt={prompt}
          opensLink={false}
          {...(labels ? { labels } : {})}
          onOpen={() => answer({ action: 'accept' })}
          onDecline={() => answer({ action: 'decline' })}
          onCancel={() => answer({ action: 'cancel' })}
        />
      ));
      // Only a 2025-11-25 question (it has an id) can be told done; the notice has its own Close.
      if (answer.action === 'accept' && prompt.elicitationId !== undefined) onPage.set(prompt, notice(prompt));
      return answer;
    },
    urlCompleted: (prompt) => {
      onPage.get(prompt)?.();
      onPage.delete(prompt);
    },
  };

  /** Shows "finish on the page" for an accepted link; the returned function turns it to "finished". */
  function notice(prompt: UrlPrompt): () => void {
    const host = container.ownerDocument.createElement('div');
    host.className = 'ek-root';
    container.append(host);
    const root = createRoot(host);
    const close = () => {
      onPage.delete(prompt);
      root.unmount();
      host.remove();
    };
    const draw = (finished: boolean) =>
      root.render(<PageNotice prompt={prompt} finished={finished} labels={labels ?? LABELS_EN} onClose={close} />);
    draw(false);
    return () => {
      if (host.isConnected) draw(true);
    };
  }
}

/** Where the person finishes what the link asks, and then that they did; Close ends it either way. */
function PageNotice(props: { prompt: UrlPrompt; finished: boolean; labels: Labels; onClose: () => void }) {
  const { labels } = props;
  const host = plain(props.prompt.host);
  return (
    <div className="ek-page-notice" lang={labels.lang}>
      <p role="status">{props.finished ? labels.finishedOnPage(host) : labels.waitingOnPage(host)}</p>
      <button type="button" className="ek-button ek-quiet" onClick={props.onClose}>
        {labels.close}
      </button>
    </div>
  );
}
