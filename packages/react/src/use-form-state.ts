'use client';
import type { FormPrompt } from '@elicitkit/client';
import { type FormContent, type Issue, validator } from '@elicitkit/form';
import { useCallback, useMemo, useState } from 'react';
import { checkDrafts, type Draft, groupIssues, initialDrafts } from './form-state.js';

interface State {
  /** Which question the drafts belong to (see `questionOf`). */
  question: string;
  serverIssues: readonly Issue[] | undefined;
  drafts: Record<string, Draft>;
  /** Fields whose own problems are shown: left (blurred) or chosen at least once. */
  touched: ReadonlySet<string>;
  /** After a Submit attempt every problem is shown. */
  submitted: boolean;
  /** Fields changed since the server's (or the previous attempt's) issues came: those are stale. */
  edited: ReadonlySet<string>;
  /** Unticked confirmations a Submit of this question warned about (the next Submit sends). */
  warned: number;
}

/** The state of one form: drafts, touched fields, problems. Components only draw it. */
export interface FormState {
  /**
   * Which question this is, by what it asks and who asks (`questionOf`): a host that rebuilds the
   * prompt object with the same content shows the same question.
   */
  question: string;
  drafts: Readonly<Record<string, Draft>>;
  /** Sets a field's draft; `touch` shows its problems at once (choices), text waits for blur. */
  setDraft: (name: string, draft: Draft, touch?: boolean) => void;
  touch: (name: string) => void;
  /** The problems to show under a field: its own once touched, else the server's until edited. */
  issuesOf: (name: string) => Issue[];
  /** Problems from the server or the previous attempt that name no field. */
  general: Issue[];
  /** How many fields block sending; shown as a summary after a failed Submit. */
  blocking: number;
  submitted: boolean;
  /** Marks the form submitted and returns the content to send, or `undefined` while anything is wrong. */
  submit: () => FormContent | undefined;
  /** How many unticked confirmations a Submit of this question warned about; 0 before any warning. */
  warned: number;
  warn: (count: number) => void;
}

/**
 * A question's identity by content, not by object: a chat host may rebuild the prompt object on
 * every render (a message part re-created while streaming), and that must not wipe what was typed.
 * Who asks is part of it: the same question from another server is another question, and what
 * was typed for one server is never sent to another.
 */
const questionOf = (prompt: FormPrompt, source: string | undefined): string =>
  JSON.stringify([
    source ?? null,
    prompt.server ?? null,
    prompt.message,
    prompt.schema,
    prompt.attempt,
    prompt.previous ?? null,
    prompt.elicitationId ?? null,
  ]);

const start = (prompt: FormPrompt, serverIssues: readonly Issue[] | undefined, question: string): State => ({
  question,
  serverIssues,
  drafts: initialDrafts(prompt.fields, prompt.previous),
  touched: new Set(),
  submitted: false,
  edited: new Set(),
  warned: 0,
});

const adding = (set: ReadonlySet<string>, name: string): ReadonlySet<string> =>
  set.has(name) ? set : new Set([...set, name]);

/**
 * Holds a form's drafts and judges them with the form's own validator on every change. A different
 * question (or the same one from another `source`) starts over, warnings included; a new
 * `serverIssues` array is shown again on every field it names.
 */
export function useFormState(
  prompt: FormPrompt,
  serverIssues: readonly Issue[] | undefined,
  source?: string,
): FormState {
  const question = useMemo(() => questionOf(prompt, source), [prompt, source]);
  const [stored, setState] = useState(() => start(prompt, serverIssues, question));
  let state = stored;
  if (state.question !== question) state = start(prompt, serverIssues, question);
  else if (state.serverIssues !== serverIssues) state = { ...state, serverIssues, edited: new Set() };
  if (state !== stored) setState(state);

  const check = useMemo(() => validator(prompt.schema), [prompt.schema]);
  const checked = useMemo(() => checkDrafts(prompt.fields, check, state.drafts), [prompt.fields, check, state.drafts]);
  const external = useMemo(
    () => groupIssues(prompt.fields, [...(prompt.issues ?? []), ...(serverIssues ?? [])]),
    [prompt.fields, prompt.issues, serverIssues],
  );

  const setDraft = useCallback((name: string, draft: Draft, touch = false) => {
    setState((s) => ({
      ...s,
      drafts: { ...s.drafts, [name]: draft },
      edited: adding(s.edited, name),
      touched: touch ? adding(s.touched, name) : s.touched,
    }));
  }, []);
  const touch = useCallback((name: string) => setState((s) => ({ ...s, touched: adding(s.touched, name) })), []);
  const warn = useCallback((count: number) => setState((s) => ({ ...s, warned: count })), []);

  const issuesOf = (name: string): Issue[] => {
    const own = state.submitted || state.touched.has(name) ? (checked.byField.get(name) ?? []) : [];
    if (own.length > 0) return own;
    return state.edited.has(name) ? [] : (external.byField.get(name) ?? []);
  };

  return {
    question,
    drafts: state.drafts,
    setDraft,
    touch,
    issuesOf,
    general: external.general,
    blocking: checked.content ? 0 : Math.max(1, checked.byField.size),
    submitted: state.submitted,
    submit: () => {
      setState((s) => ({ ...s, submitted: true }));
      return checked.content;
    },
    warned: state.warned,
    warn,
  };
}
