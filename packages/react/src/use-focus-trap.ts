'use client';
import { type RefObject, useEffect, useRef } from 'react';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex], [contenteditable="true"]';

/** The elements Tab visits inside `root`, in order; a radio group is one stop (its checked radio). */
export function tabbables(root: HTMLElement): HTMLElement[] {
  const all = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) =>
      el.tabIndex >= 0 &&
      !el.matches(':disabled') &&
      !el.closest('[hidden], [inert]') &&
      !(el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'hidden'),
  );
  const radios = all.filter(
    (el): el is HTMLInputElement => el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'radio',
  );
  return all.filter((el) => {
    const radio = radios.find((r) => r === el);
    if (!radio || radio.name === '') return true;
    const group = radios.filter((r) => r.name === radio.name);
    return radio === (group.find((r) => r.checked) ?? group[0]);
  });
}

/** The legacy `keyCode` of a key an input method consumed. */
const IME_KEY_CODE = 229;

/** Open traps, innermost last: only the innermost one acts, so two open dialogs never fight over focus. */
const open: HTMLElement[] = [];
const innermost = (root: HTMLElement) => open[open.length - 1] === root;

/**
 * Keeps keyboard focus inside `ref` while it is mounted (WAI-ARIA modal dialog pattern): focus
 * moves in on mount (to `initial`, else the first tabbable), Tab and Shift+Tab wrap around, focus
 * that lands outside is brought back, Esc calls `onEscape`, and focus returns where it was on unmount.
 */
export function useFocusTrap(
  ref: RefObject<HTMLElement | null>,
  onEscape: () => void,
  initial?: RefObject<HTMLElement | null>,
): void {
  const escapeTo = useRef(onEscape);
  useEffect(() => {
    escapeTo.current = onEscape;
  });
  const initialRef = useRef(initial);

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const doc = root.ownerDocument;
    const before = doc.activeElement as HTMLElement | null;
    open.push(root);
    (initialRef.current?.current ?? tabbables(root)[0] ?? root).focus();

    const onKeyDown = (event: KeyboardEvent) => {
      // Esc while composing (a Chinese or Japanese IME) dismisses the composition, not the question.
      // Safari ends the composition before that key's keydown (isComposing false), which then
      // still carries keyCode 229, the code of a key the IME handled.
      if (!innermost(root) || event.isComposing || event.keyCode === IME_KEY_CODE) return;
      if (event.key === 'Escape' && !event.defaultPrevented) {
        event.preventDefault();
        escapeTo.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const list = tabbables(root);
      const first = list[0];
      const last = list[list.length - 1];
      const active = doc.activeElement;
      const outside = !(active instanceof Node) || !root.contains(active);
      if (!first || !last) {
        event.preventDefault();
        root.focus();
      } else if (event.shiftKey && (active === first || outside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || outside)) {
        event.preventDefault();
        first.focus();
      }
    };
    const onFocusIn = (event: FocusEvent) => {
      if (!innermost(root) || !(event.target instanceof Node) || root.contains(event.target)) return;
      (tabbables(root)[0] ?? root).focus();
    };
    doc.addEventListener('keydown', onKeyDown);
    doc.addEventListener('focusin', onFocusIn);
    return () => {
      doc.removeEventListener('keydown', onKeyDown);
      doc.removeEventListener('focusin', onFocusIn);
      const wasInnermost = innermost(root);
      open.splice(open.indexOf(root), 1);
      if (!wasInnermost) return;
      if (before?.isConnected && typeof before.focus === 'function') before.focus();
    };
  }, [ref]);
}
