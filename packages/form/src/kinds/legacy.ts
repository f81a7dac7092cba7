import type { FieldSchema } from '../wire.js';
import type { FieldDowngrade } from './spec.js';

/** 2025-06-18 allows a default on booleans only: any other kind drops its default and says so. */
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
        message: `"${name}" loses its default ${JSON.stringify(dropped)}: 2025-06-18 allows defaults on booleans only.`,
      },
    ],
  };
}
