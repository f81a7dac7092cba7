/**
 * A database file opsdesk cannot use is refused with its connection closed. Was: `opsdesk.db` or
 * `shop.db` that is not a database (a file copied over it, a half-written download) failed at the
 * first pragma, before the `try` that closes it: each failed start (the web app tries again at
 * every chat) left one open descriptor until the garbage collector found it. Counted in /proc.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openShop } from '../shop/open.js';
import { openDatabase } from './open.js';

const dir = mkdtempSync(join(tmpdir(), 'ek-open-closes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const descriptors = () => readdirSync('/proc/self/fd').length;

describe.skipIf(process.platform !== 'linux')('a database file that is no database', () => {
  it.each([
    ['opsdesk.db', () => openDatabase(dir)],
    ['shop.db', () => openShop(dir)],
  ])('%s: refused, its connection closed each time', (name, open) => {
    writeFileSync(join(dir, name), 'this is not a SQLite database, not even its header; '.repeat(200));
    const before = descriptors();
    for (let i = 0; i < 5; i++) expect(open).toThrow('file is not a database');
    expect(descriptors()).toBe(before);
  });
});
