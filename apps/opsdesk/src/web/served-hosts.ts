/**
 * The `Host` names `serve --http` answers, for `/mcp` and the password page alike. A page elsewhere
 * can reach a listener through DNS rebinding (its own name re-pointed at this machine), but its
 * requests then name its own host, never one of these: so opsdesk never answers any Host at all.
 */
import { isIPv6 } from 'node:net';
import { localhostAllowedHostnames } from '@modelcontextprotocol/server';

/** Who `serve --http` answers, and the host its URLs name. */
export interface ServedHosts {
  /** Host names as a URL spells them (lower case, IPv6 in brackets): loopback, the bound address, the named hosts. */
  allowed: string[];
  /** The host in the printed URL and the password links: the bound address, or on a wildcard the first named host. */
  inUrls: string;
}

/**
 * The hosts a listener bound to `bind` answers: loopback names always, `bind` itself when it is
 * one address, and the hosts clients were said to use (`named`). A wildcard bind (`0.0.0.0`,
 * `::`) without named hosts is refused: its clients come by names opsdesk cannot guess, and
 * answering any name would undo the DNS-rebinding check.
 *
 * @example
 * servedHosts('0.0.0.0', ['ops.example.com']); // { allowed: [loopback…, 'ops.example.com'], inUrls: 'ops.example.com' }
 */
export function servedHosts(bind: string, named: readonly string[] = []): ServedHosts {
  const names = named.map(namedHost);
  const wildcard = isWildcard(bind);
  if (wildcard && names.length === 0)
    throw new Error(
      `opsdesk would listen on every interface (${bind}) but answer only requests for localhost: name the host(s) clients will use to reach it, comma-separated — ELICITKIT_ALLOWED_HOSTS=ops.example.com,10.0.0.7 for elicitkit serve, allowedHosts for serveHttp. Requests for any other host are refused (DNS rebinding).`,
    );
  const own = wildcard ? undefined : urlHostName(bind);
  return {
    allowed: [...new Set([...localhostAllowedHostnames(), ...(own ? [own] : []), ...names])],
    inUrls: wildcard ? (names[0] as string) : bind.includes(':') ? `[${bind}]` : bind,
  };
}

/** Listening on every interface: IPv4's `0.0.0.0` or IPv6's `::`, however it is spelled. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || urlHostName(host) === '[::]';
}

/** A host name clients use, as a URL spells it; a clear error for anything else (a port, a scheme, a path). */
function namedHost(entry: string): string {
  const name = entry.trim();
  const spelled = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/i.test(name) || isIPv6(name) ? urlHostName(name) : undefined;
  if (spelled === undefined || isWildcard(name))
    throw new Error(
      `"${name}" is not a host clients can reach opsdesk at: ELICITKIT_ALLOWED_HOSTS and allowedHosts take host names or addresses without a scheme or port, such as ops.example.com, 10.0.0.7 or [fd00::7].`,
    );
  return spelled;
}

/** `host` as `new URL` spells it (what the Host check compares with), or undefined when no URL can hold it. */
function urlHostName(host: string): string | undefined {
  try {
    return new URL(`http://${isIPv6(host) ? `[${host}]` : host}/`).hostname;
  } catch {
    return undefined;
  }
}
