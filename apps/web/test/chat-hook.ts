/**
 * The page's own chat hook (`useChatHistory`) rendered in jsdom, as the chat page runs it, for
 * tests that drive the conversation as a browser does. Import it after the test has set the
 * environment: the route handlers it reaches read it once.
 */
import { render } from '@testing-library/react';
import { createElement, useRef } from 'react';
import { useChatHistory } from '../components/use-chat-history';

export type PageChat = ReturnType<typeof useChatHistory>;

let current: PageChat | undefined;
let csrfNow = '';

function ChatHookPage() {
  const csrf = useRef(csrfNow);
  const locale = useRef<'en'>('en');
  current = useChatHistory(csrf, locale, 'no longer open');
  return createElement('p', null, String(current.messages.length));
}

/** Renders the page's chat with the browser's CSRF token; returns how to read its latest state. */
export function renderChatHook(csrf: string): () => PageChat | undefined {
  csrfNow = csrf;
  render(createElement(ChatHookPage));
  return () => current;
}
