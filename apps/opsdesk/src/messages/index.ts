/**
 * Everything opsdesk says, one table per locale, built the way the server library builds its own
 * (`LocaleTables` from `@elicitkit/server`): each table is a whole `OpsdeskMessages`, so a text
 * missing from one language fails to compile. Option *values* never change with the language.
 */
import { LOCALES, type Locale, type LocaleTables } from '@elicitkit/server';
import { en } from './en.js';
import type { OpsdeskMessages } from './types.js';
import { zh } from './zh.js';

export type {
  OpsdeskMessages,
  SchemaChange,
  ShortDiff,
  ShownObject,
  SideView,
  SqlConfirm,
  TableChange,
} from './types.js';

export const MESSAGES = { en, zh } satisfies LocaleTables<OpsdeskMessages>;

/**
 * The locale a `LANG`-style value names (`zh_CN.UTF-8` → `zh`); English for anything else.
 *
 * @example
 * localeFrom(process.env.LANG) // 'zh' under LANG=zh_CN.UTF-8
 */
export function localeFrom(value: string | undefined): Locale {
  const lang = value?.toLowerCase() ?? '';
  return LOCALES.find((locale) => lang.startsWith(locale)) ?? 'en';
}

/**
 * `make`'s value for each locale, made the first time that locale is asked for: what a tool builds
 * from its texts (its forms) once per language, for calls that each say which one they read
 * (`ctx.locale`).
 *
 * @example
 * const formsIn = inEachLocale((t) => ({ env: form({ env: field.select(…, { title: t.envTitle }) }) }));
 * await ctx.ask('env', { message, form: formsIn(ctx.locale).env });
 */
export function inEachLocale<T>(make: (t: OpsdeskMessages, locale: Locale) => T): (locale: Locale) => T {
  const made = new Map<Locale, T>();
  return (locale) => {
    let value = made.get(locale);
    if (value === undefined) {
      value = make(MESSAGES[locale], locale);
      made.set(locale, value);
    }
    return value;
  };
}
