import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { defaultDataDir, localeFrom, redactedUrl, serveHttp, serveStdioOpsdesk } from '@elicitkit/opsdesk';
import { LOCALES } from '@elicitkit/server';
import type { Io } from '../io.js';
import { EXIT, refuseEmptyValues, UsageError, wholeNumber } from '../usage.js';
import { databaseFrom } from './database.js';
import { confirmReset, runReset } from './reset.js';
import { allowedHostsFrom, canListen, canReachRedis, isHostName } from './serve-preflight.js';
import { stateSecretFrom } from './state-secret.js';

/** `elicitkit serve`: opsdesk over stdio (default) or HTTP. Logs go to stderr; stdout is the wire. */
export async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      user: { type: 'string' },
      lang: { type: 'string' },
      'page-port': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-sessions-per-user': { type: 'string' },
      'max-calls-per-user': { type: 'string' },
      redis: { type: 'string' },
      'relay-listen': { type: 'string' },
      'relay-advertise': { type: 'string' },
      database: { type: 'string' },
      'state-secret-file': { type: 'string' },
      reset: { type: 'boolean' },
      yes: { type: 'boolean' },
      'new-tokens': { type: 'boolean' },
    },
    strict: true,
  });
  refuseEmptyValues(values);
  if (values.stdio && values.http !== undefined) throw new UsageError('choose one of --stdio and --http PORT');
  for (const flag of ['max-sessions', 'max-sessions-per-user', 'max-calls-per-user'] as const) {
    if (values[flag] !== undefined && values.http === undefined) throw new UsageError(`--${flag} applies to --http`);
  }
  if (values.lang !== undefined && !LOCALES.some((locale) => locale === values.lang))
    throw new UsageError(`--lang must be ${LOCALES.join(' or ')}, not "${values.lang}"`);
  // An empty ELICITKIT_DATA is not set (as every ELICITKIT_* variable): never the current directory.
  const explicitData = values.data ?? (process.env.ELICITKIT_DATA || undefined);
  const dataDir = explicitData ?? defaultDataDir();
  const redis = values.redis ?? (process.env.ELICITKIT_REDIS_URL || undefined);
  const database = databaseFrom(values.database, process.env);
  if (values.redis !== undefined && values.http === undefined) throw new UsageError('--redis applies to --http');
  if (values['new-tokens'] && values.http === undefined)
    throw new UsageError('--new-tokens applies to --http; over stdio --user says who is calling');
  if (values['state-secret-file'] !== undefined && values.http === undefined)
    throw new UsageError('--state-secret-file applies to --http');
  const secret = values.http === undefined ? undefined : stateSecretFrom(values['state-secret-file'], process.env);
  if (
    redis !== undefined &&
    values.http !== undefined &&
    explicitData === undefined &&
    secret === undefined &&
    database === undefined
  )
    throw new UsageError(
      'replicas need one requestState key: give --database URL (kept there), --data DIR (the same directory on every replica) or ELICITKIT_STATE_SECRET / --state-secret-file FILE',
    );
  if (redis !== undefined && !/^rediss?:\/\//.test(redis))
    throw new UsageError(`--redis needs a redis:// or rediss:// URL, not "${redis}"`);
  const relayDirect = relayDirectFrom(values['relay-listen'], values['relay-advertise'], redis, values.http);
  const locale = localeFrom(values.lang ?? process.env.LANG);
  // A question's timer: setTimeout's largest delay (a larger one fires at once; the kit refuses it).
  const timeoutMs =
    values['timeout-ms'] === undefined ? undefined : integer('--timeout-ms', values['timeout-ms'], 1, 2 ** 31 - 1);
  // "--user $NAME" with NAME unset: not the OS user, the local owner of every project.
  if (values.user === '') throw new UsageError('--user needs a user name, not an empty one');
  // Every flag is read before anything is written: a mistake found after --reset would cost the data.
  const http = values.http === undefined ? undefined : httpOptions(values);
  if (values.host !== undefined) {
    if (values.http === undefined) throw new UsageError('--host applies to --http');
    if (!isIP(values.host) && !isHostName(values.host))
      throw new UsageError(`--host needs an IP address or a host name of this machine, not "${values.host}"`);
  }
  // --page-port wins over ELICITKIT_PAGE_PORT; either pins the password page (opened when first needed).
  const pagePortRaw = values['page-port'] ?? (process.env.ELICITKIT_PAGE_PORT || undefined);
  const pagePort =
    pagePortRaw === undefined
      ? undefined
      : integer(values['page-port'] === undefined ? 'ELICITKIT_PAGE_PORT' : '--page-port', pagePortRaw, 0, 65_535);
  // As the web app reads it: the hosts clients use besides loopback (needed with --host 0.0.0.0).
  const allowedHosts =
    http === undefined ? [] : allowedHostsFrom(process.env.ELICITKIT_ALLOWED_HOSTS, values.host ?? '127.0.0.1');
  if (http !== undefined) {
    // Only a bind can tell an address of another machine, or a port another process has: tried
    // here, and let go, before the data directory is made, seeded or reset.
    await canListen('--http', values.host ?? '127.0.0.1', http.port);
    if (relayDirect) await canListen('--relay-listen', relayDirect.host, relayDirect.port);
    // Only a connection can tell a Redis that is not there, or will not have us.
    if (redis !== undefined) await canReachRedis(redis);
  }
  const common = { dataDir, locale, ...(timeoutMs ? { timeoutMs } : {}), ...(database ? { database } : {}) };
  const where = `data: ${dataDir}${database ? `; state in ${redactedUrl(database)}` : ''}`;
  if (values.reset) {
    // Under --stdio, stdin is the MCP wire: nobody can be asked on it.
    if (values.http === undefined && !values.yes)
      throw new UsageError('serve --stdio --reset needs --yes (stdin is the MCP connection, so it cannot ask)');
    if (!(await confirmReset(dataDir, values.yes === true))) {
      io.err('Nothing was reset.');
      return EXIT.refused;
    }
    await runReset(dataDir, database, io);
  }

  if (http !== undefined) {
    const { port, limits } = http;
    const serving = await serveHttp({
      ...common,
      port,
      limits,
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
      ...(redis ? { redis } : {}),
      ...(relayDirect ? { relayDirect } : {}),
      ...(secret ? { secret } : {}),
      ...(values['new-tokens'] ? { tokens: 'new' as const } : {}),
    });
    const shared = redis
      ? `; replicas share Redis${serving.relayAddress ? `, relaying directly on ${serving.relayAddress}` : ''}`
      : '';
    io.out(`opsdesk serving ${serving.url} (${where}${shared})`);
    if (serving.newTokens.length > 0) {
      io.out(
        values['new-tokens']
          ? 'New bearer tokens, shown this once (only their hashes are stored; the earlier ones no longer work):'
          : 'Bearer tokens, shown this once (only their hashes are stored):',
      );
      for (const t of serving.newTokens) io.out(`  ${t.username.padEnd(12)} ${t.token}`);
    }
    await untilSignal();
    io.err('opsdesk: finishing requests in flight…');
    await serving.close();
    return EXIT.ok;
  }

  const serving = await serveStdioOpsdesk({
    ...common,
    ...(values.user ? { user: values.user } : {}),
    ...(pagePort !== undefined ? { pagePort } : {}),
  });
  io.err(
    `opsdesk on stdio (${where}; password page: opened when first needed, on ${pagePort ? `127.0.0.1:${pagePort}` : 'a free loopback port'})`,
  );
  await Promise.race([untilSignal(), stdinClosed()]);
  await serving.close();
  return EXIT.ok;
}

