'use client';
import type { FormPrompt } from '@elicitkit/client';
import type { FormContent, Issue } from '@elicitkit/form';
import { type FormEvent, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { ElicitationDialog } from './elicitation-dialog.js';
import { showsRequired } from './field-parts.js';
import { FieldView } from './field-view.js';
import { LABELS_EN, type Labels } from './labels.js';
import { Findings, Refusal, SecretWarning, Unanswerable } from './notices.js';
import { answerWith } from './one-answer.js';
import { PromptHeader } from './prompt-header.js';
import { useAfterPress } from './use-after-press.js';
import { tabbables } from './use-focus-trap.js';
import { useFormState } from './use-form-state.js';
import { useTimeLeft } from './use-time-left.js';

/**
 * Props of `<ElicitationForm>`.
 *
 * @example
 * <ElicitationForm prompt={prompt} expiresAt={expiresAt} onSubmit={send} onDecline={decline} onCancel={cancel} />
 */
export interface ElicitationFormProps {
  prompt: FormPrompt;
  /** Epoch milliseconds; shows the time left, and disables Submit once it has passed. */
  expiresAt?: number;
  /**
   * Called only with content that passed the form's validator: what the controls hold (they start
   * from the defaults; a default the person cleared is left out).
   *
   * Each handler gives the question's one answer. It may return `false` (the answer was not
   * taken) or a promise (the answer being sent) that resolves `false` or rejects when it was not
   * taken: the form can then be answered again. Anything else counts as taken, until the host
   * shows a new `error` or new `serverIssues` (the answer was refused) or a new prompt; and when
   * the handler returns nothing, until a `busy` the host set ends with the question still drawn.
   */
  onSubmit: (content: FormContent) => unknown;
  onDecline: () => unknown;
  /** Also Esc. */
  onCancel: () => unknown;
  /** The answer is on its way: every action (Submit, Decline, Cancel, Esc, Enter) waits. */
  busy?: boolean;
  /** A failure to show, e.g. the POST did not go through. A new one makes the form answerable again. */
  error?: string;
  /**
   * Problems from the server's validation (a 400), shown under the fields they name until edited.
   * New ones make the form answerable again.
   */
  serverIssues?: readonly Issue[];
  labels?: Labels;
  /**
   * The name the host knows the asking server by (the name it was configured under), shown as who
   * asks. Without it the name the server gives itself is shown, which any server may claim.
   */
  source?: string;
}

/**
 * The form of an elicitation in a modal dialog: who asks, the question, warnings (secrets, lint
 * findings), every field drawn from the `@elicitkit/form` field model with defaults (or the
 * previous answer) pre-filled, inline validation by the form's own validator, and Submit /
 * Decline / Cancel (Esc). Only valid content ever reaches `onSubmit`.
 *
 * One answer per question: the first of Submit (or Enter in a field), Decline, Cancel or Esc is
 * the answer; while it is on its way (the handler's promise, or `busy`) every button is disabled,
 * and once it was taken every later press is ignored (a double click on Submit sends once, a
 * Decline after Submit sends nothing). See `onSubmit` for how a host says it was not taken. A
 * question is known by what it asks and who asks (`source`, the server, message, schema, attempt):
 * the same prompt rebuilt as a new object is the same question, answered still; a host that gets
 * the very same question again as another request draws it with another React `key`.
 *
 * @example
 * <ElicitationForm
 *   prompt={part.prompt}
 *   expiresAt={part.expiresAt}
 *   busy={sending}
 *   serverIssues={issues}
 *   onSubmit={(content) => answer({ action: 'accept', content })}
 *   onDecline={() => answer({ action: 'decline' })}
 *   onCancel={() => answer({ action: 'cancel' })}
 * />
 */
export function ElicitationForm(props: ElicitationFormProps) {
  const { prompt, busy = false, serverIssues } = props;
  const labels = props.labels ?? LABELS_EN;
  const id = useId();
  const state = useFormState(prompt, serverIssues, props.source);
  const time = useTimeLeft(props.expiresAt);
  const afterPress = useAfterPress();
  const formRef = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState(0);
  // Unticked confirmations stop the first Submit with a warning; the next Submit sends as it is.
  const { warned } = state;
  const secret = new Set(prompt.secretFields);
  // The question's one answer: not given yet, on its way, or taken. The ref answers a second press
  // in the same turn, before React has drawn the first; the state draws the buttons.
  const answering = useRef<Answering>('asking');
  const [shown, setShown] = useState<Answering>('asking');
  const reopen = useCallback(() => {
    answering.current = 'asking';
    setShown('asking');
  }, []);
  // A new question, or the host showing a refusal (a new error or new issues), is answerable again.
  // Both compare by what they say: a host drawing the same prompt or the same list anew each
  // render (a chat re-creating its message parts while it streams) reopens nothing — a question
  // answered stays answered.
  const refusal = JSON.stringify([props.error ?? null, serverIssues ?? null]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are what reopen it
  useLayoutEffect(reopen, [state.question, refusal]);
  // A handler that said nothing (returned neither false nor a promise) leaves the answer's fate to
  // a host that drives `busy`: its sending over and the question still drawn, it was not taken.
  const wasBusy = useRef(busy);
  useLayoutEffect(() => {
    if (wasBusy.current && !busy && answering.current === 'assumed') reopen();
    wasBusy.current = busy;
  }, [busy, reopen]);
  const waiting = busy || shown !== 'asking';

  /** Gives the answer through `handler`, unless one was already given. */
  const answer = (handler: () => unknown) => {
    if (busy || answering.current !== 'asking') return;
    const settle = (taken: boolean, said = true) => {
      answering.current = taken ? (said ? 'answered' : 'assumed') : 'asking';
      setShown(answering.current);
    };
    answering.current = 'sending';
    setShown('sending');
    answerWith(handler, settle);
  };
  const decline = () => answer(props.onDecline);
  const cancel = () => answer(props.onCancel);

  // After a refused Submit, focus goes to the first field that needs fixing.
  useEffect(() => {
    if (refusals === 0 || !formRef.current) return;
    const field = formRef.current.querySelector<HTMLElement>('[data-invalid]');
    if (field) tabbables(field)[0]?.focus();
  }, [refusals]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || answering.current !== 'asking' || time.expired) return;
    const content = state.submit();
    if (!content) return setRefusals((n) => n + 1);
    const unticked = prompt.fields.filter((f) => f.kind === 'boolean' && f.confirmation && content[f.name] !== true);
    if (unticked.length > 0 && warned === 0) {
      state.warn(unticked.length);
      const first = formRef.current?.elements.namedItem(unticked[0]?.name ?? '');
      if (first instanceof HTMLElement) first.focus();
      return;
    }
    answer(() => props.onSubmit(content));
  };

  const refused = (serverIssues?.length ?? 0) > 0 || (prompt.issues?.length ?? 0) > 0;
  const unanswerable = (prompt.unanswerable?.length ?? 0) > 0;
  const declineOrCancel = (
    <>
      <button type="button" className="ek-button" disabled={waiting} onClick={decline}>
        {labels.decline}
      </button>
      <button type="button" className="ek-button ek-quiet" disabled={waiting} onClick={cancel}>
        {labels.cancel}
      </button>
    </>
  );
  return (
    <ElicitationDialog
      onCancel={cancel}
      labelledBy={`${id}-title`}
      describedBy={`${id}-message`}
      lang={labels.lang}
      className="ek-form-dialog"
    >
      <PromptHeader
        prompt={prompt}
        labels={labels}
        headingId={`${id}-title`}
        messageId={`${id}-message`}
        time={time}
        source={props.source}
      />
      {unanswerable ? (
        // A question no answer can carry (half of a character in a field's name or a choice): said
        // up front, no fields to fill in and no Submit — only Decline and Cancel (and Esc).
        <>
          <Unanswerable prompt={prompt} labels={labels} />
          {props.error && (
            <p role="alert" className="ek-notice ek-danger">
              {props.error}
            </p>
          )}
          <div className="ek-actions">{declineOrCancel}</div>
        </>
      ) : (
        <>
          <SecretWarning prompt={prompt} labels={labels} />
          <Findings prompt={prompt} labels={labels} />
          {refused && (
            <Refusal
              title={(serverIssues?.length ?? 0) > 0 ? labels.serverRejected : labels.previousRejected}
              issues={state.general}
            />
          )}
          <form
            ref={formRef}
            className="ek-form"
            noValidate
            aria-busy={busy || shown === 'sending' || undefined}
            onSubmit={submit}
          >
            {state.submitted && state.blocking > 0 && (
              <p role="alert" className="ek-summary">
                {labels.fixErrors(state.blocking)}
              </p>
            )}
            {warned > 0 && (
              <p role="alert" className="ek-summary" data-confirmation-warning="">
                {labels.confirmationUnticked(warned)}
              </p>
            )}
            {props.error && (
              <p role="alert" className="ek-notice ek-danger">
                {props.error}
              </p>
            )}
            {prompt.fields.some((f) => showsRequired(f) || (f.kind === 'boolean' && f.confirmation)) && (
              <p className="ek-required-note">{labels.requiredNote}</p>
            )}
            {prompt.fields.map((field, i) => (
              <FieldView
                key={field.name}
                field={field}
                id={`${id}-f${i}`}
                draft={state.drafts[field.name]}
                issues={state.issuesOf(field.name)}
                secret={secret.has(field.name)}
                labels={labels}
                onDraft={(draft, touch) => state.setDraft(field.name, draft, touch)}
                onBlur={() => afterPress(() => state.touch(field.name))}
              />
            ))}
            <div className="ek-actions">
              <button type="submit" className="ek-button ek-primary" disabled={waiting || time.expired}>
                {busy || shown === 'sending' ? labels.sending : labels.submit}
              </button>
              {declineOrCancel}
            </div>
          </form>
        </>
      )}
    </ElicitationDialog>
  );
}

/**
 * Where the form's one answer is: not given yet, on its way, taken, or taken as far as the form
 * knows (the handler said nothing; a host's `busy` ending says otherwise).
 */
type Answering = 'asking' | 'sending' | 'answered' | 'assumed';
