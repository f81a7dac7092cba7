/**
 * A question's message with a fenced block (a sync conflict's diff) is drawn with that block
 * monospace and apart, the rest as text; a fence never closed, or backticks inside a line, are text.
 */
import type { FormPrompt } from '@elicitkit/client';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { LABELS_EN } from './labels.js';
import { PromptHeader } from './prompt-header.js';
import { messageParts } from './text.js';

describe('messageParts', () => {
  it('sets fenced lines apart and keeps the text around them', () => {
    expect(messageParts('Differences:\n```diff\n- a\n+ b\n```\nWhich wins?')).toEqual([
      { code: false, text: 'Differences:' },
      { code: true, text: '- a\n+ b' },
      { code: false, text: 'Which wins?' },
    ]);
  });

  it('a fence never closed, and backticks within a line, are text', () => {
    expect(messageParts('a\n```\nb')).toEqual([{ code: false, text: 'a\n```\nb' }]);
    expect(messageParts('run ```x``` now')).toEqual([{ code: false, text: 'run ```x``` now' }]);
    expect(messageParts('')).toEqual([{ code: false, text: '' }]);
  });

  it('reads each line a bounded number of times, however many fences are opened and never closed', () => {
    // A hostile server's message of n opening fences: each used to be matched to a close by a scan
    // of every line, n² tests, enough to hang the tab at a few hundred thousand lines.
    const lines = 3_000;
    const message = `Which environment?\n${'```a\n'.repeat(lines)}end`;
    const test = vi.spyOn(RegExp.prototype, 'test');
    try {
      const parts = messageParts(message);
      expect(parts).toEqual([{ code: false, text: message }]);
      expect(test.mock.calls.length).toBeLessThanOrEqual(3 * (lines + 2));
    } finally {
      test.mockRestore();
    }
    // Closed, the first opening fence takes the lines up to the close.
    expect(messageParts('```a\n```b\nx\n```\ny')).toEqual([
      { code: true, text: '```b\nx' },
      { code: false, text: 'y' },
    ]);
  });
});

describe('PromptHeader', () => {
  it('draws a fenced diff monospace, its lines as sent, control characters removed', () => {
    const prompt = {
      mode: 'form',
      message: 'notes/plan.md changed on both sides.\n```diff\n- remote\u202e line\n+ local line\n```\nWhich wins?',
    } as unknown as FormPrompt;
    const html = renderToStaticMarkup(
      <PromptHeader
        prompt={prompt}
        labels={LABELS_EN}
        headingId="h"
        messageId="m"
        time={{ expired: false, msLeft: undefined }}
      />,
    );
    expect(html).toContain('<pre class="ek-code">- remote line\n+ local line</pre>');
    expect(html).toContain('<p>Which wins?</p>');
    expect(html).toContain('id="m" class="ek-message"');
  });
});
