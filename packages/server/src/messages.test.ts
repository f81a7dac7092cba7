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

describe('how long nobody answered, as a person says it', () => {
  it.each([
    [600_000, '10 minutes', '10 分钟'],
    [60_000, '1 minute', '1 分钟'],
    [90_000, '90 seconds', '90 秒'],
    [30_000, '30 seconds', '30 秒'],
    [1_000, '1 second', '1 秒'],
    [4_550, 'about 4.6 seconds', '约 4.6 秒'],
    [150, '150 milliseconds', '150 毫秒'],
    [150_000, 'about 3 minutes', '约 3 分钟'],
    [3_600_000, '60 minutes', '60 分钟'],
  ])('%i ms: %s', (ms, en, zh) => {
    expect(MESSAGES.en.timeout('deploy', ms)).toBe(`No answer arrived within ${en}, so deploy did nothing.`);
    expect(MESSAGES.zh.timeout('deploy', ms)).toBe(`${zh}内没有收到回答，deploy 没有执行任何操作。`);
  });
});
