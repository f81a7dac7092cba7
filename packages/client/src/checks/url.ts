import { isLoopbackHost, lint } from '@elicitkit/form';
import type { UrlWarning } from '../types.js';

/**
 * The longest URL a question may offer, in characters (as normalized). The person reads all of it
 * before consenting, and web servers need not take more (RFC 9110 asks for 8,000 octets at least;
 * nginx's default stops there): a longer one is no link but a load, which took seconds to inspect
 * and to draw.
 */
export const MAX_URL_LENGTH = 8_192;

/**
 * A URL that may be offered to the person, with everything they should know about it.
 *
 * @example
 * const seen = inspectUrl(params.url);
 * if (seen.ok) showConsent(seen.url, seen.host, seen.warnings);
 */
export interface InspectedUrl {
  ok: true;
  /** Normalized: a Unicode host appears as `xn--…`, which exposes look-alike hosts. */
  url: string;
  host: string;
  hostIndex: number;
  warnings: UrlWarning[];
}

/**
 * A URL that must not be offered at all (not absolute, not http(s), or over `MAX_URL_LENGTH`):
 * answer -32602.
 *
 * @example
 * if (!seen.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, seen.message);
 */
export interface RejectedUrl {
  ok: false;
  message: string;
}

/**
 * Looks at a URL-mode link the way a careful person would before clicking: the real host, an
 * internationalized (punycode) host, plain http to a remote machine, credentials, tokens in the
 * query or fragment. Only http(s) links are acceptable at all: anything else (`file:`,
 * `javascript:`, custom schemes) would hand the opener something other than a web page.
 *
 * @example
 * const seen = inspectUrl('http://xn--pypal-4ve.com/login?token=abc');
 * // seen.ok && seen.warnings.map((w) => w.code) → ['punycode', 'insecure', 'token']
 */
export function inspectUrl(raw: string): InspectedUrl | RejectedUrl {
  if (raw.length > MAX_URL_LENGTH) return tooLong(raw.length);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `The URL-mode request has ${JSON.stringify(raw.slice(0, 80))}, not an absolute URL.` };
  }
  // Normalizing percent-encodes a Unicode path and query: it is the normalized URL that is shown and opened.
  if (url.href.length > MAX_URL_LENGTH) return tooLong(url.href.length);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      ok: false,
      message: `The URL-mode request uses the ${url.protocol} scheme; only https (or http on loopback) pages can be opened.`,
    };
  }
  const warnings: UrlWarning[] = [];
  const labels = url.hostname.split('.').filter((label) => label.toLowerCase().startsWith('xn--'));
  if (labels.length > 0) {
    warnings.push({
      code: 'punycode',
      message: `The host ${url.hostname} uses internationalized characters (${labels.join(', ')}); it may imitate a familiar name.`,
    });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    warnings.push({
      code: 'insecure',
      message: `The link uses plain http to ${url.hostname}; anything you enter there can be read on the way.`,
    });
  }
  if (url.username !== '' || url.password !== '') {
    warnings.push({
      code: 'credentials',
      message: 'The link carries a user name or password before the host; the real site is after the "@".',
    });
  }
  warnings.push(...tokenWarnings(url));
  const userinfo = url.username !== '' || url.password !== '' ? url.href.indexOf('@', url.protocol.length) + 1 : 0;
  const hostIndex = userinfo > 0 ? userinfo : url.protocol.length + 2;
  return { ok: true, url: url.href, host: url.host, hostIndex, warnings };
}

function tooLong(length: number): RejectedUrl {
  return {
    ok: false,
    message: `The URL-mode request's URL is ${length} characters long, over the ${MAX_URL_LENGTH} a link may have. Keep what the page needs on the server, behind a short link.`,
  };
}

/**
 * Token-like parameters, judged by lint's rule EK14 so that the client and `doctor` agree. Lint
 * reports EK14 for several reasons at once, so it is given only the query and fragment, on a
 * neutral https host: every EK14 finding left is about a parameter.
 */
function tokenWarnings(url: URL): UrlWarning[] {
  if (url.search === '' && url.hash === '') return [];
  const probe = `https://example.com/${url.search}${url.hash}`;
  return lint({ mode: 'url', message: 'Open the page to continue.', url: probe })
    .filter((f) => f.rule === 'EK14')
    .map((f) => ({ code: 'token' as const, message: `${capitalize(f.message)}: it may end up in history and logs.` }));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
