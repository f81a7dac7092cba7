import type { FieldSchema, FormSchema } from '@elicitkit/form';

/**
 * Characters that take no room on screen: zero-width space and joiners, the soft hyphen, the word
 * joiner, the byte-order mark, variation selectors, tag characters … A program reading
 * "Pass\u200bword" sees two words; a person sees "Password".
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/** `text` as a person sees it: without the characters that take no room on screen. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** `text` with each invisible character spelled out (`\u200B`), for a message that names it. */
export function spelled(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Field names with an invisible character in them: a name that reads as another name. */
export function invisibleNames(schema: FormSchema): string[] {
  return Object.keys(schema.properties).filter((name) => visible(name) !== name);
}

/**
 * The schema with the text a person reads (titles, descriptions, option titles) as they see it,
 * so that what the checks judge — a secret asked for, a confirmation pre-ticked — is what is
 * shown. Field names and values are what the server reads back, and stay as sent.
 */
export function visibleSchema(schema: FormSchema): FormSchema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [name, visibleField(property)]),
  );
  return { ...schema, properties } as FormSchema;
}

function visibleField(property: FieldSchema): FieldSchema {
  const out: Record<string, unknown> = { ...property };
  if (typeof property.title === 'string') out.title = visible(property.title);
  if (typeof property.description === 'string') out.description = visible(property.description);
  if ('oneOf' in property) out.oneOf = property.oneOf.map(visibleOption);
  if ('enumNames' in property) out.enumNames = property.enumNames.map(visible);
  if (property.type === 'array' && 'anyOf' in property.items)
    out.items = { anyOf: property.items.anyOf.map(visibleOption) };
  return out as FieldSchema;
}

function visibleOption(option: { const: string; title: string }): { const: string; title: string } {
  return { ...option, title: visible(option.title) };
}
