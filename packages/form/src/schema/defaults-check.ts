import { show } from '../json.js';
import { validate } from '../validate/validate.js';
import type { FormSchema } from '../wire.js';
import { problem, type SchemaProblem } from './problems.js';

/**
 * Rule EK15: a default must satisfy its own field (in the options, within bounds, of the right
 * format). A bad default is pre-filled for the person and then rejected, or worse, accepted.
 */
export function defaultProblems(schema: FormSchema): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    if (field.default === undefined) continue;
    const single: FormSchema = { type: 'object', properties: { [name]: field } };
    const result = validate(single, { [name]: field.default });
    if (!result.ok) {
      const why = result.issues.map((i) => i.message).join(' ');
      problems.push(
        problem(
          name,
          'bad_default',
          `field "${name}" has default ${show(field.default)} that breaks its own field: ${why}`,
          'Change the default to a value the field accepts, or remove it.',
        ),
      );
    }
  }
  return problems;
}
