'use client';

import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** Within this many pixels of the end counts as "at the bottom" (sub-pixel scrolling, a last line). */
const SLACK_PX = 48;

/**
 * Keeps a scrolling container at its newest content while the person is at the bottom, and only
 * then: once they scroll up to read, new content leaves them where they are and `unseen` turns on
 * (for a "jump to latest" button).
 */
export function useStickToBottom(
  container: RefObject<HTMLElement | null>,
  content: unknown,
): { unseen: boolean; jump: () => void } {
  const atBottom = useRef(true);
  const lastHeight = useRef(0);
  const [unseen, setUnseen] = useState(false);

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const onScroll = () => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK_PX;
      if (atBottom.current) setUnseen(false);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [container]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of the content, which is the point
  useLayoutEffect(() => {
    const el = container.current;
    if (!el) return;
    // Where the person was before this content arrived, from the height it had then: the scroll
    // event of a scroll just made may not have been delivered yet.
    const was =
      lastHeight.current === 0 ? atBottom.current : lastHeight.current - el.scrollTop - el.clientHeight <= SLACK_PX;
    if (was) el.scrollTop = el.scrollHeight;
    else if (el.scrollHeight > el.clientHeight) setUnseen(true);
    atBottom.current = was;
    lastHeight.current = el.scrollHeight;
  }, [content, container]);

  const jump = useCallback(() => {
    const el = container.current;
    if (!el) return;
    atBottom.current = true;
    setUnseen(false);
    el.scrollTo({ top: el.scrollHeight });
  }, [container]);

  return { unseen, jump };
}
