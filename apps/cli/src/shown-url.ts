/**
 * How the CLI prints a URL that may carry a credential: the target's (in every line and report
 * that names it) and any URL an error's message quotes. Imported by `main` on any failure, so it
 * loads nothing else.
 */

/**
 * A URL as the CLI prints it: without its `user:password@` and `#fragment`, and with every query
 * value shown as `…` (`?token=s3cret&v=2` → `?token=…&v=…`; a part with no `=` → `…`) — a key or
 * token is often passed there, and the names alone still tell which endpoint it is.
 *
 * @example
 * shownUrl(new URL('https://u:p@host/mcp?token=s3cret#x')) // 'https://host/mcp?token=…'
 */
export function shownUrl(url: URL): string {
  const query = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => (part.includes('=') ? `${part.slice(0, part.indexOf('='))}=…` : '…'));
  const host = url.host === '' ? '' : `//${url.host}`;
  return `${url.protocol}${host}${url.pathname}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/**
 * `text` (an error's message, which may quote a URL: the SDK's own, a redirect's) with each
 * http(s) URL in it printed as `shownUrl` prints one.
 *
 * @example
 * urlsShown('Redirect to https://h/mcp/?token=s3cret not followed') // 'Redirect to https://h/mcp/?token=… not followed'
 */
export function urlsShown(text: string): string {
  return shownWhere(text, /\bhttps?:\/\/[^\s"'<>`]+/gi, () => true);
}

/**
 * `text` (a config's value) with each URL that may hold a credential printed as `shownUrl` prints
 * one: every http(s) URL, and a URL of any other scheme holding a `user:password@`, a query or a
 * fragment — a database's `postgresql://admin:s3cret@db/prod` passed to a server as an argument is
 * the commonest credential in an MCP config; one holding none of them is left as written.
 *
 * @example
 * credentialUrlsShown('postgresql://admin:s3cret@db/prod') // 'postgresql://db/prod'
 */
export function credentialUrlsShown(text: string): string {
  return shownWhere(
    text,
    /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi,
    (url) => /^https?:/i.test(url) || /^[^:]+:\/\/[^/?#]*@/.test(url) || /[?#]/.test(url),
  );
}

/** `text` with each URL `pattern` finds that `masked` picks printed as `shownUrl` prints one. */
function shownWhere(text: string, pattern: RegExp, masked: (url: string) => boolean): string {
  return text.replace(pattern, (found) => {
    // A URL ends before a closing mark that follows it in a sentence.
    const [, body = found, tail = ''] = /^(.*?)([).,;:!?\]]*)$/s.exec(found) ?? [];
    if (!masked(body)) return found;
    try {
      return `${shownUrl(new URL(body))}${tail}`;
    } catch {
      return `${withoutUserinfo(body).replace(/[?#].*$/s, '?…')}${tail}`;
    }
  });
}

/** A target as typed, its `user:password@` (which may be a password) shown as `…@`. */
export function withoutUserinfo(word: string): string {
  return word.replace(/^([a-z][a-z0-9+.-]*:\/*)[^/?#]*@/i, '$1…@');
}

/** A target as typed, its query and fragment (which may hold a token) shown as `?…`. */
export function withoutQuery(word: string): string {
  return word.replace(/[?#].*$/s, '?…');
}
