'use client';

import Link from 'next/link';
import type { Locale } from '../lib/locale';
import type { ChatInfo } from '../lib/wire';
import { ConnectionCheck } from './connection-check';
import type { PageTexts } from './texts';

/** The page's header: the model, "test connection", the language, the demo identity, "new chat", the audit link. */
export function TopBar({
  texts,
  locale,
  onLocale,
  info,
  fatal,
  busy,
  canStartNew,
  onChooseUser,
  onNewChat,
}: {
  texts: PageTexts;
  locale: Locale;
  onLocale: (next: Locale) => void;
  info: ChatInfo | null;
  /** Set when no chat could be had: the page is not connected. */
  fatal: boolean;
  busy: boolean;
  canStartNew: boolean;
  onChooseUser: (user: string | null) => void;
  onNewChat: () => void;
}) {
  return (
    <header className="topbar">
      <h1>{texts.title}</h1>
      <span className={`model ${info?.model ? '' : 'no-model'}`} role="status">
        {fatal ? texts.notConnected : info ? (info.model ? texts.model(info.model) : texts.noModel) : texts.connecting}
      </span>
      {info?.model ? <ConnectionCheck texts={texts} csrf={info.csrf} locale={locale} /> : null}
      <label className="language">
        <span className="visually-hidden">{texts.language}</span>
        <select value={locale} onChange={(e) => onLocale(e.target.value as Locale)} aria-label={texts.language}>
          <option value="en">English</option>
          <option value="zh">中文</option>
        </select>
      </label>
      {info?.identity ? (
        <label className="identity" title={texts.identityNote}>
          {texts.identity}{' '}
          <select
            value={info.identity.user ?? ''}
            disabled={busy}
            aria-describedby="identity-note"
            onChange={(e) => onChooseUser(e.target.value === '' ? null : e.target.value)}
          >
            <option value="">{texts.localOwner}</option>
            {info.identity.choices.map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
          <span id="identity-note" className="visually-hidden">
            {texts.identityNote}
          </span>
        </label>
      ) : null}
      <button type="button" className="secondary" onClick={onNewChat} disabled={!canStartNew}>
        {texts.newChat}
      </button>
      <Link href="/audit">{texts.auditTrail}</Link>
    </header>
  );
}
