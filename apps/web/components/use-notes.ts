'use client';

import { useState } from 'react';

/** A line the page adds to the chat: an error (`role="alert"`), or information (`info`). */
export interface Note {
  id: number;
  text: string;
  info?: true;
}

/** The page's own lines under the messages, in order; cleared with a new chat. */
export function useNotes() {
  const [notes, setNotes] = useState<Note[]>([]);
  const addNote = (text: string, info?: true) =>
    setNotes((n) => [...n, info ? { id: n.length, text, info } : { id: n.length, text }]);
  const clearNotes = () => setNotes([]);
  return { notes, addNote, clearNotes };
}
