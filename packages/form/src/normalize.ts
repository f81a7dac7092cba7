import type { FieldSchema, FormSchema, Revision } from './wire.js';

/**
 * Rewrites legacy `enum` + `enumNames` selects as titled `oneOf` selects (SEP-1330). Other
 * fields are copied unchanged.
 *
 * @example
 * toTitledEnums({ type: 'object', properties: { env: { type: 'string', enum: ['dev'], enumNames: ['Development'] } } })
 * // → env: { type: 'string', oneOf: [{ const: 'dev', title: 'Development' }] }
 */
export function toTitledEnums(schema: FormSchema): FormSchema {
  return mapFields(schema, (field) => {
    if (field.type !== 'string' || !('enumNames' in field)) return field;
    const { enum: values, enumNames, ...rest } = field;
    return { ...rest, oneOf: values.map((value, i) => ({ const: value, title: enumNames[i] ?? value })) };
  });
}

/**
 * Rewrites titled `oneOf` selects as `enum` + `enumNames`, the only titled shape a 2025-06-18
 * client understands.
 */
export function toLegacyEnums(schema: FormSchema): FormSchema {
  return mapFields(schema, (field) => {
    if (field.type !== 'string' || !('oneOf' in field)) return field;
    const { oneOf, ...rest } = field;
    return { ...rest, enum: oneOf.map((o) => o.const), enumNames: oneOf.map((o) => o.title) };
  });
}

/** Something a downgrade could not carry over. `fatal` losses mean the question cannot be asked. */
export interface DowngradeLoss {
  field: string;
  code: 'multi_select' | 'default_dropped';
  fatal: boolean;
  message: string;
}

export interface Downgrade {
  /** False when a fatal loss means the form cannot be asked on that revision. */
  ok: boolean;
  schema: FormSchema;
  losses: DowngradeLoss[];
}

/**
 * Shapes a form for a client on an older revision. For 2025-06-18: titled selects become
 * `enum` + `enumNames`; defaults other than boolean are dropped (the person just sees an empty
 * field); multi-selects cannot be expressed at all and are fatal. Later revisions take the
 * form unchanged.
 *
 * @example
 * const down = downgrade(schema, '2025-06-18');
 * if (!down.ok) return unsupported(down.losses);
 */
export function downgrade(schema: FormSchema, revision: Revision): Downgrade {
  if (revision !== '2025-06-18') return { ok: true, schema, losses: [] };
  const losses: DowngradeLoss[] = [];
  const legacy = toLegacyEnums(schema);
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of Object.entries(legacy.properties)) {
    if (field.type === 'array') {
      losses.push({
        field: name,
        code: 'multi_select',
        fatal: true,
        message: `"${name}" is a multi-select, which 2025-06-18 clients cannot show.`,
      });
      continue;
    }
    if (field.type !== 'boolean' && field.default !== undefined) {
      const { default: dropped, ...rest } = field;
      losses.push({
        field: name,
        code: 'default_dropped',
        fatal: false,
        message: `"${name}" loses its default ${JSON.stringify(dropped)}: 2025-06-18 allows defaults on booleans only.`,
      });
      properties[name] = rest as FieldSchema;
      continue;
    }
    properties[name] = field;
  }
  const required = legacy.required?.filter((name) => Object.hasOwn(properties, name));
  const out: FormSchema = { type: 'object', properties, ...(required && required.length > 0 ? { required } : {}) };
  return { ok: !losses.some((l) => l.fatal), schema: out, losses };
}

function mapFields(schema: FormSchema, fn: (field: FieldSchema) => FieldSchema): FormSchema {
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) properties[name] = fn(field);
  return { ...schema, properties };
}