/** `--http PORT` and the flags that apply to it, read (and refused) before anything is written. */
function httpOptions(values: {
  http?: string;
  user?: string;
  'max-sessions'?: string;
  'max-sessions-per-user'?: string;
  'max-calls-per-user'?: string;
}): {
  port: number;
  limits: { maxSessions?: number; maxSessionsPerIdentity?: number; maxInFlightPerIdentity?: number };
} {
  if (values.user !== undefined)
    throw new UsageError('--user applies to --stdio; over HTTP the bearer token says who is calling');
  return {
    port: integer('--http', values.http ?? '', 0, 65_535),
    limits: {
      ...(values['max-sessions'] !== undefined
        ? { maxSessions: integer('--max-sessions', values['max-sessions'], 1) }
        : {}),
      ...(values['max-sessions-per-user'] !== undefined
        ? { maxSessionsPerIdentity: integer('--max-sessions-per-user', values['max-sessions-per-user'], 1) }
        : {}),
      ...(values['max-calls-per-user'] !== undefined
        ? { maxInFlightPerIdentity: integer('--max-calls-per-user', values['max-calls-per-user'], 1) }
        : {}),
    },
  };
}

/**
 * `--relay-listen HOST:PORT` (port 0: any free one) and `--relay-advertise HOST:PORT`: where this
 * replica takes direct connections from the others, and where they reach it.
 */
function relayDirectFrom(
  listen: string | undefined,
  advertise: string | undefined,
  redis: string | undefined,
  http: string | undefined,
): { host: string; port: number; advertise?: string } | undefined {
  if (listen === undefined) {
    if (advertise !== undefined) throw new UsageError('--relay-advertise applies to --relay-listen');
    return undefined;
  }
  if (http === undefined || redis === undefined) throw new UsageError('--relay-listen applies to --http with --redis');
  const at = hostPort('--relay-listen', listen, 0);
  if (advertise !== undefined) hostPort('--relay-advertise', advertise, 1);
  if (advertise === undefined && ['0.0.0.0', '::'].includes(at.host))
    throw new UsageError(
      `--relay-listen ${listen} listens on every interface: add --relay-advertise HOST:PORT, the address the other replicas reach this one at`,
    );
  return { ...at, ...(advertise === undefined ? {} : { advertise }) };
}

function hostPort(flag: string, value: string, minPort: number): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || port < minPort || port > 65_535)
    throw new UsageError(
      `${flag} needs HOST:PORT (an IPv6 host in brackets), the port from ${minPort} to 65535, not "${value}"`,
    );
  return { host: (m[1] ?? m[2]) as string, port };
}

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  return wholeNumber(flag, value, min, min, max);
}

/**
 * Resolves when stdin, the MCP connection, has ended or closed — at once if it already has: a client that sent
 * its requests and closed its end while opsdesk started (`serve --stdio < requests.jsonl`) must not
 * leave serve waiting for a close that came before anyone listened (Node then exits 13).
 */
function stdinClosed(): Promise<void> {
  return new Promise((resolve) => {
    const { stdin } = process;
    // Its end, as opsdesk reads it (serve-stdio.ts): a file's stream may never emit 'close' once it ended.
    if (stdin.readableEnded || stdin.closed || stdin.destroyed) return resolve();
    stdin.once('end', () => resolve());
    stdin.once('close', () => resolve());
  });
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
