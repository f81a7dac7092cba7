import type { SchemaProblem } from './schema/problems.js';

const BRAND = Symbol.for('elicitkit.error');

/**
 * Base of every Elicitkit error: a string `code`, and a brand that survives two installed copies
 * of the package (where `instanceof` would not).
 */
export class ElicitkitError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ElicitkitError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True for any Elicitkit error, from any copy of any Elicitkit package. */
  static is(value: unknown): value is ElicitkitError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/**
 * Thrown when a form is built outside the restricted schema. The message lists every problem
 * with what to do instead; `problems` has them as data.
 */
export class FormSchemaError extends ElicitkitError {
  readonly problems: readonly SchemaProblem[];

  constructor(problems: readonly SchemaProblem[], context = 'form schema') {
    const lines = problems.map((p) => `  - ${p.message}. ${p.fix}`);
    super('FORM_SCHEMA', `Invalid ${context}:\n${lines.join('\n')}`);
    this.name = 'FormSchemaError';
    this.problems = problems;
  }
}
