import { describe, expect, it } from 'vitest';
import { LOCALES, type LocaleTables, MESSAGES } from './messages.js';

interface Texts {
  greet(name: string): string;
  bye: string;
}

/** Every key path of a table, nested tables included, so two locales can be compared. */
function keys(table: object, prefix = ''): string[] {
  return Object.entries(table).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? keys(value, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

describe('one message table per locale', () => {
  it('a table missing a key, or a locale, does not compile (checked by the typecheck of this file)', () => {
    const en = { greet: (name: string) => `Hello, ${name}.`, bye: 'Bye.' };
    // @ts-expect-error zh has no `bye`
    const missingKey = { en, zh: { greet: (name: string) => `你好，${name}。` } } satisfies LocaleTables<Texts>;
    // @ts-expect-error there is no zh table
    const missingLocale = { en } satisfies LocaleTables<Texts>;
    expect(Object.keys(missingKey)).toEqual([...LOCALES]);
    expect(Object.keys(missingLocale)).not.toEqual([...LOCALES]);
  });

  it("the server's tables: every locale, every key", () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...LOCALES].sort());
    for (const locale of LOCALES) expect(keys(MESSAGES[locale])).toEqual(keys(MESSAGES.en));
  });
});
