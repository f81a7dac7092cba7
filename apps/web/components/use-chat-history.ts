'use client';

import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import type { Locale } from '../lib/locale';
import type { ChatMessage } from '../lib/wire';
import { fitForTurn, history } from './history';

/**
 * The conversation this browser shows: the AI SDK's chat over `POST /api/chat` (with the chat's
 * CSRF token and the page's language), its messages kept in localStorage across reloads.
 * `noLongerOpen` is how a restored question that can no longer be answered is shown.
 */
export function useChatHistory(csrf: RefObject<string>, localeRef: RefObject<Locale>, noLongerOpen: string) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: '/api/chat',
        headers: () => ({ 'x-elicitkit-csrf': csrf.current, 'x-elicitkit-locale': localeRef.current }),
        // The newest messages that fit in a turn's body: results that add up past it never wedge the chat.
        prepareSendMessagesRequest: ({ id, messages, body, trigger, messageId }) => ({
          body: { ...body, id, messages: fitForTurn(messages), trigger, messageId },
        }),
      }),
    [csrf, localeRef],
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
    setMessages(history.load(chatId, noLongerOpen));
    restored.current = chatId;
  }, [chatId, setMessages, noLongerOpen]);
  useEffect(() => {
    // Saved only once this chat's history was restored, so an empty first render never overwrites it.
    if (chatId && restored.current === chatId) history.save(chatId, messages);
  }, [chatId, messages]);
  /** Shows a new, empty conversation (the old one stays in localStorage). */
  const showNewChat = () => setChatId(history.newId());

  return { chatId, messages, sendMessage, stop, error, busy, showNewChat };
}
