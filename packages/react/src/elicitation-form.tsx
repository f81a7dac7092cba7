'use client';
import type { FormPrompt } from '@elicitkit/client';
import type { FormContent, Issue } from '@elicitkit/form';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ElicitationDialog } from './elicitation-dialog.js';
import { showsRequired } from './field-parts.js';
import { FieldView } from './field-view.js';
import { LABELS_EN, type Labels } from './labels.js';
import { Findings, Refusal, SecretWarning } from './notices.js';
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
   */
  onSubmit: (content: FormContent) => void;
  onDecline: () => void;
  /** Also Esc. */
  onCancel: () => void;
  /** The answer is on its way: Submit waits (Decline and Cancel stay available). */
  busy?: boolean;
  /** A failure to show, e.g. the POST did not go through. */
  error?: string;
  /** Problems from the server's validation (a 400), shown under the fields they name until edited. */
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

  // After a refused Submit, focus goes to the first field that needs fixing.
  useEffect(() => {
    if (refusals === 0 || !formRef.current) return;
    const field = formRef.current.querySelector<HTMLElement>('[data-invalid]');
    if (field) tabbables(field)[0]?.focus();
  }, [refusals]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || time.expired) return;
    const content = state.submit();
    if (!content) return setRefusals((n) => n + 1);
    const unticked = prompt.fields.filter((f) => f.kind === 'boolean' && f.confirmation && content[f.name] !== true);
    if (unticked.length > 0 && warned === 0) {
      state.warn(unticked.length);
      const first = formRef.current?.elements.namedItem(unticked[0]?.name ?? '');
      if (first instanceof HTMLElement) first.focus();
      return;
    }
    props.onSubmit(content);
  };

  const refused = (serverIssues?.length ?? 0) > 0 || (prompt.issues?.length ?? 0) > 0;
  return (
    <ElicitationDialog
      onCancel={props.onCancel}
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
      <SecretWarning prompt={prompt} labels={labels} />
      <Findings prompt={prompt} labels={labels} />
      {refused && (
        <Refusal
          title={(serverIssues?.length ?? 0) > 0 ? labels.serverRejected : labels.previousRejected}
          issues={state.general}
        />
      )}
      <form ref={formRef} className="ek-form" noValidate aria-busy={busy || undefined} onSubmit={submit}>
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
          <button type="submit" className="ek-button ek-primary" disabled={busy || time.expired}>
            {busy ? labels.sending : labels.submit}
          </button>
          <button type="button" className="ek-button" onClick={props.onDecline}>
            {labels.decline}
          </button>
          <button type="button" className="ek-button ek-quiet" onClick={props.onCancel}>
            {labels.cancel}
          </button>
        </div>
      </form>
    </ElicitationDialog>
  );
}
