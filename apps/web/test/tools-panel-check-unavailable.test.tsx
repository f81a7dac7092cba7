// @vitest-environment jsdom
/**
 * The tools panel's whole-schema check is loaded when it is needed (its own chunk): when that load
 * fails (the app went away, a new build replaced the chunks), nothing unchecked is sent — the form
 * says why in the page's language — and the next call tries the load again. The real panel; the
 * chunk's load made to fail, as a browser's dynamic import fails, then to work.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** While `failing`, every load of the check's chunk fails, as a browser's dynamic import does. */
const chunk = vi.hoisted(() => ({ failing: true, loads: 0 }));
vi.mock('../components/schema-check', async (importOriginal) => {
  chunk.loads++;
  if (chunk.failing) throw new Error('Failed to fetch dynamically imported module');
  return importOriginal();
});

const { PAGE_TEXTS } = await import('../components/texts');
const { ToolsPanel } = await import('../components/tools-panel');
type ToolInfo = import('../lib/wire').ToolInfo;

afterEach(cleanup);
Element.prototype.scrollIntoView ??= () => {};

const tool: ToolInfo = {
  server: 'ops',
  name: 'scale',
  inputSchema: { properties: { replicas: { type: 'integer', maximum: 5 } as never } },
};

describe('the schema check could not be loaded', () => {
  it('sends nothing and says why on the form, in Chinese; the next call loads it and checks', async () => {
    const onCall = vi.fn();
    render(<ToolsPanel tools={[tool]} error={null} disabled={false} onCall={onCall} texts={PAGE_TEXTS.zh} />);
    const user = userEvent.setup({ delay: null });
    const button = screen.getByRole('button', { name: PAGE_TEXTS.zh.call('scale') });
    const form = button.closest('form') as HTMLFormElement;
    await user.type(document.getElementById('tool-scale-replicas') as HTMLElement, '9');
    await user.click(button);
    await waitFor(() =>
      expect(document.getElementById('tools-why-scale')?.textContent).toMatch(/^无法按工具的模式检查这次调用（/),
    );
    expect(form.getAttribute('aria-busy')).toBe('false');
    expect(onCall).not.toHaveBeenCalled();
    // Tried again: loaded, and the call checked (9 is over 5).
    chunk.failing = false;
    const before = chunk.loads;
    await user.click(button);
    await waitFor(() =>
      expect(document.getElementById('tool-scale-replicas-why')?.textContent).toBe('应至多为 5。未发送任何请求。'),
    );
    expect(document.getElementById('tools-why-scale')).toBeNull();
    expect(onCall).not.toHaveBeenCalled();
    expect(chunk.loads).toBe(before + 1);
  });
});
