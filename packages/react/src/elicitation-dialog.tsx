'use client';
import { type ReactNode, type RefObject, useRef } from 'react';
import { useFocusTrap } from './use-focus-trap.js';

/**
 * Props of `<ElicitationDialog>`.
 *
 * @example
 * <ElicitationDialog onCancel={cancel} labelledBy={headingId}>…</ElicitationDialog>
 */
export interface ElicitationDialogProps {
  /** Esc. An elicitation's Esc is always cancel: the whole operation stops. */
  onCancel: () => void;
  /** The id of the element that names the dialog (its heading). */
  labelledBy: string;
  /** The id of the element that describes it (the question). */
  describedBy?: string;
  /** Where focus goes on open; default the first tabbable element. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** The language of the dialog's own words (fonts and line breaking follow it). */
  lang?: string;
  className?: string;
  children: ReactNode;
}

/**
 * A modal dialog (`role="dialog"`, `aria-modal="true"`) over a backdrop: focus moves in on open,
 * stays inside (Tab wraps), returns on close, and Esc calls `onCancel`. Rendered in place with
 * fixed positioning, so it needs no portal and no browser API during server rendering.
 *
 * @example
 * <ElicitationDialog onCancel={onCancel} labelledBy="q-title" describedBy="q-text">
 *   <h2 id="q-title">Ops Desk asks</h2>
 *   <p id="q-text">Which environment?</p>
 * </ElicitationDialog>
 */
export function ElicitationDialog(props: ElicitationDialogProps) {
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref, props.onCancel, props.initialFocus);
  return (
    <div className="ek-backdrop">
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-labelledby={props.labelledBy}
        aria-describedby={props.describedBy}
        tabIndex={-1}
        lang={props.lang}
        className={props.className ? `ek-dialog ${props.className}` : 'ek-dialog'}
      >
        {props.children}
      </div>
    </div>
  );
}
