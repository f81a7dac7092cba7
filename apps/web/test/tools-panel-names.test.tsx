// @vitest-environment jsdom
/**
 * The tools panel keeps what is typed by argument name, and the names are the server's: an
 * argument named `toString`, `valueOf` or `constructor` read `Object`'s own as its value — the
 * field left empty sent `null` (a number's `Number(function)`) or `false` (a boolean) — and one
 * named `__proto__` could not be sent at all. The real panel, typed into as a person does.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAGE_TEXTS } from '../components/texts';
import { ToolsPanel } from '../components/tools-panel';
import type { ToolInfo } from '../lib/wire';

afterEach(cleanup);

// As JSON, as the server sends it: in an object literal `__proto__:` would set the prototype.
const tool: ToolInfo = {
  server: 'raw',
  name: 'tune',
  inputSchema: {
    properties: JSON.parse(
      '{"toString":{"type":"number"},"valueOf":{"type":"integer"},"hasOwnProperty":{"type":"boolean"},"constructor":{"type":"string"},"__proto__":{"type":"string"}}',
    ),
  },
};

function draw() {
  const onCall = vi.fn();
  render(<ToolsPanel tools={[tool]} error={null} disabled={false} onCall={onCall} texts={PAGE_TEXTS.en} />);
  return { onCall, user: userEvent.setup({ delay: null }) };
}

describe('the tools panel, with arguments named as Object.prototype names its own', () => {
  it('sends nothing for the fields left empty', async () => {
    const { onCall, user } = draw();
    await user.click(screen.getByRole('button', { name: PAGE_TEXTS.en.call('tune') }));
    // The call is checked against the whole schema first (loaded on demand): sent once that is done.
    await waitFor(() => expect(onCall).toHaveBeenCalledWith('/tune {}'));
  });

  it('sends what was typed into each, __proto__ included', async () => {
    const { onCall, user } = draw();
    await user.type(document.getElementById('tool-tune-toString') as HTMLElement, '3');
    await user.type(document.getElementById('tool-tune-constructor') as HTMLElement, 'c');
    await user.type(document.getElementById('tool-tune-__proto__') as HTMLElement, 'p');
    await user.click(screen.getByRole('button', { name: PAGE_TEXTS.en.call('tune') }));
    await waitFor(() => expect(onCall).toHaveBeenCalledTimes(1));
    expect(onCall).toHaveBeenCalledWith('/tune {"toString":3,"constructor":"c","__proto__":"p"}');
  });
});
