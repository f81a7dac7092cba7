import { createServer, isIP } from 'node:net';
import { redactedUrl } from '@elicitkit/opsdesk';
import { UsageError } from '../usage.js';

/**
 * What `serve --http` must know is good before it writes anything (makes, seeds or resets the
 * data directory): each is a check opsdesk's start would fail on after `--reset` had run.
 */

/**
 * A host name as DNS spells one (RFC 1123: letters, digits and inner hyphens, dot-separated), its
 * last label not all digits — so `1.2.3.4.5` and `300.1.1.1` are neither an address nor a name.
 */
export function isHostName(host: string): boolean {
  const labels = host.replace(/\.$/, '').split('.');
  return (
    host.length <= 253 &&
    labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(label)) &&
    !/^\d+$/.test(labels.at(-1) ?? '')
  );
}

/**
 * Listens on `host:port` and lets go at once, or fails as opsdesk's own bind would (exit 1, why in
 * the message): the address is not this machine's, the name resolves to none, the port is taken.
 */
export async function canListen(flag: string, host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `opsdesk cannot listen on ${host}:${port}${flag === '--http' ? '' : ` (${flag})`}: ${listenTrouble(error)}; nothing was written or reset`,
        ),
      ),
    );
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise((resolve) => probe.close(resolve));
}

/** Why a bind failed, and what to do about it. */
function listenTrouble(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'EADDRINUSE (another process has it: pick another port, or 0 for a free one)';
    case 'EACCES':
      return 'EACCES (not allowed to use it: ports below 1024 need privileges)';
    case 'EADDRNOTAVAIL':
      return 'EADDRNOTAVAIL (no interface of this machine has that address)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${error.code} (the name resolves to no address)`;
    default:
      return error.code ?? error.message;
  }
}

/**
 * The hosts clients use besides loopback, from `ELICITKIT_ALLOWED_HOSTS` (comma-separated, as the
 * web app reads it), for a listener on `bind`. Each must be a host name or an address without a
 * scheme or port, and a wildcard `bind` (`0.0.0.0`, `::`) needs one at least: a usage error
 * otherwise, found before `--reset` runs rather than by opsdesk's start after it.
 *
 * @example
 * allowedHostsFrom('ops.example.com, 10.0.0.7', '0.0.0.0') // ['ops.example.com', '10.0.0.7']
 */
export function allowedHostsFrom(raw: string | undefined, bind: string): string[] {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  for (const host of hosts) {
    const inBrackets = /^\[(.*)\]$/.exec(host)?.[1];
    const address = inBrackets ?? host;
    const spelled = inBrackets === undefined ? isIP(host) !== 0 || isHostName(host) : isIP(inBrackets) === 6;
    if (!spelled || isWildcard(address)) throw notAHost(host);
  }
  if (hosts.length === 0 && isWildcard(bind))
    throw new UsageError(
      `--host ${bind} listens on every interface: name the hosts clients use to reach it in ELICITKIT_ALLOWED_HOSTS (comma-separated, e.g. ops.example.com,10.0.0.7); requests naming any other host are refused (DNS rebinding)`,
    );
  return hosts;
}

function notAHost(host: string): UsageError {
  return new UsageError(
    `ELICITKIT_ALLOWED_HOSTS: "${host}" is not a host clients can reach opsdesk at: give host names or addresses without a scheme or port, such as ops.example.com, 10.0.0.7 or [fd00::7]`,
  );
}

/** Every interface: IPv4's `0.0.0.0` or IPv6's `::`, however it is spelled (`0:0::0`). */
function isWildcard(host: string): boolean {
  if (isIP(host) === 4) return host === '0.0.0.0';
  return isIP(host) === 6 && new URL(`http://[${host}]/`).hostname === '[::]';
}

/** A bound on each step of the Redis probe: a server that takes the connection and never answers. */
const REDIS_PROBE_MS = 5_000;

/**
 * Connects to the Redis at `url`, asks it PING and lets go, or fails saying why (exit 1) with the
 * URL's password masked: replicas cannot start without it, and only a connection can tell.
 */
export async function canReachRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_PROBE_MS,
    commandTimeout: REDIS_PROBE_MS,
    retryStrategy: () => null,
  });
  let seen: Error | undefined;
  redis.on('error', (error: Error) => {
    seen ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const why = (seen ?? error) as NodeJS.ErrnoException;
    throw new Error(
      `opsdesk cannot reach Redis at ${redactedUrl(url)}: ${why.code ?? why.message}; nothing was written or reset`,
    );
  } finally {
    redis.disconnect();
  }
}
