'use client';

import type { Answer } from '@elicitkit/client';
import type { FormContent, Issue } from '@elicitkit/form';
import { ElicitationForm, LABELS_EN, LABELS_ZH, UrlConsent } from '@elicitkit/react';
import { useState } from 'react';
import type { Locale } from '../lib/locale';
import type { ElicitationData } from '../lib/wire';
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
      if (response.status === 400 && body.issues) {
        setIssues(body.issues);
        setError(body.error);
        return false;
      }
      // 404 / 409 / 410: the question is gone; close and say why in the chat.
      onSettled(body.error ?? texts.answerRefused(response.status));
      return false;
    } catch (e) {
      setError(texts.answerNotSent(e instanceof Error ? e.message : String(e)));
      return false;
    } finally {
      setBusy(false);
    }
  };

  // Both components bring their own modal dialog (focus trap, Esc = cancel).
  return question.prompt.mode === 'form' ? (
    <ElicitationForm
      prompt={question.prompt}
      source={question.server}
      expiresAt={question.expiresAt}
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
      expiresAt={question.expiresAt}
      labels={labels}
      {...(error ? { error } : {})}
      onOpen={() => send({ action: 'accept' })}
      onDecline={() => send({ action: 'decline' })}
      onCancel={() => send({ action: 'cancel' })}
    />
  );
}
