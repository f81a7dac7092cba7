'use client';

import type { Answer } from '@elicitkit/client';
import type { FormContent, Issue } from '@elicitkit/form';
import { ElicitationForm, LABELS_EN, LABELS_ZH, plainText, UrlConsent } from '@elicitkit/react';
import { useEffect, useId, useRef, useState } from 'react';
import type { Locale } from '../lib/locale';
import type { ElicitationData } from '../lib/wire';
import { localExpiresAt } from './deadline';
import type { PageTexts } from './texts';

const LABELS = { en: LABELS_EN, zh: LABELS_ZH } as const satisfies Record<Locale, typeof LABELS_EN>;

/** The open question, in a modal: the form or the URL consent, answered over `POST /api/elicitations/{id}`. */
export function Question({
  question,
  csrf,
  locale,
  texts,
  onSettled,
  onAnswered,
}: {
  /** Told the content of an accepted form answer the server took, for "fix and retry". */
  onAnswered?: (content: FormContent) => void;
  question: ElicitationData;
  csrf: string;
  locale: Locale;
  texts: PageTexts;
  onSettled: (note: string | null) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [issues, setIssues] = useState<Issue[] | undefined>(undefined);
  const labels = LABELS[locale];

  // The form shows every default and sends what the person left: a cleared default is not put back.
  // Whether the server took the answer: a page's link opens only then (<UrlConsent>'s onOpen), and
  // a form whose answer was not taken (400, not sent) can be answered again (<ElicitationForm>).
  const send = async (answer: Answer, applyDefaults?: false): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      const response = await fetch(`/api/elicitations/${encodeURIComponent(question.id)}`, {
        method: 'POST',
        // The page's language: a refusal (already answered, withdrawn, invalid) is told in it.
        headers: { 'content-type': 'application/json', 'x-elicitkit-csrf': csrf, 'x-elicitkit-locale': locale },
        body: JSON.stringify(applyDefaults === false ? { ...answer, applyDefaults } : answer),
      });
      const body = (await response.json().catch(() => ({}))) as { error?: string; issues?: Issue[] };
      if (response.ok) {
        if (answer.action === 'accept' && answer.content) onAnswered?.(answer.content);
        onSettled(null);
        return true;
      }
      // Refused, the question still open (an answer the server judged, a body it could not read or
      // too large, too many at once, a failure of its own): said here, and the form answerable again.
      if (response.status === 400 || response.status === 413 || response.status === 429 || response.status >= 500) {
        setIssues(body.issues);
        setError(body.error ?? texts.answerRefused(response.status));
        return false;
      }
      // 403 / 404 / 409 / 410: the question is gone (or not this page's); close and say why in the chat.
      onSettled(body.error ?? texts.answerRefused(response.status));
      return false;
    } catch (e) {
      setError(texts.answerNotSent(e instanceof Error ? e.message : String(e)));
      return false;
    } finally {
      setBusy(false);
    }
  };

  // A question no answer can carry (half a character in a field's name or a choice): said up
  // front, and only decline and cancel offered — a form would be filled in and never sent.
  if (question.prompt.mode === 'form' && (question.prompt.unanswerable?.length ?? 0) > 0)
    return (
      <Unanswerable
        question={question}
        labels={labels}
        texts={texts}
        busy={busy}
        {...(error ? { error } : {})}
        onDecline={() => send({ action: 'decline' })}
        onCancel={() => send({ action: 'cancel' })}
      />
    );
  // Both components bring their own modal dialog (focus trap, Esc = cancel).
  return question.prompt.mode === 'form' ? (
    <ElicitationForm
      prompt={question.prompt}
      source={question.server}
      expiresAt={localExpiresAt(question)}
      labels={labels}
      busy={busy}
      {...(error ? { error } : {})}
      {...(issues ? { serverIssues: issues } : {})}
      onSubmit={(content) => send({ action: 'accept', content }, false)}
      onDecline={() => send({ action: 'decline' })}
      onCancel={() => send({ action: 'cancel' })}
    />
  ) : (
    <UrlConsent
      prompt={question.prompt}
      source={question.server}
      expiresAt={localExpiresAt(question)}
      labels={labels}
      {...(error ? { error } : {})}
      onOpen={() => send({ action: 'accept' })}
      onDecline={() => send({ action: 'decline' })}
      onCancel={() => send({ action: 'cancel' })}
    />
  );
}

/**
 * A question that cannot be answered as sent, in a modal dialog (the browser's own: focus kept
 * inside, Esc = cancel): who asks, what, why no answer can carry it, and Decline / Cancel. One
 * answer: a press while one is on its way, or after it was taken, does nothing.
 */
function Unanswerable({
  question,
  labels,
  texts,
  busy,
  error,
  onDecline,
  onCancel,
}: {
  question: ElicitationData;
  labels: typeof LABELS_EN;
  texts: PageTexts;
  busy: boolean;
  error?: string;
  onDecline: () => Promise<boolean>;
  onCancel: () => Promise<boolean>;
}) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const id = useId();
  const answering = useRef(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const answer = async (how: () => Promise<boolean>) => {
    if (busy || answering.current) return;
    answering.current = true;
    // Not taken (the POST failed): it may be answered again.
    if (!(await how())) answering.current = false;
  };
  const prompt = question.prompt;
  const found = prompt.mode === 'form' ? (prompt.unanswerable ?? []) : [];
  return (
    // The backdrop carries the dialogs' colours (`@elicitkit/react`'s styles); the dialog is modal itself.
    <div className="ek-backdrop">
      <dialog
        ref={ref}
        className="ek-dialog unanswerable"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-message ${id}-why`}
        data-unanswerable=""
        onCancel={(event) => {
          // Esc: the question is cancelled, as in every question's dialog (the page closes it when settled).
          event.preventDefault();
          void answer(onCancel);
        }}
      >
        <header className="ek-header">
          <h2 id={`${id}-title`} className="ek-title">
            {labels.asks(plainText(question.server))}
          </h2>
          <div id={`${id}-message`} className="ek-message">
            <p>{plainText(prompt.message)}</p>
          </div>
        </header>
        <p id={`${id}-why`} className="ek-notice ek-danger" role="alert">
          {plainText(texts.unanswerable(found))}
        </p>
        {error ? (
          <p className="ek-error" role="alert">
            {plainText(error)}
          </p>
        ) : null}
        <div className="ek-actions">
          <button type="button" className="ek-button" disabled={busy} onClick={() => void answer(onDecline)}>
            {labels.decline}
          </button>
          <button type="button" className="ek-button ek-quiet" disabled={busy} onClick={() => void answer(onCancel)}>
            {labels.cancel}
          </button>
        </div>
      </dialog>
    </div>
  );
}
