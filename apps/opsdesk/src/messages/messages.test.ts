import { LOCALES } from '@elicitkit/server';
import { describe, expect, it } from 'vitest';
import { localeFrom, MESSAGES } from './index.js';

function keys(table: object, prefix = ''): string[] {
  return Object.entries(table).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? keys(value, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

describe("opsdesk's message tables", () => {
  it('every locale has every key, in the same shape', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...LOCALES].sort());
    for (const locale of LOCALES) expect(keys(MESSAGES[locale])).toEqual(keys(MESSAGES.en));
  });

  it('option labels change with the language; what they label does not', () => {
    for (const locale of LOCALES) {
      expect(Object.keys(MESSAGES[locale].env)).toEqual(['dev', 'staging', 'prod']);
      expect(Object.keys(MESSAGES[locale].resolution('a.md'))).toEqual([
        'keep_local',
        'keep_remote',
        'keep_both',
        'manual',
      ]);
    }
    expect(MESSAGES.zh.env.prod).toBe('生产 (prod)');
  });

  it('builders say the same decision in each language', () => {
    expect(MESSAGES.en.danger.drop('orders', 'table')).toBe('drops the table "orders"');
    expect(MESSAGES.zh.danger.drop('orders', 'table')).toBe('删除表「orders」');
    expect(MESSAGES.en.danger.schema('audit', 'trigger')).toBe('changes the schema of the trigger "audit"');
    expect(MESSAGES.zh.danger.schema('audit', 'trigger')).toBe('修改触发器「audit」的结构');
    expect(MESSAGES.en.series(['the project', 'the start date'])).toBe('the project, the start date');
    expect(MESSAGES.zh.series(['项目', '开始日期'])).toBe('项目、开始日期');
  });

  it.each([
    ['zh_CN.UTF-8', 'zh'],
    ['zh', 'zh'],
    ['en_GB.UTF-8', 'en'],
    ['fr_FR.UTF-8', 'en'],
    ['C', 'en'],
    ['', 'en'],
    [undefined, 'en'],
  ])('LANG=%j speaks %s', (lang, locale) => {
    expect(localeFrom(lang)).toBe(locale);
  });
});
