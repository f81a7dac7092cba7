'use client';

import { useChat } from '@ai-sdk/react';
import type { FormContent } from '@elicitkit/form';
import { DefaultChatTransport } from 'ai';
import Link from 'next/link';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Locale } from '../lib/locale';
import type { ChatInfo, ChatMessage, ElicitationData, ToolInfo, ToolListing } from '../lib/wire';
import { ConnectionCheck } from './connection-check';
import { history } from './history';
import { Message } from './message';
import { Question } from './question';
import { PAGE_TEXTS } from './texts';
import { ToolsPanel } from './tools-panel';
import { useLocale } from './use-locale';
import { useStickToBottom } from './use-stick-to-bottom';

/** "The same question": the same server asking with the same form. */
const questionKey = (q: ElicitationData) =>
  q.prompt.mode === 'form' ? `${q.server}\u0000${JSON.stringify(q.prompt.schema)}` : '';

/** The page: chat on the left, tools on the right, the open question in a modal. */
export function ChatPage({ initialLocale }: { initialLocale: Locale }) {
  const [locale, setLocale] = useLocale(initialLocale);
  const texts = PAGE_TEXTS[locale];
  const localeRef = useRef(locale);
  localeRef.current = locale;
  const [info, setInfo] = useState<ChatInfo | null>(null);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [toolsError, setToolsError] = useState<string | null>(null);
  const [fatal, setFatal] = useState<string | null | 'gone'>(null);
  const [notes, setNotes] = useState<{ id: number; text: string; info?: true }[]>([]);
  const [input, setInput] = useState('');
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const csrf = useRef('');
  // "Fix and retry": the person's last answer per question (by server and schema), kept in memory
  // only (answers may be private), and used to pre-fill the form when a retried call asks it again.
  const lastAnswers = useRef(new Map<string, FormContent>());
  const retrying = useRef(false);

  useEffect(() => {
    void (async () => {
      const reply = await fetch('/api/session').catch(() => undefined);
      const answer = (await reply?.json().catch(() => undefined)) as (ChatInfo & { error?: string }) | undefined;
      if (!reply?.ok || !answer) {
        setFatal(answer?.error ?? 'gone');
        return;
      }
      csrf.current = answer.csrf;
      setInfo(answer);
      const response = await fetch('/api/tools', { headers: { 'x-elicitkit-locale': localeRef.current } }).catch(
        () => undefined,
      );
      const body = (await response?.json().catch(() => undefined)) as
        | (Partial<ToolListing> & { error?: string })
        | undefined;
      if (body?.tools) {
        setTools(body.tools);
        // Another server's tools are shown; the one that did not answer says why.
        if (body.unavailable?.length) setToolsError(body.unavailable.map((u) => u.message).join(' '));
      } else setToolsError(body?.error ?? '');
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
        headers: () => ({ 'x-elicitkit-csrf': csrf.current, 'x-elicitkit-locale': localeRef.current }),
      }),
    [],
  );
  // Which chat this browser shows: its messages are kept in localStorage across reloads.
  const [chatId, setChatId] = useState<string | null>(null);
  useEffect(() => setChatId(history.currentId()), []);
  const { messages, setMessages, sendMessage, status, stop, error } = useChat<ChatMessage>({
    ...(chatId ? { id: chatId } : {}),
    transport,
  });
  const busy = status === 'submitted' || status === 'streaming';
  const restored = useRef<string | null>(null);
  useEffect(() => {
    if (!chatId || restored.current === chatId) return;
    setMessages(history.load(chatId, texts.noLongerOpen));
    restored.current = chatId;
  }, [chatId, setMessages, texts.noLongerOpen]);
  useEffect(() => {
    // Saved only once this chat's history was restored, so an empty first render never overwrites it.
    if (chatId && restored.current === chatId) history.save(chatId, messages);
  }, [chatId, messages]);
  const newChat = () => {
    if (busy) stop();
    setNotes([]);
    setDismissed(new Set());
    setChatId(history.newId());
  };

  const chatRef = useRef<HTMLElement | null>(null);
  const { unseen, jump } = useStickToBottom(chatRef, [messages, notes, error]);

  const open: ElicitationData | undefined = useMemo(() => {
    for (const m of [...messages].reverse()) {
      for (const p of [...m.parts].reverse()) {
        if (p.type === 'data-elicitation' && p.data.status === 'open' && !dismissed.has(p.data.id)) return p.data;
      }
    }
    return undefined;
  }, [messages, dismissed]);

  const send = (text: string, retry = false) => {
    // Nothing leaves before the chat (and its CSRF token) is known.
    if (!text.trim() || busy || !info) return;
    retrying.current = retry;
    void sendMessage({ text });
    setInput('');
  };
  useEffect(() => {
    if (!busy) retrying.current = false;
  }, [busy]);
  // Pre-filled only while a retried call runs: elsewhere a question starts from its defaults.
  const shown: ElicitationData | undefined = useMemo(() => {
    if (open?.prompt.mode !== 'form' || !retrying.current) return open;
    const previous = lastAnswers.current.get(questionKey(open));
    return previous ? { ...open, prompt: { ...open.prompt, previous } } : open;
  }, [open]);

  const chooseUser = async (user: string | null) => {
    if (!info || busy) return;
    const reply = await fetch('/api/session/identity', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-elicitkit-csrf': csrf.current },
      body: JSON.stringify({ user }),
    }).catch(() => undefined);
    const body = (await reply?.json().catch(() => undefined)) as { user?: string | null; error?: string } | undefined;
    if (!reply?.ok) {
      setNotes((n) => [...n, { id: n.length, text: body?.error ?? texts.serverGone }]);
      return;
    }
    setInfo({ ...info, identity: info.identity ? { ...info.identity, user } : null });
    setNotes((n) => [...n, { id: n.length, text: texts.nowActingAs(user ?? texts.localOwner), info: true }]);
  };

  const fatalText = fatal === 'gone' ? texts.serverGone : fatal;
  return (
    <div className="layout">
      <header className="topbar">
        <h1>{texts.title}</h1>
        <span className={`model ${info?.model ? '' : 'no-model'}`} role="status">
          {fatal
            ? texts.notConnected
            : info
              ? info.model
                ? texts.model(info.model)
                : texts.noModel
              : texts.connecting}
        </span>
        {info?.model ? <ConnectionCheck texts={texts} csrf={info.csrf} locale={locale} /> : null}
        <label className="language">
          <span className="visually-hidden">{texts.language}</span>
          <select value={locale} onChange={(e) => setLocale(e.target.value as Locale)} aria-label={texts.language}>
            <option value="en">English</option>
            <option value="zh">中文</option>
          </select>
        </label>
        {info?.identity ? (
          <label className="identity" title={texts.identityNote}>
            {texts.identity}{' '}
            <select
              value={info.identity.user ?? ''}
              disabled={busy}
              aria-describedby="identity-note"
              onChange={(e) => void chooseUser(e.target.value === '' ? null : e.target.value)}
            >
              <option value="">{texts.localOwner}</option>
              {info.identity.choices.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
            <span id="identity-note" className="visually-hidden">
              {texts.identityNote}
            </span>
          </label>
        ) : null}
        <button type="button" className="secondary" onClick={newChat} disabled={!chatId}>
          {texts.newChat}
        </button>
        <Link href="/audit">{texts.auditTrail}</Link>
      </header>
      <main className="chat" aria-live="polite" ref={chatRef}>
        {fatalText ? (
          <p className="error" role="alert">
            {fatalText}
          </p>
        ) : null}
        {messages.length === 0 ? (
          <div className="welcome">
            <p>
              {texts.welcome[0]}
              <em>{texts.welcome[1]}</em>
              {texts.welcome[2]}
            </p>
            <p className="muted">
              {texts.tryCommands} <code>/deploy_service service=order-service</code>,{' '}
              <code>/execute_sql {'{"sql":"DELETE FROM order_items"}'}</code>, <code>/register_user</code>.
            </p>
          </div>
        ) : null}
        {messages.map((m) => (
          <Message
            key={m.id}
            message={m}
            texts={texts}
            extra={(part) =>
              part.state === 'output-available' &&
              (part.output as { status?: string } | undefined)?.status === 'invalid' ? (
                <div className="retry">
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy || !info}
                    onClick={() => send(`/${part.toolName} ${JSON.stringify(part.input ?? {})}`, true)}
                  >
                    {texts.retry}
                  </button>{' '}
                  <span className="muted small">{texts.retryNote}</span>
                </div>
              ) : null
            }
          />
        ))}
        {notes.map((n) => (
          <p key={n.id} className={n.info ? 'info-note' : 'note'} role={n.info ? undefined : 'alert'}>
            {n.text}
          </p>
        ))}
        {error ? (
          <p className="error" role="alert" data-model-error="">
            {error.message}
          </p>
        ) : null}
      </main>
      {unseen ? (
        <button type="button" className="jump-to-latest" onClick={jump}>
          {texts.jumpToLatest}
        </button>
      ) : null}
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send(input);
        }}
      >
        <label htmlFor="composer-input" className="visually-hidden">
          {texts.message}
        </label>
        <input
          id="composer-input"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder={info?.model ? texts.placeholderModel : '/deploy_service service=order-service'}
          autoComplete="off"
          disabled={!info}
        />
        {busy ? (
          <button type="button" onClick={() => stop()}>
            {texts.stop}
          </button>
        ) : (
          <button type="submit" disabled={!info}>
            {texts.send}
          </button>
        )}
      </form>
      <ToolsPanel
        tools={tools}
        error={toolsError === '' ? texts.toolsFailed : toolsError}
        disabled={busy || !info}
        onCall={send}
        texts={texts}
      />
      {shown && info ? (
        <Question
          key={shown.id}
          question={shown}
          onAnswered={(content) => lastAnswers.current.set(questionKey(shown), content)}
          csrf={info.csrf}
          locale={locale}
          texts={texts}
          onSettled={(note) => {
            setDismissed((d) => new Set(d).add(shown.id));
            if (note) setNotes((n) => [...n, { id: n.length, text: note }]);
          }}
        />
      ) : null}
    </div>
  );
}
