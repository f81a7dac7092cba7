import { describe, expect, it } from 'vitest';
import { statements, tokenize } from './tokenize.js';

// The tokenizer only counts statements for a friendly message; SQLite decides everything else.
describe('SQL tokenizer', () => {
  it('counts statements at the top level only, ignoring semicolons in strings and comments', () => {
    expect(statements(tokenize("SELECT ';' ; -- ; \n SELECT 2;;"))).toHaveLength(2);
    expect(statements(tokenize("SELECT 'a;b' /* ; */"))).toHaveLength(1);
    expect(statements(tokenize('DELETE FROM orders; DROP TABLE customers'))).toHaveLength(2);
    expect(statements(tokenize(' ; ; '))).toHaveLength(0);
    expect(
      statements(tokenize('CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM products; SELECT 1; END')),
    ).toHaveLength(1);
  });

  // One case per row of complete.c's table, so a change to the table shows here.
  it.each([
    ['EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END; SELECT 2', 2],
    ['EXPLAIN SELECT 1; SELECT 2', 2],
    ['CREATE TEMP TRIGGER t AFTER INSERT ON a BEGIN SELECT CASE WHEN 1 THEN 2 END; END; SELECT 3', 2],
    ['CREATE TEMPORARY TABLE x (a); SELECT 1', 2],
    ['CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1;; END ; SELECT 2', 2],
    ['CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END x; SELECT 2', 1],
    ['SELECT 1 AS "trigger"; SELECT 2 AS trigger, 3 AS end; SELECT 4', 3],
  ])('ends statements where SQLite does: %s', (sql, count) => {
    expect(statements(tokenize(sql))).toHaveLength(count);
  });

  it('reads doubled quotes inside strings and identifiers', () => {
    const tokens = tokenize(`SELECT 'it''s', "a""b" FROM t`);
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.value)).toEqual(["it's"]);
    expect(tokens.filter((t) => t.kind === 'identifier').map((t) => t.value)).toEqual(['a"b']);
  });

  it.each(["SELECT 'unterminated", 'SELECT "x', 'SELECT [x'])('reports an unterminated literal: %s', (sql) => {
    expect(() => tokenize(sql)).toThrow(/unterminated/);
  });
});
