import { type Locale, requestLocale } from './locale';

/**
 * The chat runs tools that change things (deploys, SQL) for whoever holds its session, and it
 * listens on a loopback address. A page elsewhere could still reach it through DNS rebinding: its
 * own host name, re-pointed at 127.0.0.1, makes the browser treat our API as same-origin. So every
 * request must name a host we serve — loopback by default, more through ELICITKIT_ALLOWED_HOSTS
 * (comma-separated host names, for a deployment behind a reverse proxy).
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a request is refused, in each language: a person typing a host we do not serve reads it. */
const SAY: Record<
  Locale,
  { host: (host: string) => string; otherSite: string; otherOrigin: string; from: (origin: string) => string }
> = {
  en: {
    host: (host) => `Host "${host}" is not served here; set ELICITKIT_ALLOWED_HOSTS to add it.`,
    otherSite: 'Requests from another site are not accepted.',
    otherOrigin: 'Requests from another origin are not accepted.',
    from: (origin) => `Requests from ${origin} are not accepted.`,
  },
  zh: {
    host: (host) => `这里不提供主机“${host}”；要加入它，请设置 ELICITKIT_ALLOWED_HOSTS。`,
    otherSite: '不接受来自其他站点的请求。',
    otherOrigin: '不接受来自其他源的请求。',
    from: (origin) => `不接受来自 ${origin} 的请求。`,
  },
};

export function allowedHosts(env: Record<string, string | undefined> = process.env): Set<string> {
  const extra = (env.ELICITKIT_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return new Set([...LOOPBACK, ...extra]);
}

/** The host name of a Host header, without the port; undefined when malformed. */
export function hostName(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match?.[1]?.toLowerCase();
}

/** Why the request is refused (403), or undefined when its Host and Origin are ours. */
export function foreignRequest(request: Request, allowed = allowedHosts()): string | undefined {
  // The page's language where it sent it, else the browser's (an address typed in the bar).
  const say = SAY[requestLocale(request)];
  const host = hostName(request.headers.get('host'));
  if (host === undefined || !allowed.has(host)) return say.host(request.headers.get('host') ?? '');
  // What the browser says of where a request came from: another site's page may link to ours (a
  // navigation to a page), but never reach the API, not even by a GET (an <img> opening chats that
  // count against the person's own address until none is left for them). Nor may another origin
  // of the same site — another port of localhost, a sibling subdomain: ports do not make a site,
  // and SameSite=Strict cookies go along. Only the page's own requests (`same-origin`) reach the
  // API, and what no page sent (`none`: typed in the address bar; no header: not a browser).
  const site = request.headers.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') {
    if (request.headers.get('sec-fetch-mode') !== 'navigate' || new URL(request.url).pathname.startsWith('/api/'))
      return site === 'cross-site' ? say.otherSite : say.otherOrigin;
  }
  // A write's Origin must be this host — and, for a page served over https, over https: a
  // plain-http page of the same host name (what anyone on the network can answer with) is another
  // origin, which a browser that sends no Sec-Fetch-Site would otherwise let through.
  const origin = request.headers.get('origin');
  if (origin !== null && request.method !== 'GET' && request.method !== 'HEAD') {
    let from: URL | undefined;
    try {
      from = new URL(origin);
    } catch {
      from = undefined;
    }
    if (from?.host !== request.headers.get('host') || (overHttps(request) && from.protocol !== 'https:'))
      return say.from(origin);
  }
  return undefined;
}

/**
 * Whether the page was served over https — here, or by the proxy in front (`x-forwarded-proto`).
 * Plain http (`npm start` on loopback) keeps unprefixed, non-Secure cookies: browsers differ on
 * taking `Secure` (and so `__Host-`) cookies from http://localhost or http://127.0.0.1, and on
 * loopback every port of the host shares its cookies anyway (docs/web.md says so).
 */
export function overHttps(request: Request): boolean {
  const forwarded = (request.headers.get('x-forwarded-proto') ?? '').split(',').map((p) => p.trim().toLowerCase());
  return new URL(request.url).protocol === 'https:' || forwarded.includes('https');
}
