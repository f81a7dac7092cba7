import { type Finding, finding } from './rules.js';
import {
  JWT,
  PREFIXED_CREDENTIAL,
  URL_CURSOR_PARAMS,
  URL_SECRET_ENDINGS,
  URL_SECRET_LAST_WORDS,
  URL_SECRET_PARAMS,
  words,
} from './words.js';

/**
 * Loopback hosts, where plain http is acceptable (the page never leaves the machine).
 *
 * @example
 * isLoopbackHost(new URL('http://127.0.0.1:7777/password').hostname) // true
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Rule EK14: a URL-mode link must be safe to show and to open. https (or http on loopback), no
 * user:password, no token in the query or fragment: URLs end up in logs, history and screenshots.
 */
export function urlFindings(raw: unknown): Finding[] {
  if (typeof raw !== 'string' || raw.trim() === '') {
    return [finding('EK14', 'the URL-mode request has no url', 'Send an absolute https URL to a page you serve.')];
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [
      finding(
        'EK14',
        `"${raw.slice(0, 80)}" is not a valid absolute URL`,
        'Send an absolute https URL to a page you serve.',
      ),
    ];
  }
  const out: Finding[] = [];
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    out.push(
      finding(
        'EK14',
        `the URL uses ${url.protocol.replace(/:$/, '')} on ${loopback ? 'loopback' : `the remote host ${url.hostname}`}`,
        'Use https (plain http is acceptable only for localhost / 127.0.0.1 / [::1]).',
      ),
    );
  }
  if (url.username !== '' || url.password !== '') {
    out.push(
      finding(
        'EK14',
        'the URL carries credentials (user:password@host)',
        'Remove the credentials; the page must authenticate the person itself.',
      ),
    );
  }
  const params = [...url.searchParams.entries(), ...new URLSearchParams(url.hash.replace(/^#/, '')).entries()];
  for (const [name, value] of params) {
    if (secretName(name) || JWT.test(value) || PREFIXED_CREDENTIAL.test(value)) {
      out.push(
        finding(
          'EK14',
          `the URL carries a credential in its "${name}" parameter`,
          'Keep tokens out of URLs (they end up in history and logs): put an opaque, single-use id in the path and look the session up on the server.',
        ),
      );
    }
  }
  return out;
}

/**
 * Whether a parameter's name says it carries a credential: the name split into words (`_`, `-`,
 * `.`, camelCase) and run together, judged whole (a pagination cursor is no credential), by its
 * last word, or by its ending.
 */
function secretName(name: string): boolean {
  const parts = words(name);
  const compact = parts.join('');
  if (URL_SECRET_PARAMS.has(compact)) return true;
  if (URL_CURSOR_PARAMS.has(compact)) return false;
  const last = parts.at(-1);
  if (last !== undefined && URL_SECRET_LAST_WORDS.has(last)) return true;
  return URL_SECRET_ENDINGS.some((ending) => compact.endsWith(ending));
}
