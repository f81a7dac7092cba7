import type { Locale } from './locale';
import { type Chat, state } from './state';
import type { ToolOutput } from './wire';

const TEXT: Record<Locale, (tool: string, minutes: number, server: string) => string> = {
  en: (tool, minutes, server) =>
    `No answer arrived within ${minutes} minute${minutes === 1 ? '' : 's'}: the question timed out in the browser, so ${tool} did nothing. This was a timeout, not the user cancelling; you may offer to run it again. (The server reported: ${server})`,
  zh: (tool, minutes, server) =>
    `${minutes} 分钟内没有收到回答：问题在浏览器中超时，因此 ${tool} 什么也没做。这是超时，不是用户取消；可以提议重新执行。（服务器的结果：${server}）`,
};

/**
 * The protocol has no "timed out" answer: when the page's own deadline ends a question, the
 * client answers `cancel` and the server reports `cancelled`. So the chat tells the model (and the
 * page) the truth itself: a call that ended `cancelled` while one of its questions expired in this
 * chat is handed on as `timeout`, with the server's own text kept.
 *
 * `since` is when the call started: the questions published after it are this call's (a chat runs
 * one turn at a time; two parallel calls of one turn could share the mark).
 *
 * @example
 * return await markTimeout(chat, started, output, 'deploy_service', 'en');
 */
export async function markTimeout(
  chat: Chat,
  since: number,
  output: ToolOutput,
  tool: string,
  locale: Locale,
): Promise<ToolOutput> {
  if (output.status !== 'cancelled') return output;
  const entries = await state().registry.list(chat.key);
  const expired = entries.find((q) => q.openedAt >= since && q.settlement?.reason === 'expired');
  if (!expired) return output;
  const minutes = Math.max(1, Math.round((expired.expiresAt - expired.openedAt) / 60_000));
  return {
    ...output,
    status: 'timeout',
    text: TEXT[locale](tool, minutes, output.text),
    structured: { ...output.structured, status: 'timeout', serverStatus: 'cancelled' },
  };
}
