import { UsageError } from '../usage.js';

/**
 * opsdesk's Postgres database from `--database URL`, else `ELICITKIT_DATABASE_URL`; undefined
 * for the embedded default (SQLite in the data directory). The URL is never echoed in an error:
 * it may carry a password.
 *
 * @example
 * databaseFrom(undefined, { ELICITKIT_DATABASE_URL: 'postgres://opsdesk@db/opsdesk' }) // that URL
 */
export function databaseFrom(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const url = flag ?? (env.ELICITKIT_DATABASE_URL || undefined);
  if (url === undefined) return undefined;
  const from = flag === undefined ? 'ELICITKIT_DATABASE_URL' : '--database';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Said below, without the value.
  }
  if (!parsed || !/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname)
    throw new UsageError(`${from} needs a postgres://user@host:port/database URL`);
  return url;
}
