'use client';

import type { FormContent } from '@elicitkit/form';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ChatMessage, ElicitationData } from '../lib/wire';

/**
 * "The same question": the same server asking the same thing with the same form. The text counts:
 * one form may ask about different things (a production confirmation of another service), and an
 * answer given to one must not pre-fill — pre-confirm — another.
 */
const questionKey = (q: ElicitationData) =>
  q.prompt.mode === 'form' ? JSON.stringify([q.server, q.prompt.message, q.prompt.schema]) : '';

/**
 * The question to show in the modal: the oldest open one of the running turn the person has not
 * dealt with yet, pre-filled with their last answer to the same question while a "fix and retry"
 * call runs. The oldest: a question on screen stays there until it settles — one asked later (two
 * servers' tools run at once) waits its turn, never taking the dialog, and the keys typed for the
 * first, from under the person. Of the running turn only: a question of an earlier turn that was
 * stopped is gone with it, even where the page's copy still says open.
 */
export function useOpenQuestion(messages: ChatMessage[], busy: boolean) {
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  // "Fix and retry": the person's last answer per question (by server, text and form), kept in memory
  // only (answers may be private), and used to pre-fill the form when a retried call asks it again.
  const lastAnswers = useRef(new Map<string, FormContent>());
  const retrying = useRef(false);

  const open: ElicitationData | undefined = useMemo(() => {
    // Only while the turn's stream runs: once it has ended (stopped, the connection dropped) the
    // server withdrew its questions with it, and the rewrite saying so could not reach the page.
    // The running turn's message is the last one (as `<Message running>` draws it).
    const running = messages.at(-1);
    if (!busy || !running) return undefined;
    for (const p of running.parts) {
      if (p.type === 'data-elicitation' && p.data.status === 'open' && !dismissed.has(p.data.id)) return p.data;
    }
    return undefined;
  }, [messages, dismissed, busy]);

  useEffect(() => {
    if (!busy) retrying.current = false;
  }, [busy]);
  // Pre-filled only while a retried call runs: elsewhere a question starts from its defaults.
  const shown: ElicitationData | undefined = useMemo(() => {
    if (open?.prompt.mode !== 'form' || !retrying.current) return open;
    const previous = lastAnswers.current.get(questionKey(open));
    return previous ? { ...open, prompt: { ...open.prompt, previous } } : open;
  }, [open]);

  return {
    shown,
    /** Marks the turn about to be sent as a retry (or not): only a retry's questions are pre-filled. */
    setRetrying: (retry: boolean) => {
      retrying.current = retry;
    },
    /** Keeps the person's answer to `q`, for a retry to pre-fill. */
    remember: (q: ElicitationData, content: FormContent) => lastAnswers.current.set(questionKey(q), content),
    /** The modal is done with this question (answered, refused or gone). */
    dismiss: (id: string) => setDismissed((d) => new Set(d).add(id)),
    /** A new chat: nothing is dismissed. */
    reset: () => setDismissed(new Set()),
  };
}
