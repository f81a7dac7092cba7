'use client';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import Link from 'next/link';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ChatInfo, ChatMessage, ElicitationData, ToolInfo } from '../lib/wire';
import { Message } from './message';
import { Question } from './question';
import { ToolsPanel } from './tools-panel';

/** The page: chat on the left, tools on the right, the open question in a modal. */
export function ChatPage() {
  const [info, setInfo] = useState<ChatInfo | null>(null);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [toolsError, setToolsError] = useState<string | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [notes, setNotes] = useState<{ id: number; text: string }[]>([]);
  const [input, setInput] = useState('');
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const csrf = useRef('');

  useEffect(() => {
    void (async () => {
      const reply = await fetch('/api/session').catch(() => undefined);
      const answer = (await reply?.json().catch(() => undefined)) as (ChatInfo & { error?: string }) | undefined;
      if (!reply?.ok || !answer) {
        setFatal(answer?.error ?? 'The chat server did not answer. Is `npm start` still running?');
        return;
      }
      csrf.current = answer.csrf;
      setInfo(answer);
      const response = await fetch('/api/tools').catch(() => undefined);
      const body = (await response?.json().catch(() => undefined)) as
        | { tools?: ToolInfo[]; error?: string }
        | undefined;
      if (body?.tools) setTools(body.tools);
      else setToolsError(body?.error ?? 'Could not load the tools.');
    })();
  }, []);

  // The tab is going: close the chat's session on the server now rather than at its idle time.
  // A page restored from the back/forward cache has lost its chat, so it starts a new one.
  useEffect(() => {
    const leave = () => {
      if (csrf.current) navigator.sendBeacon('/api/session/close', JSON.stringify({ csrf: csrf.current }));
    };
    const back = (event: PageTransitionEvent) => {
      if (event.persisted) window.location.reload();
    };
    window.addEventListener('pagehide', leave);
    window.addEventListener('pageshow', back);
    return () => {
      window.removeEventListener('pagehide', leave);
      window.removeEventListener('pageshow', back);
    };
  }, []);

  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: '/api/chat',
        headers: () => ({ 'x-elicitkit-csrf': csrf.current }),
      }),
    [],
  );
  const { messages, sendMessage, status, stop, error } = useChat<ChatMessage>({ transport });
  const busy = status === 'submitted' || status === 'streaming';

  const open: ElicitationData | undefined = useMemo(() => {
    for (const m of [...messages].reverse()) {
      for (const p of [...m.parts].reverse()) {
        if (p.type === 'data-elicitation' && p.data.status === 'open' && !dismissed.has(p.data.id)) return p.data;
      }
    }
    return undefined;
  }, [messages, dismissed]);

  const send = (text: string) => {
    // Nothing leaves before the chat (and its CSRF token) is known.
    if (!text.trim() || busy || !info) return;
    void sendMessage({ text });
    setInput('');
  };

  return (
    <div className="layout">
      <header className="topbar">
        <h1>Elicitkit chat</h1>
        <span className={`model ${info?.model ? '' : 'no-model'}`} role="status">
          {fatal
            ? 'Not connected'
            : info
              ? info.model
                ? `Model: ${info.model}`
                : 'No model configured — use the tools panel or /tool commands'
              : 'Connecting…'}
        </span>
        <Link href="/audit">Audit trail</Link>
      </header>
      <main className="chat" aria-live="polite">
        {fatal ? (
          <p className="error" role="alert">
            {fatal}
          </p>
        ) : null}
        {messages.length === 0 ? (
          <div className="welcome">
            <p>
              Ask for a deploy and watch the server ask <em>you</em> — not the model — which environment and which
              release ticket.
            </p>
            <p className="muted">
              Try <code>/deploy_service service=order-service</code>,{' '}
              <code>/execute_sql {'{"sql":"DELETE FROM order_items"}'}</code> or <code>/register_user</code>.
            </p>
          </div>
        ) : null}
        {messages.map((m) => (
          <Message key={m.id} message={m} />
        ))}
        {notes.map((n) => (
          <p key={n.id} className="note" role="alert">
            {n.text}
          </p>
        ))}
        {error ? (
          <p className="error" role="alert">
            {error.message}
          </p>
        ) : null}
      </main>
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send(input);
        }}
      >
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        <input
          id="composer-input"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder={info?.model ? 'Ask for a deploy, a report…' : '/deploy_service service=order-service'}
          autoComplete="off"
          disabled={!info}
        />
        {busy ? (
          <button type="button" onClick={() => stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!info}>
            Send
          </button>
        )}
      </form>
      <ToolsPanel tools={tools} error={toolsError} disabled={busy || !info} onCall={send} />
      {open && info ? (
        <Question
          key={open.id}
          question={open}
          csrf={info.csrf}
          lang={info.lang}
          onSettled={(note) => {
            setDismissed((d) => new Set(d).add(open.id));
            if (note) setNotes((n) => [...n, { id: n.length, text: note }]);
          }}
        />
      ) : null}
    </div>
  );
}
