'use client';

import { useState } from 'react';

/**
 * What the person sends: the composer's text, and `send`, which the composer, the tools panel
 * and "fix and retry" all use. Nothing leaves before the chat (and its CSRF token) is known
 * (`ready`) or while a turn runs; a sent message empties the composer.
 */
export function useComposer(
  ready: boolean,
  busy: boolean,
  sendMessage: (message: { text: string }) => Promise<void>,
  /** Marks whether the turn being sent is a retry (`useOpenQuestion`). */
  setRetrying: (retry: boolean) => void,
) {
  const [input, setInput] = useState('');
  const send = (text: string, retry = false) => {
    if (!text.trim() || busy || !ready) return;
    setRetrying(retry);
    void sendMessage({ text });
    setInput('');
  };
  return { input, setInput, send };
}
