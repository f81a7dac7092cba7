import { isIPv6 } from 'node:net';

/**
 * The client address a request came from, for the per-address chat cap. Route handlers do not
 * see the socket: Next.js puts its peer address in `x-forwarded-for` when the header is absent,
 * and a reverse proxy appends the address it saw. So the last hop is the one a party we run
 * wrote; anything before it is the client's own claim and is ignored. A client that reaches
 * Next.js directly and sends the header itself names its own address (Next.js keeps it): run
 * the app on loopback or behind a proxy that sets the header; `ELICITKIT_MAX_CHATS` bounds the
 * total either way.
 */
export function clientAddress(request: Request): string {
  const hops = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  return normalize(hops.at(-1) ?? 'unknown').slice(0, 64);
}

/**
 * `::ffff:127.0.0.1` and `127.0.0.1` are one client; so is every IPv6 address of one /64, the
 * smallest network handed to a client (it may use a new address for each connection), written as
 * its prefix: `2001:db8:1:2::/64`.
 */
function normalize(address: string): string {
  const a = address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return isIPv6(a) ? `${groups(a).slice(0, 4).join(':')}::/64` : a;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` filled in, leading zeros dropped. */
function groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  // A dotted IPv4 tail is the last two groups: it only counts here, past the /64.
  const split = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const before = split(head);
  const after = tail === undefined ? [] : split(tail);
  const zeros = Array<string>(8 - before.length - after.length).fill('0');
  return [...before, ...zeros, ...after].map((g) => Number.parseInt(g, 16).toString(16));
}
