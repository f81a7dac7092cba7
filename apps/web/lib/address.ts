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

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
function normalize(address: string): string {
  return address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}
