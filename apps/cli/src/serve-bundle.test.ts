import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleServe } from '../../../scripts/bundle-serve.js';
import { callTool } from '../../../test/support/mcp.js';
import { startRedis, withRedis } from '../../../test/support/redis-server.js';
import { connectStdio, count, HANDSHAKE_THEN_LIST, httpClient, tempDataDir } from '../../opsdesk/test/harness.js';

const REDIS = withRedis('cli/src/serve-bundle.test.ts');

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COUNT_HOOK = join(ROOT, 'bench/support/count-modules.mjs');
const run = promisify(execFile);

// Inside the repository's node_modules, so the bundle resolves better-sqlite3 (kept external) as
// apps/cli/dist/bundle does.
let out: string;
let entry: string;
beforeAll(async () => {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  out = mkdtempSync(join(cache, 'ek-serve-bundle-'));
  ({ entry } = await bundleServe({ from: 'source', outdir: out }));
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the one-file build of serve', () => {
  it('serves opsdesk over stdio: the six tools, a question answered, and execute_sql in the shop worker beside it', async () => {
    const data = tempDataDir();
    const client = new Client({ name: 'bundle-test', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    try {
      await connectStdio(client, {
        command: process.execPath,
        args: [entry, 'serve', '--stdio', '--data', data.dir],
      });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'deploy_service',
        'execute_sql',
        'list_deployments',
        'register_user',
        'sync_file',
        'weekly_report',
      ]);
      // The shop runs in its own process, forked from the bundle's worker-main.js.
      const sql = await callTool(client, 'execute_sql', { sql: 'SELECT COUNT(*) AS n FROM orders' });
      expect(sql.status).toBe('done');
      expect(sql.text).toContain('1200');
      const deploy = await callTool(client, 'deploy_service', { service: 'user-service' });
      expect(deploy.status).toBe('done');
      expect(count(data.dir, 'deployments')).toBeGreaterThan(0);
    } finally {
      await client.close();
      data.remove();
    }
  });

  it.skipIf(!REDIS)(
    'serves --http with --redis too: Redis (left outside the bundle) and the HTTP path load from it',
    async () => {
      const data = tempDataDir();
      const redis = await startRedis();
      const child = spawn(process.execPath, [entry, 'serve', '--http', '0', '--data', data.dir, '--redis', redis.url], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        let out = '';
        child.stdout.setEncoding('utf8');
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (chunk: string) => {
            out += chunk;
            if (/alice\s+ek_\S+\n/.test(out)) resolve();
          });
          child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
        });
        expect(out).toContain('replicas share Redis');
        const url = /serving (\S+)/.exec(out)?.[1] ?? '';
        const token = /alice\s+(ek_\S+)/.exec(out)?.[1] ?? '';
        const c = await httpClient(url, token, {
          revision: '2025-11-25',
          script: [{ action: 'accept', content: { env: 'dev' } }],
        });
        expect((await callTool(c.client, 'deploy_service', { service: 'user-service' })).status).toBe('done');
        await c.close();
        child.kill('SIGTERM');
        expect((await once(child, 'exit'))[0]).toBe(0);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await redis.stop();
        data.remove();
      }
    },
  );

  it('loads its own files and the SQLite addon, nothing from dist, src or node_modules', async () => {
    const data = tempDataDir();
    const log = join(data.dir, 'modules.log');
    try {
      const child = run(process.execPath, ['--import', COUNT_HOOK, entry, 'serve', '--stdio', '--data', data.dir], {
        env: { ...process.env, BENCH_MODULE_LOG: log },
      });
      child.child.stdin?.end(HANDSHAKE_THEN_LIST);
      const { stdout } = await child;
      expect(stdout).toContain('"deploy_service"');
      const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
      const own = pathToFileURL(out).href;
      const outside = loaded.filter(
        (f) => !f.startsWith(own) && !/\/node_modules\/better-sqlite3\/build\/.*\.node$/.test(f),
      );
      expect(outside).toEqual([]);
    } finally {
      data.remove();
    }
  });

  it('has source maps that lead back to the TypeScript sources', () => {
    expect(readFileSync(entry, 'utf8')).toMatch(/\/\/# sourceMappingURL=cli\.js\.map\s*$/);
    const sources = readdirSync(out)
      .filter((f) => f.endsWith('.js.map'))
      .flatMap((f) => (JSON.parse(readFileSync(join(out, f), 'utf8')) as { sources: string[] }).sources);
    expect(sources.some((s) => /packages\/server\/src\/[a-z-]+\.ts$/.test(s))).toBe(true);
    expect(sources.some((s) => /apps\/opsdesk\/src\/.+\.ts$/.test(s))).toBe(true);
  });

  /** Runs the bundled `serve --stdio` with stdin closed at once; resolves with how it ended. */
  async function serveOnce(dataDir: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
    const child = run(process.execPath, [entry, 'serve', '--stdio', '--data', dataDir, ...args], { timeout: 30_000 });
    child.child.stdin?.end();
    return child.then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
  }

  it('still fails clearly at start: an unknown user, and a data directory from a newer opsdesk', async () => {
    const data = tempDataDir();
    try {
      const unknown = await serveOnce(data.dir, '--user', 'mallory');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/Unknown user "mallory"\. Known users: .*alice/);
      // Seeded by the first start; now it claims a schema this opsdesk does not know.
      const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
      db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
      db.close();
      const tooNew = await serveOnce(data.dir);
      expect(tooNew.code).toBe(1);
      expect(tooNew.stderr).toMatch(/opsdesk\.db has schema version 99; this opsdesk understands up to \d+/);
    } finally {
      data.remove();
    }
  });
});
