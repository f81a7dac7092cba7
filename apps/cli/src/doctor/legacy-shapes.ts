import { jsonText } from '@elicitkit/client/typed-json';

/** A part of a request that the 2025-06-18 revision does not have. */
export interface ShapeProblem {
  field?: string;
  message: string;
  fix: string;
}

const DOWNGRADE = 'Shape each form for the negotiated revision (downgrade it for 2025-06-18).';

/**
 * What a 2025-06-18 client cannot read in a raw `elicitation/create` request (rule EK17): a
 * `mode`, titled selects (`oneOf`, `anyOf`), multi-selects, defaults on anything but a boolean.
 * That revision has `enum` + `enumNames` and boolean defaults only. Reads any JSON.
 *
 * @example
 * shapesNotIn20250618({ mode: 'form', message: 'Env?', requestedSchema: { type: 'object', properties: {} } })
 * // → [{ message: 'the request carries mode "form", …', fix: … }]
 */
export function shapesNotIn20250618(params: Record<string, unknown>): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  if (Object.hasOwn(params, 'mode'))
    out.push({
      message: `the request carries mode ${JSON.stringify(params.mode)}, which 2025-06-18 does not have`,
      fix: 'Leave mode out for 2025-06-18 clients: that revision has form requests only.',
    });
  const schema = isRecord(params.requestedSchema) ? params.requestedSchema : {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [name, raw] of Object.entries(properties)) {
    if (!isRecord(raw)) continue;
    // One finding per field, naming everything about it that the revision lacks.
    const lacks: string[] = [];
    const fixes: string[] = [];
    const titled = ['oneOf', 'anyOf'].find((k) => Object.hasOwn(raw, k));
    if (raw.type === 'array') {
      lacks.push('as a multi-select');
      fixes.push('ask for several values another way, or tell the caller which are missing');
    } else if (titled) {
      lacks.push(`as a titled select (${titled})`);
      fixes.push('send enum + enumNames');
    }
    if (Object.hasOwn(raw, 'default') && raw.type !== 'boolean') {
      lacks.push(`with a default on a non-boolean field (${short(raw.default)})`);
      fixes.push('drop the default');
    }
    if (lacks.length === 0) continue;
    out.push({
      field: name,
      message: `"${name}" is sent ${lacks.join(' ')}, which 2025-06-18 does not have`,
      fix: `For 2025-06-18 clients, ${fixes.join(' and ')}. ${DOWNGRADE}`,
    });
  }
  return out;
}

function short(value: unknown): string {
  const json = jsonText(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}…` : json;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
