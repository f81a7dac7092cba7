import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { serveHttp } from '../src/serve-http.js';
import { CLI, nodeArgs, tempDataDir } from './harness.js';

/**
 * Tokens are minted once the server listens, so a start that fails before (its port taken) shows
 * none it stored. A mint that failed itself (any error of the database: a Postgres connection
 * dropped, a full disk, a lock held past its wait; stood for here by a trigger) rejected the start
 * with its port still bound and everything open: `elicitkit serve --http` printed the error and
 * never exited, holding the port. Now the start fails whole. Found by an audit helper.
 */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/** A data directory whose database refuses `statement` on `api_tokens`, as a failing database would. */
async function refusing(statement: 'INSERT' | 'DELETE'): Promise<{ dir: string; port: number; remove(): void }> {
  const data = tempDataDir();
  // Refusing to delete, the data needs tokens to delete: its first start minted them.
  const first = await serveHttp({
    dataDir: data.dir,
    locale: 'en',
    port: 0,
    tokens: statement === 'DELETE' ? 'first-start' : 'none',
  });
  const { port } = first;
  await first.close();
  const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
  db.exec(
    `CREATE TRIGGER refuse BEFORE ${statement} ON api_tokens BEGIN SELECT RAISE(ABORT, 'the database refused'); END`,
  );
  db.close();
  return { dir: data.dir, port, remove: data.remove };
}

describe('a start whose tokens cannot be minted fails whole', () => {
  it.each([
    ['first-start', 'INSERT'],
    ['new', 'DELETE'],
  ] as const)(
    'tokens %s, the database refusing: serveHttp rejects and its port is free again',
    async (tokens, refused) => {
      const data = await refusing(refused);
      try {
        await expect(serveHttp({ dataDir: data.dir, locale: 'en', port: data.port, tokens })).rejects.toThrow(
          'the database refused',
        );
        expect(await portFree(data.port)).toBe(true);
      } finally {
        data.remove();
      }
    },
  );

  it('serve --http --new-tokens, the database refusing: says so and exits 1, rather than hang on', async () => {
    const data = await refusing('DELETE');
    try {
      const outcome = await new Promise<{ code: number | null; signal: string | null; err: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          nodeArgs(CLI, 'serve', '--http', '0', '--new-tokens', '--data', data.dir),
          { timeout: 30_000, killSignal: 'SIGKILL' },
          (_error, _stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, err: String(stderr) }),
        );
      });
      expect(outcome.err).toContain('the database refused');
      expect(outcome).toMatchObject({ code: 1, signal: null });
    } finally {
      data.remove();
    }
  }, 60_000);
});
