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

  it('reads doubled quotes inside strings and identifiers', () => {
    const tokens = tokenize(`SELECT 'it''s', "a""b" FROM t`);
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.value)).toEqual(["it's"]);
    expect(tokens.filter((t) => t.kind === 'identifier').map((t) => t.value)).toEqual(['a"b']);
  });

  it.each(["SELECT 'unterminated", 'SELECT "x', 'SELECT [x'])('reports an unterminated literal: %s', (sql) => {
    expect(() => tokenize(sql)).toThrow(/unterminated/);
  });
});
