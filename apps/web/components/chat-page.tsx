'use client';

import { useRef, useState } from 'react';
import type { Locale } from '../lib/locale';
import { ChatLog } from './chat-log';
import { Composer } from './composer';
import type { ArgumentFix } from './fix-retry';
import { Question } from './question';
import { PAGE_TEXTS } from './texts';
import { ToolsPanel } from './tools-panel';
import { TopBar } from './top-bar';
import { useChatHistory } from './use-chat-history';
import { useChatInfo } from './use-chat-info';
import { useComposer } from './use-composer';
import { useLocale } from './use-locale';
import { useNotes } from './use-notes';
import { useOpenQuestion } from './use-open-question';
import { useStickToBottom } from './use-stick-to-bottom';

/** The page: chat on the left, tools on the right, the open question in a modal. */
export function ChatPage({ initialLocale }: { initialLocale: Locale }) {
  const [locale, setLocale] = useLocale(initialLocale);
  const texts = PAGE_TEXTS[locale];
  const localeRef = useRef(locale);
  localeRef.current = locale;
  const { info, tools, toolsError, fatal, csrf, chooseUser } = useChatInfo(localeRef);
  const chat = useChatHistory(csrf, localeRef, texts.noLongerOpen);
  const { busy, messages } = chat;
  const { notes, addNote, clearNotes } = useNotes();
  const chatRef = useRef<HTMLElement | null>(null);
  const { unseen, jump } = useStickToBottom(chatRef, [messages, notes, chat.error]);
  const question = useOpenQuestion(messages, busy);
  const { shown } = question;
  const { input, setInput, send } = useComposer(info !== null, busy, chat.sendMessage, question.setRetrying);
  const [fixing, setFixing] = useState<ArgumentFix | null>(null);

  const newChat = () => {
    if (busy) chat.stop();
    clearNotes();
    question.reset();
    chat.showNewChat();
  };
  const switchUser = async (user: string | null) => {
    if (!info || busy) return;
    const chosen = await chooseUser(user);
    // A new chat for the new identity: its conversation starts empty (the old one stays in the
    // browser's history), so nothing of one identity's turns goes to the model as the next's.
    if (chosen.ok && chosen.renewed) newChat();
    if (chosen.ok) addNote(texts.nowActingAs(user ?? texts.localOwner), true);
    else addNote(chosen.error ?? texts.serverGone);
  };

  return (
    <div className="layout">
      <TopBar
        texts={texts}
        locale={locale}
        onLocale={setLocale}
        info={info}
        fatal={Boolean(fatal)}
        busy={busy}
        canStartNew={Boolean(chat.chatId)}
        onChooseUser={(user) => void switchUser(user)}
        onNewChat={newChat}
      />
      <ChatLog
        scrollRef={chatRef}
        texts={texts}
        fatal={fatal === 'gone' ? texts.serverGone : fatal}
        messages={messages}
        notes={notes}
        error={chat.error}
        canRetry={!busy && info !== null}
        onRetry={(command) => send(command, true)}
        onFix={(fix) => setFixing({ ...fix, nonce: (fixing?.nonce ?? 0) + 1 })}
        busy={busy}
        onStop={() => chat.stop()}
        unseen={unseen}
        onJump={jump}
      />
      <Composer
        texts={texts}
        input={input}
        onInput={setInput}
        onSend={send}
        onStop={() => chat.stop()}
        busy={busy}
        ready={info !== null}
        hasModel={Boolean(info?.model)}
      />
      <ToolsPanel
        tools={tools}
        error={toolsError === '' ? texts.toolsFailed : toolsError}
        fatal={fatal}
        disabled={busy || !info}
        onCall={send}
        fixing={fixing}
        texts={texts}
      />
      {shown && info ? (
        <Question
          key={shown.id}
          question={shown}
          onAnswered={(content) => question.remember(shown, content)}
          csrf={info.csrf}
          locale={locale}
          texts={texts}
          onSettled={(note) => {
            question.dismiss(shown.id);
            if (note) addNote(note);
          }}
        />
      ) : null}
    </div>
  );
}
