/**
 * The Public Suffix List, loaded on the first URL question: importing the client does not load
 * it (its cost counts in `bench/cold-start.ts`), and a host that never sees a link never pays.
 */
let list: Promise<typeof import('tldts')> | undefined;

/**
 * Who owns the page a URL opens: its registrable domain (eTLD+1 by the Public Suffix List,
 * private suffixes included, so `evil.github.io` and not `github.io`), in the URL's own form (a
 * Unicode name as `xn--…`, as the URL shows it); the whole host name for an IP address or a name
 * with nothing registrable (`localhost`); never with a trailing dot. `accounts.example.com.evil.test`
 * and `example.com-login.evil.test` both belong to `evil.test`.
 *
 * @example
 * await siteOf('https://accounts.example.com.evil.test/login') // 'evil.test'
 */
export async function siteOf(url: string): Promise<string> {
  const { hostname } = new URL(url);
  const bare = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (bare.startsWith('[')) return bare; // an IPv6 address: no domain to own it
  list ??= import('tldts');
  const { parse } = await list;
  const parsed = parse(bare, { allowPrivateDomains: true });
  return parsed.isIp || !parsed.domain ? bare : parsed.domain;
}
