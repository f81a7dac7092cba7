import { useCallback, useEffect, useRef } from 'react';

/**
 * Runs layout-changing work (showing a field's error on blur) only once a pointer press is over.
 *
 * A blur caused by pressing another control fires between mousedown and mouseup. If the error it
 * reveals moves the pressed control, mouseup lands elsewhere and the browser drops the click: the
 * first click on a radio after a text field goes nowhere. Work queued during a press runs in the
 * task after pointerup, when the click has been dispatched; outside a press it runs at once.
 */
export function useAfterPress(): (work: () => void) => void {
  const pressed = useRef(false);
  const queue = useRef<Array<() => void>>([]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      const work = queue.current;
      queue.current = [];
      for (const w of work) w();
    };
    const down = () => {
      pressed.current = true;
    };
    const up = () => {
      pressed.current = false;
      clearTimeout(timer);
      timer = setTimeout(flush, 0);
    };
    window.addEventListener('pointerdown', down, true);
    window.addEventListener('pointerup', up, true);
    window.addEventListener('pointercancel', up, true);
    return () => {
      window.removeEventListener('pointerdown', down, true);
      window.removeEventListener('pointerup', up, true);
      window.removeEventListener('pointercancel', up, true);
      clearTimeout(timer);
      queue.current = [];
    };
  }, []);

  return useCallback((work: () => void) => {
    if (pressed.current) queue.current.push(work);
    else work();
  }, []);
}
