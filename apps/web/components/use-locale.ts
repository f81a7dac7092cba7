'use client';

import { useEffect, useState } from 'react';
import { isLocale, type Locale, localeCookie, pickLocale } from '../lib/locale';

const KEY = 'elicitkit.locale';

/**
 * The page's language: the person's saved choice, else the browser's languages (the server's
 * first guess, from Accept-Language, avoids a flash of the wrong language).
 */
export function useLocale(initial: Locale): [Locale, (next: Locale) => void] {
  const [locale, setLocale] = useState<Locale>(initial);
  useEffect(() => {
    const saved = localStorage.getItem(KEY);
    setLocale(isLocale(saved) ? saved : pickLocale(navigator.languages));
  }, []);
  useEffect(() => {
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
  }, [locale]);
  const choose = (next: Locale) => {
    localStorage.setItem(KEY, next);
    // The audit page is drawn on the server: it reads the choice from this cookie (`__Host-` over https).
    // biome-ignore lint/suspicious/noDocumentCookie: one fixed name, a value from a two-item list; the Cookie Store API is not in every browser
    document.cookie = localeCookie(next, location.protocol);
    setLocale(next);
  };
  return [locale, choose];
}
