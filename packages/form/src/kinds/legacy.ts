import type { FieldSchema } from '../wire.js';
import type { FieldDowngrade } from './spec.js';

/**
 * 2025-06-18 allows a default on booleans only: any other kind drops its default and says so. The
 * field is then asked as required (`downgrade` does it): left empty, it would otherwise reach the
 * tool as the default the person was never shown, or as nothing where the answer's type promises
 * a value.
 */
export function dropDefault(name: string, field: FieldSchema): FieldDowngrade {
  if (field.default === undefined) return { field, losses: [] };
  const { default: dropped, ...rest } = field;
  return {
    field: rest as FieldSchema,
    losses: [
      {
        field: name,
        code: 'default_dropped',
        fatal: false,
        message: `"${name}" loses its default ${JSON.stringify(dropped)}: 2025-06-18 allows defaults on booleans only, so it is asked as required.`,
      },
    ],
  };
}
