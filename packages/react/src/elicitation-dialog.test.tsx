// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useRef, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ElicitationDialog } from './elicitation-dialog.js';
import { tabbables } from './use-focus-trap.js';

afterEach(cleanup);

function Page({ onCancel, withInitial = false }: { onCancel: () => void; withInitial?: boolean }) {
  const [open, setOpen] = useState(false);
  const second = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Ask
      </button>
      <button type="button">Outside</button>
      {open && (
        <ElicitationDialog
          onCancel={() => {
            onCancel();
            setOpen(false);
          }}
          labelledBy="t"
          describedBy="d"
          {...(withInitial ? { initialFocus: second } : {})}
        >
          <h2 id="t">Ops Desk asks</h2>
          <p id="d">Which environment?</p>
          <input aria-label="First" />
          <button type="button" disabled>
            Disabled
          </button>
          <button ref={second} type="button">
            Second
          </button>
          <button type="button">Last</button>
        </ElicitationDialog>
      )}
    </>
  );
}

function Two({ second, outer, inner }: { second: boolean; outer: () => void; inner: () => void }) {
  return (
    <>
      <ElicitationDialog onCancel={outer} labelledBy="a">
        <h2 id="a">Outer</h2>
        <button type="button">Outer button</button>
      </ElicitationDialog>
      {second && (
        <ElicitationDialog onCancel={inner} labelledBy="b">
          <h2 id="b">Inner</h2>
          <button type="button">Inner one</button>
          <button type="button">Inner two</button>
        </ElicitationDialog>
      )}
    </>
  );
}

describe('<ElicitationDialog>', () => {
  it('is a labelled modal dialog that takes focus on open', async () => {
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    const dialog = screen.getByRole('dialog', { name: 'Ops Desk asks', description: 'Which environment?' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'First' }));
  });

  it('focuses initialFocus when given', async () => {
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={vi.fn()} withInitial />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Second' }));
  });

  it('keeps Tab and Shift+Tab inside, skipping disabled controls', async () => {
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    const visited: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await user.tab();
      visited.push(document.activeElement?.textContent || document.activeElement?.getAttribute('aria-label') || null);
    }
    expect(visited).toEqual(['Second', 'Last', 'First', 'Second']);
    await user.tab({ shift: true });
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Last' }));
  });

  it('brings focus back when it lands outside', async () => {
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    screen.getByRole('button', { name: 'Outside', hidden: true }).focus();
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'First' }));
  });

  it('cancels on Esc and returns focus to where it was', async () => {
    const onCancel = vi.fn();
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={onCancel} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    await user.keyboard('{Escape}');
    expect(onCancel).toHaveBeenCalledOnce();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Ask' }));
  });

  it('leaves Esc to an input method that is composing', async () => {
    const onCancel = vi.fn();
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={onCancel} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'First' }), { key: 'Escape', isComposing: true });
    expect(onCancel).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'First' }), { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledOnce();
  });

  it('leaves Esc to an input method that ended its composition just before (Safari: keyCode 229)', async () => {
    const onCancel = vi.fn();
    const user = userEvent.setup({ delay: null });
    render(<Page onCancel={onCancel} />);
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    const box = screen.getByRole('textbox', { name: 'First' });
    // Safari and WKWebView fire compositionend first, then the Esc that dismissed the candidates,
    // with isComposing already false: only the legacy keyCode 229 says the IME had the key.
    fireEvent.compositionStart(box);
    fireEvent.compositionEnd(box);
    fireEvent.keyDown(box, { key: 'Escape', keyCode: 229 });
    expect(onCancel).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: 'Escape', keyCode: 27 });
    expect(onCancel).toHaveBeenCalledOnce();
  });

  it('holds focus on the dialog itself when nothing inside can take it', async () => {
    const user = userEvent.setup({ delay: null });
    render(
      <ElicitationDialog onCancel={vi.fn()} labelledBy="t">
        <h2 id="t">Nothing to press</h2>
      </ElicitationDialog>,
    );
    const dialog = screen.getByRole('dialog');
    expect(document.activeElement).toBe(dialog);
    await user.tab();
    expect(document.activeElement).toBe(dialog);
  });

  it('lets only the innermost of two open dialogs trap focus and hear Esc', async () => {
    const user = userEvent.setup({ delay: null });
    const outer = vi.fn();
    const inner = vi.fn();
    const { rerender } = render(<Two second outer={outer} inner={inner} />);
    const name = () => document.activeElement?.textContent;
    expect(name()).toBe('Inner one');
    await user.tab();
    await user.tab();
    expect(name()).toBe('Inner one');
    await user.keyboard('{Escape}');
    expect(inner).toHaveBeenCalledOnce();
    expect(outer).not.toHaveBeenCalled();
    rerender(<Two second={false} outer={outer} inner={inner} />);
    expect(name()).toBe('Outer button');
    await user.keyboard('{Escape}');
    expect(outer).toHaveBeenCalledOnce();
  });

  it('counts a radio group as one tab stop: its checked radio, else its first', () => {
    const root = document.createElement('div');
    root.innerHTML = `
      <input type="radio" name="a" value="1"><input type="radio" name="a" value="2" checked>
      <input type="radio" name="b" value="1"><input type="radio" name="b" value="2">
      <input type="hidden"><div hidden><button>Hidden</button></div><span tabindex="-1">x</span>`;
    expect(tabbables(root).map((el) => `${(el as HTMLInputElement).name}${(el as HTMLInputElement).value}`)).toEqual([
      'a2',
      'b1',
    ]);
  });
});
