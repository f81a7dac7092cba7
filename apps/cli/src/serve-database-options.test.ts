import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { EXIT } from './usage.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

const saved = process.env.ELICITKIT_DATABASE_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.ELICITKIT_DATABASE_URL;
  else process.env.ELICITKIT_DATABASE_URL = saved;
});

describe('--database and ELICITKIT_DATABASE_URL: opsdesk on Postgres, refused clearly when wrong', () => {
  it('refuses what is not a postgres:// URL, for serve, reset and audit, never echoing it (it may hold a password)', async () => {
    for (const bad of ['mysql://u:hunter2@db/x', 'postgres://u:hunter2@', 'not a url hunter2', 'sqlite:opsdesk.db']) {
      for (const argv of [
        ['serve', '--http', '0', '--database', bad],
        ['serve', '--database', bad],
        ['reset', '--yes', '--database', bad],
        ['audit', '--database', bad],
      ]) {
        const { io, err } = capture();
        expect(await main(argv, io)).toBe(EXIT.usage);
        expect(err.join('\n')).toContain('--database needs a postgres://user@host:port/database URL');
        expect(err.join('\n')).not.toContain('hunter2');
      }
    }
  });

  it('ELICITKIT_DATABASE_URL means the same, and a wrong one is named as such', async () => {
    process.env.ELICITKIT_DATABASE_URL = 'redis://127.0.0.1:6379';
    const { io, err } = capture();
    expect(await main(['serve', '--http', '0'], io)).toBe(EXIT.usage);
    expect(err.join('\n')).toContain('ELICITKIT_DATABASE_URL needs a postgres://');
  });

  it('a database that cannot be reached fails the start: what failed, the password hidden, nothing served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nopg-'));
    try {
      const { io, err, out } = capture();
      const url = 'postgres://opsdesk:hunter2@127.0.0.1:1/opsdesk';
      expect(await main(['serve', '--http', '0', '--data', dir, '--database', url], io)).toBe(EXIT.toolError);
      expect(err.join('\n')).toMatch(/Cannot use the Postgres database at postgres:\/\/opsdesk:\*\*\*@127\.0\.0\.1:1/);
      expect(err.join('\n')).toContain('ECONNREFUSED');
      expect(err.join('\n')).not.toContain('hunter2');
      expect(out.join('\n')).not.toContain('serving');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a shared database is a shared requestState key: --redis needs no --data with it', async () => {
    const { io, err } = capture();
    const argv = ['serve', '--http', '0', '--redis', 'redis://127.0.0.1:1', '--database', 'postgres://u@127.0.0.1:1/x'];
    // Past the usage checks: it fails reaching the services, not on the options.
    expect(await main(argv, io)).toBe(EXIT.toolError);
    expect(err.join('\n')).not.toContain('replicas need one requestState key');
  });
});
