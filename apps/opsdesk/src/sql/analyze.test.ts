import { describe, expect, it } from 'vitest';
import { analyze, mentionedNames } from './analyze.js';
import { statements, tokenize } from './tokenize.js';

const one = (sql: string) => {
  const parts = statements(tokenize(sql));
  expect(parts).toHaveLength(1);
  return analyze(parts[0] ?? []);
};

describe('SQL analysis', () => {
  it.each([
    [
      'plain delete with where',
      'DELETE FROM orders WHERE id = 5',
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: true },
    ],
    [
      'WHERE only inside a string literal',
      "DELETE FROM orders -- no filter\n WHERE 1=0 OR status = 'x'",
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: true },
    ],
    [
      'where in a string, none in the statement',
      "UPDATE products SET name = 'where is it'",
      { kind: 'write', verb: 'update', table: 'products', hasWhere: false },
    ],
    [
      'where in a line comment',
      'DELETE FROM orders -- WHERE id = 1',
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: false },
    ],
    [
      'where in a block comment',
      'DELETE FROM /* WHERE */ orders',
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: false },
    ],
    [
      'where only in a subquery',
      'UPDATE products SET stock = (SELECT 1 WHERE 1)',
      { kind: 'write', verb: 'update', table: 'products', hasWhere: false },
    ],
    [
      'CTE before delete',
      "WITH old AS (SELECT id FROM orders WHERE status = 'cancelled') DELETE FROM orders WHERE id IN (SELECT id FROM old)",
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: true },
    ],
    [
      'recursive CTE with columns',
      'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x<5) SELECT x FROM n',
      { kind: 'read' },
    ],
    [
      'quoted identifier',
      'DELETE FROM "Order_Items"',
      { kind: 'write', verb: 'delete', table: 'order_items', hasWhere: false },
    ],
    [
      'bracket and backtick identifiers',
      'UPDATE [products] SET stock = 0 WHERE `id` = 1',
      { kind: 'write', verb: 'update', table: 'products', hasWhere: true },
    ],
    [
      'schema-qualified mixed case',
      'dElEtE fRoM main.Orders wHeRe id > 3',
      { kind: 'write', verb: 'delete', table: 'orders', hasWhere: true },
    ],
    [
      'update or ignore',
      'UPDATE OR IGNORE customers SET city = 1',
      { kind: 'write', verb: 'update', table: 'customers', hasWhere: false },
    ],
    [
      'insert',
      "INSERT INTO products (name, price_cents, stock) VALUES ('x', 1, 1)",
      { kind: 'write', verb: 'insert', table: 'products', hasWhere: false },
    ],
    [
      'drop table if exists',
      'DROP TABLE IF EXISTS order_items',
      { kind: 'schema', verb: 'drop', object: 'table', name: 'order_items' },
    ],
    [
      'alter table',
      'ALTER TABLE customers ADD COLUMN vip INTEGER',
      { kind: 'schema', verb: 'alter', object: 'table', name: 'customers' },
    ],
    [
      'create index',
      'CREATE UNIQUE INDEX IF NOT EXISTS idx ON products(name)',
      { kind: 'schema', verb: 'create', object: 'index', name: 'idx' },
    ],
    ['pragma', 'PRAGMA table_info(orders)', { kind: 'other', verb: 'pragma' }],
    ['attach', "ATTACH DATABASE '/etc/passwd' AS x", { kind: 'other', verb: 'attach' }],
  ])('%s', (_label, sql, expected) => {
    expect(one(sql)).toEqual(expected);
  });

  it('counts statements at the top level only, ignoring semicolons in strings and comments', () => {
    expect(statements(tokenize("SELECT ';' ; -- ; \n SELECT 2;;"))).toHaveLength(2);
    expect(statements(tokenize("SELECT 'a;b' /* ; */"))).toHaveLength(1);
    expect(statements(tokenize('DELETE FROM orders; DROP TABLE customers'))).toHaveLength(2);
    expect(statements(tokenize(' ; ; '))).toHaveLength(0);
  });

  it('reads doubled quotes inside strings and identifiers', () => {
    const tokens = tokenize(`SELECT 'it''s', "a""b" FROM t`);
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.value)).toEqual(["it's"]);
    expect(tokens.filter((t) => t.kind === 'identifier').map((t) => t.value)).toEqual(['a"b']);
  });

  it('names every table mentioned, quoted or not, but not strings', () => {
    expect(mentionedNames(tokenize(`SELECT * FROM "Users" JOIN orders WHERE note = 'api_tokens'`))).toEqual(
      new Set(['select', 'from', 'users', 'join', 'orders', 'where', 'note']),
    );
  });

  it.each(["SELECT 'unterminated", 'SELECT "x', 'SELECT [x'])('reports an unterminated literal: %s', (sql) => {
    expect(() => tokenize(sql)).toThrow(/unterminated/);
  });

  it('explains what it expected when a statement is cut short', () => {
    expect(() => analyze(tokenize('DELETE'))).toThrow(/expected FROM/);
    expect(() => analyze(tokenize('WITH x AS'))).toThrow(/expected "\("/);
  });
});
