'use client';

import { type RefObject, useEffect, useRef, useState } from 'react';
import type { Locale } from '../lib/locale';
import type { ChatInfo, ToolInfo, ToolListing } from '../lib/wire';

/**
 * What `chooseUser` reports: done (`renewed`: as a new chat, whose conversation starts empty), or
 * the server's reason (`undefined`: the server did not answer).
 */
export type UserChoice = { ok: true; renewed: boolean } | { ok: false; error: string | undefined };

/**
 * This document's name in its chat (`ChatInfo.page`), kept across the chat page's mounts: React
 * mounts it twice in strict mode, and a client-side navigation away (the audit trail) and back
 * mounts it again — the same page, which must not be counted as another one (its one beacon would
 * then leave the chat open). Said once, in the closing beacon.
 */
let documentPage = '';
/** The document's last `GET /api/chat/info` in flight: a mount meanwhile waits for the name it brings. */
let opening: Promise<unknown> = Promise.resolve();

/**
 * Opens (or finds) the chat for this document, saying the page's name once it has one; one request
 * at a time, so a second mount (strict mode's, at once) waits for the first's name rather than
 * be counted as another page. The reply (undefined: the server did not answer) and its body.
 */
function openChat(
  locale: Locale,
): Promise<{ reply: Response | undefined; answer: (ChatInfo & { error?: string }) | undefined }> {
  const next = opening.then(async () => {
    const reply = await fetch('/api/chat/info', {
      headers: { 'x-elicitkit-locale': locale, ...(documentPage ? { 'x-elicitkit-page': documentPage } : {}) },
    }).catch(() => undefined);
    const answer = (await reply?.json().catch(() => undefined)) as (ChatInfo & { error?: string }) | undefined;
    if (reply?.ok && answer) documentPage = answer.page;
    return { reply, answer };
  });
  opening = next.catch(() => {});
  return next;
}

/**
 * The browser's chat on the server: opened (or found by its cookie) on mount with
 * `GET /api/chat/info`, then the tools of its servers; closed with a beacon when the tab goes.
 * `fatal` is why no chat could be had (`'gone'`: the server did not answer); `csrf` holds the
 * chat's token for the requests the page makes.
 */
export function useChatInfo(localeRef: RefObject<Locale>) {
  const [info, setInfo] = useState<ChatInfo | null>(null);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [toolsError, setToolsError] = useState<string | null>(null);
  const [fatal, setFatal] = useState<string | null | 'gone'>(null);
  const csrf = useRef('');

  useEffect(() => {
    void (async () => {
      // In the page's language: a refusal (too many chats, a broken configuration) is shown as it comes.
      const { reply, answer } = await openChat(localeRef.current);
      if (!reply?.ok || !answer) {
        setFatal(answer?.error ?? 'gone');
        return;
      }
      csrf.current = answer.csrf;
      setInfo(answer);
      const response = await fetch('/api/tools', { headers: { 'x-elicitkit-locale': localeRef.current } }).catch(
        () => undefined,
      );
      const body = (await response?.json().catch(() => undefined)) as
        | (Partial<ToolListing> & { error?: string })
        | undefined;
      if (body?.tools) {
        setTools(body.tools);
        // Another server's tools are shown; the one that did not answer says why.
        if (body.unavailable?.length) setToolsError(body.unavailable.map((u) => u.message).join(' '));
      } else setToolsError(body?.error ?? '');
    })();
  }, [localeRef]);

  // The tab is going: close the chat on the server now rather than at its idle time (the server
  // does once every page showing it has gone). Said once: a page restored from the back/forward
  // cache has left its chat, so it reloads — and that reload's pagehide has nothing more to say.
  useEffect(() => {
    const leave = () => {
      if (!csrf.current || !documentPage) return;
      navigator.sendBeacon('/api/chat/close', JSON.stringify({ csrf: csrf.current, page: documentPage }));
      documentPage = '';
    };
    const back = (event: PageTransitionEvent) => {
      if (event.persisted) window.location.reload();
    };
    window.addEventListener('pagehide', leave);
    window.addEventListener('pageshow', back);
    return () => {
      window.removeEventListener('pagehide', leave);
      window.removeEventListener('pageshow', back);
    };
  }, []);

  /**
   * The demo identity picker: who the chat acts as from its next tool call (`null`: the local
   * owner). A change is a new chat on the server (its cookie set by the response, its token in it):
   * the old chat's token is refused from then on.
   */
  const chooseUser = async (user: string | null): Promise<UserChoice> => {
    const reply = await fetch('/api/chat/identity', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-elicitkit-csrf': csrf.current,
        // A refusal (a turn running) is shown as a note: in the page's language.
        'x-elicitkit-locale': localeRef.current,
      },
      body: JSON.stringify({ user }),
    }).catch(() => undefined);
    const body = (await reply?.json().catch(() => undefined)) as
      | { user?: string | null; csrf?: string; page?: string; error?: string }
      | undefined;
    if (!reply?.ok) return { ok: false, error: body?.error };
    const renewed = typeof body?.csrf === 'string' && body.csrf !== csrf.current;
    if (renewed && body?.csrf) {
      csrf.current = body.csrf;
      // The old chat is gone with this page's name in it; the new one names this page afresh.
      documentPage = typeof body.page === 'string' ? body.page : '';
    }
    setInfo(
      (i) =>
        i && {
          ...i,
          ...(body?.csrf ? { csrf: body.csrf } : {}),
          identity: i.identity ? { ...i.identity, user } : null,
        },
    );
    return { ok: true, renewed };
  };

  return { info, tools, toolsError, fatal, csrf, chooseUser };
}
