/** The languages of the whole UI. */
export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The first supported language of a preference list (`navigator.languages`, or an
 * `Accept-Language` header split by `localeFromHeader`); English when none is supported.
 *
 * @example
 * pickLocale(['zh-CN', 'en']); // 'zh'
 */
export function pickLocale(preferences: readonly string[]): Locale {
  for (const tag of preferences) {
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (isLocale(primary)) return primary;
  }
  return 'en';
}

/**
 * `Accept-Language: zh-CN,zh;q=0.9,en;q=0.8` → 'zh', honouring q-values.
 *
 * @example
 * localeFromHeader('en-US,en;q=0.9'); // 'en'
 */
export function localeFromHeader(header: string | null | undefined): Locale {
  const ranked = (header ?? '')
    .split(',')
    .map((item, index) => {
      const [tag = '', ...params] = item.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return pickLocale(ranked.map((x) => x.tag));
}

/**
 * The page's chosen language as its requests carry it (`x-elicitkit-locale`), else the browser's.
 *
 * @example
 * requestLocale(request); // 'zh'
 */
export function requestLocale(request: Request): Locale {
  const chosen = request.headers.get('x-elicitkit-locale');
  return isLocale(chosen) ? chosen : localeFromHeader(request.headers.get('accept-language'));
}

/** The cookie that carries the chosen language to the audit page (drawn on the server), on plain http. */
export const LOCALE_COOKIE = 'elicitkit_locale';
/**
 * The same over https: `__Host-`, so a sibling subdomain or a plain-http response cannot set it
 * (as the chat cookie, `SECURE_CHAT_COOKIE`).
 */
export const SECURE_LOCALE_COOKIE = '__Host-elicitkit_locale';

/**
 * The `document.cookie` assignment that saves `locale` for a page loaded over `protocol`.
 *
 * @example
 * document.cookie = localeCookie('zh', location.protocol); // '__Host-elicitkit_locale=zh; …; Secure' on https
 */
export function localeCookie(locale: Locale, protocol: string): string {
  const https = protocol === 'https:';
  return `${https ? SECURE_LOCALE_COOKIE : LOCALE_COOKIE}=${locale}; Path=/; SameSite=Strict; Max-Age=31536000${https ? '; Secure' : ''}`;
}
