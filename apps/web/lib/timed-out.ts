import type { RunningCall } from './call-questions';
import { config } from './config';
import type { Locale } from './locale';
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
 * page) the truth itself: a call that ended `cancelled` when the last of its questions to settle
 * (`RunningCall.lastSettled`) had expired in this chat is handed on as `timeout`, with the
 * server's own text kept. The last to settle, not any: two calls of one turn on one server both
 * hold each question either asked (a 2025-11-25 request says nothing of which call it serves), and
 * a call whose own question the person cancelled is never told "timed out, you may run it again"
 * for the other's question they let expire before it.
 *
 * @example
 * return await markTimeout(running, output, 'deploy_service', 'en');
 */
export async function markTimeout(
  call: RunningCall,
  output: ToolOutput,
  tool: string,
  locale: Locale,
): Promise<ToolOutput> {
  const last = call.lastSettled;
  if (output.status !== 'cancelled' || last?.reason !== 'expired') return output;
  // The question's whole time, which runs from when it arrived (`timeoutFrom: 'received'`): one
  // shown after waiting its turn behind another was in the registry for what was left of it.
  const wait = config().questionTimeoutMs;
  return {
    ...output,
    status: 'timeout',
    text: TEXT[locale](tool, waited(wait, locale), output.text),
    structured: { ...output.structured, status: 'timeout', serverStatus: 'cancelled' },
  };
}
