import { deepFreeze } from './json.js';
import { specForWire } from './kinds/registry.js';
import { toLegacySelect, toTitledSelect } from './kinds/select.js';
import type { DowngradeLoss } from './kinds/spec.js';
import type { Revision } from './revision.js';
import { needsDowngrade } from './revision.js';
import type { FieldSchema, FormSchema } from './wire.js';

export type { DowngradeLoss };

/** Rewrites legacy `enum` + `enumNames` selects as titled `oneOf` selects (SEP-1330); other fields are copied. */
export function toTitledEnums(schema: FormSchema): FormSchema {
  return mapFields(schema, toTitledSelect);
}

/** Rewrites titled `oneOf` selects as `enum` + `enumNames`, the only titled shape a 2025-06-18 client understands. */
export function toLegacyEnums(schema: FormSchema): FormSchema {
  return mapFields(schema, toLegacySelect);
}

export interface Downgrade {
  /** False when a fatal loss means the form cannot be asked on that revision. */
  ok: boolean;
  schema: FormSchema;
  losses: DowngradeLoss[];
}

/**
 * Shapes a form for a client on an older revision. For 2025-06-18: titled selects become
 * `enum` + `enumNames`; defaults other than boolean are dropped and their fields asked as
 * required (the person chooses what they would have seen pre-filled); multi-selects cannot be
 * expressed at all and are fatal. Later revisions take the form unchanged.
 *
 * @example
 * const down = downgrade(schema, revisionOf(negotiatedVersion));
 * if (!down.ok) return unsupported(down.losses);
 */
export function downgrade(schema: FormSchema, revision: Revision): Downgrade {
  if (!needsDowngrade(revision)) return { ok: true, schema, losses: [] };
  // A frozen schema (every built form's) cannot change, so its downgrade is worked out once; the
  // result is frozen too. Anything else is worked out each time.
  if (!Object.isFrozen(schema)) return downgradeNow(schema);
  let byRevision = DOWNGRADED.get(schema);
  if (!byRevision) {
    byRevision = new Map();
    DOWNGRADED.set(schema, byRevision);
  }
  let down = byRevision.get(revision);
  if (!down) {
    down = deepFreeze(downgradeNow(schema));
    byRevision.set(revision, down);
  }
  return down;
}

const DOWNGRADED = new WeakMap<FormSchema, Map<Revision, Downgrade>>();

function downgradeNow(schema: FormSchema): Downgrade {
  const losses: DowngradeLoss[] = [];
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const spec = specForWire(field);
    if (!spec) throw new TypeError(`Field "${name}" is outside the restricted schema; parse the form first.`);
    const down = spec.downgrade(name, field);
    losses.push(...down.losses);
    if (down.field) properties[name] = down.field;
  }
  // A field whose default was dropped is asked as required: the person chooses what they would
  // have been shown pre-filled, and an answer can never leave it to a default nobody saw.
  const listed = schema.required?.filter((name) => Object.hasOwn(properties, name)) ?? [];
  const dropped = losses.filter((l) => l.code === 'default_dropped' && !listed.includes(l.field));
  const required = [...listed, ...dropped.map((l) => l.field)];
  const out: FormSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return { ok: !losses.some((l) => l.fatal), schema: out, losses };
}

function mapFields(schema: FormSchema, fn: (field: FieldSchema) => FieldSchema): FormSchema {
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) properties[name] = fn(field);
  return { ...schema, properties };
}
