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

/**
 * Why a chat's request is refused, in each language: the page shows these (a note, the turn's error).
 *
 * @example
 * Response.json({ error: REFUSED[requestLocale(request)].turnRunning }, { status: 409 });
 */
export const REFUSED: Record<
  Locale,
  {
    turnRunning: string;
    noOpsdesk: string;
    badUser: string;
    noSession: string;
    wrongToken: string;
    noPage: string;
    notMessages: string;
    badMessage: string;
    halfCharacter: string;
    tooManyFromAddress: (max: number, minutes: number) => string;
    serverFull: (max: number) => string;
    configInvalid: (why: string) => string;
  }
> = {
  en: {
    turnRunning: 'A turn is already running in this chat.',
    noOpsdesk: 'The identity picker applies to the bundled opsdesk only.',
    badUser: '"user" must be "alice", "bob" or null (the local owner).',
    noSession: 'No session: load the page first.',
    // A page whose chat another tab replaced (a change of identity) holds the old token.
    wrongToken: 'Missing or wrong CSRF token: reload the page (another tab may have changed the chat).',
    // A closing beacon from a page loaded before pages were named: its chat closes at its idle time.
    noPage: 'The body must name the page that is going ("page", a string the chat gave it).',
    // A turn's body is the page's own: these show only when something rewrote it (an old tab, an extension).
    notMessages: 'The body must be an object whose "messages" is an array.',
    badMessage:
      'Each of "messages" must be an object with a "role" and "parts", a list of objects with a "type" (and a text part\'s "text" a string).',
    halfCharacter:
      'Your message holds half of a character (a lone UTF-16 surrogate): no UTF-8 text can carry it. Type or paste it again.',
    tooManyFromAddress: (max, minutes) =>
      `Too many chats are open from your address (at most ${max}). Close another tab of this chat, or wait: an unused chat closes after ${minutes} minutes.`,
    serverFull: (max) => `The chat server is full (${max} chats are open). Try again in a few minutes.`,
    configInvalid: (why) => `The configuration is invalid: ${why}`,
  },
  zh: {
    turnRunning: '这个对话里已有一轮正在进行。',
    noOpsdesk: '身份切换只适用于内置的 opsdesk。',
    badUser: '"user" 必须是 "alice"、"bob" 或 null（本机所有者）。',
    noSession: '没有会话：请先加载页面。',
    wrongToken: 'CSRF 令牌缺失或不对：请重新加载页面（另一个标签页可能已更换了对话）。',
    noPage: '请求体必须指明要离开的页面（"page"，对话给它的字符串）。',
    notMessages: '请求体必须是对象，且其 "messages" 是数组。',
    badMessage:
      '"messages" 的每一项都必须是带有 "role" 和 "parts" 的对象，"parts" 是带有 "type" 的对象列表（文本部分的 "text" 必须是字符串）。',
    halfCharacter: '你的消息含有半个字符（孤立的 UTF-16 代理项）：任何 UTF-8 文本都无法承载它。请重新输入或粘贴。',
    tooManyFromAddress: (max, minutes) =>
      `从你的地址打开的对话太多（最多 ${max} 个）。请关闭这个对话的其他标签页，或稍候：未使用的对话 ${minutes} 分钟后关闭。`,
    serverFull: (max) => `对话服务器已满（已打开 ${max} 个对话）。请几分钟后再试。`,
    // The cause names environment variables (the operator's words): kept as they are.
    configInvalid: (why) => `配置无效：${why}`,
  },
};
