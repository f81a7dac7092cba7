import { describe, expect, it } from 'vitest';
import { capHistory, fitForTurn, HISTORY_LIMITS, settleRestored } from '../components/history';
import type { ChatMessage } from '../lib/wire';

const question = (status: 'open' | 'answered') =>
  ({
    type: 'data-elicitation',
    id: 'q1',
    data: {
      id: 'q1',
      server: 'opsdesk',
      status,
      ...(status === 'answered' ? { action: 'accept' } : {}),
      prompt: { mode: 'form', message: 'Which environment?' },
      publishedAt: 1,
      expiresAt: 2,
    },
  }) as unknown as ChatMessage['parts'][number];

describe('chat history restored after a reload', () => {
  it('shows a question that was open as no longer open, never as answerable; settled ones keep their outcome', () => {
    const restored = settleRestored(
      { id: 'm', role: 'assistant', parts: [question('open'), question('answered')] },
      'x',
    );
    expect(restored.parts.map((p) => (p.type === 'data-elicitation' ? p.data.status : p.type))).toEqual([
      'gone',
      'answered',
    ]);
  });

  it('shows a tool call that was still running as interrupted', () => {
    const running = {
      type: 'dynamic-tool',
      toolName: 'deploy_service',
      toolCallId: 'c',
      state: 'input-available',
      input: {},
    } as unknown as ChatMessage['parts'][number];
    const [part] = settleRestored({ id: 'm', role: 'assistant', parts: [running] }, 'interrupted').parts;
    expect(part).toMatchObject({ state: 'output-error', errorText: 'interrupted' });
  });

  it('keeps the newest whole messages under both caps', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({
      id: `m${i}`,
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: `message ${i}` }],
    }));
    const kept = capHistory(many);
    expect(kept).toHaveLength(HISTORY_LIMITS.messages);
    expect(kept.at(-1)?.id).toBe('m499');
    const big = Array.from({ length: 10 }, (_, i) => ({
      id: `b${i}`,
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: 'x'.repeat(60_000) }],
    }));
    const fit = capHistory(big);
    expect(fit.map((m) => m.id)).toEqual(['b6', 'b7', 'b8', 'b9']);
    expect(JSON.stringify(fit).length).toBeLessThanOrEqual(HISTORY_LIMITS.bytes);
  });
});

describe('the messages a turn sends (fitForTurn)', () => {
  const text = (id: string, chars: number, c = 'x'): ChatMessage =>
    ({ id, role: 'user', parts: [{ type: 'text', text: c.repeat(chars) }] }) as ChatMessage;
  const ids = (messages: ChatMessage[]) => messages.map((m) => m.id);

  it('sends every message while they fit, the same array', () => {
    const all = [text('a', 10), text('b', 10)];
    expect(fitForTurn(all, 10_000)).toBe(all);
  });

  it('drops the oldest first, whole messages only, and leaves out an older one too large by itself', () => {
    const all = [text('a', 3_000), text('b', 1_000), text('huge', 20_000), text('c', 1_000), text('d', 1_000)];
    // 4 KiB of envelope kept aside: 6,000 bytes leave room for three of the small ones.
    expect(ids(fitForTurn(all, 4 * 1024 + 3_400))).toEqual(['b', 'c', 'd']);
    expect(ids(fitForTurn(all, 4 * 1024 + 2_300))).toEqual(['c', 'd']);
  });

  it('weighs text in UTF-8 bytes, as the body is read: a CJK character is three', () => {
    const all = [text('old', 1_000, '中'), text('new', 10)];
    expect(ids(fitForTurn(all, 4 * 1024 + 2_500))).toEqual(['new']);
    expect(ids(fitForTurn(all, 4 * 1024 + 3_300))).toEqual(['old', 'new']);
  });

  it('always sends the newest message, even too large by itself (the route then says so)', () => {
    const all = [text('a', 10), text('pasted', 50_000)];
    expect(ids(fitForTurn(all, 4 * 1024 + 1_000))).toEqual(['pasted']);
  });
});
