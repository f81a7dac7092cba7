import type { Locale } from './locale';
import { type Chat, state } from './state';
import type { ToolOutput } from './wire';

const TEXT: Record<Locale, (tool: string, waited: string, server: string) => string> = {
  en: (tool, waited, server) =>
    `No answer arrived within ${waited}: the question timed out in the browser, so ${tool} did nothing. This was a timeout, not the user cancelling; you may offer to run it again. (The server reported: ${server})`,
  zh: (tool, waited, server) =>
    `${waited}内没有收到回答：问题在浏览器中超时，因此 ${tool} 什么也没做。这是超时，不是用户取消；可以提议重新执行。（服务器的结果：${server}）`,
};

/**
 * How long the question waited, as a person says it (as the server's own timeout result says it):
 * whole minutes as minutes; under two minutes, seconds to a tenth; under a second, milliseconds;
 * longer waits that are not whole minutes, about so many minutes.
 */
function waited(ms: number, locale: Locale): string {
  const whole = ms >= 60_000 && ms % 60_000 === 0;
  const [value, unit, about] =
    whole || ms >= 120_000
      ? ([Math.round(ms / 60_000), 'min', !whole] as const)
      : ms >= 1_000
        ? ([Math.round(ms / 100) / 10, 's', ms % 100 !== 0] as const)
        : ([Math.round(ms), 'ms', false] as const);
  if (locale === 'zh') return `${about ? '约 ' : ''}${value} ${{ ms: '毫秒', s: '秒', min: '分钟' }[unit]}`;
  const names = { ms: ['millisecond', 'milliseconds'], s: ['second', 'seconds'], min: ['minute', 'minutes'] }[unit];
  return `${about ? 'about ' : ''}${value} ${names[value === 1 ? 0 : 1]}`;
}

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
  return {
    ...output,
    status: 'timeout',
    text: TEXT[locale](tool, waited(expired.expiresAt - expired.openedAt, locale), output.text),
    structured: { ...output.structured, status: 'timeout', serverStatus: 'cancelled' },
  };
}
