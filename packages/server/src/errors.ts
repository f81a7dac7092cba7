import { ElicitkitError, type Finding } from '@elicitkit/form';

/**
 * A mistake in the tool's code, not in anyone's input: a third ask over the budget, an ask after
 * a decline or cancel, an unknown form key. Thrown so that it fails loudly in tests; the SDK turns
 * it into an `isError` tool result, and doctor reports it. `code` says which rule it broke
 * (`ASK_BUDGET`, `ASK_AFTER_DECLINE`, `WORK_AFTER_CANCEL`, `COMMIT_TWICE`, `UNKNOWN_FORM`…).
 *
 * @example
 * // What the kit throws when a handler asks a question it has no form for:
 * throw new ElicitkitUsageError('UNKNOWN_FORM', 'deploy: ask("env") has no form. Declare it under forms.');
 */
export class ElicitkitUsageError extends ElicitkitError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'ElicitkitUsageError';
  }
}

/**
 * A form or request that breaks an error-level rule of the catalogue (a password field, a
 * confirmation that defaults to yes, a URL with a token in it). Thrown outside production, by
 * `defineTool` for declared forms and by `ask` for forms and URLs built on the spot.
 *
 * @example
 * try {
 *   defineTool({ name: 'signup', description: '…', forms: { account }, run });
 * } catch (error) {
 *   if (error instanceof FormLintError) console.error(error.findings.map((f) => f.rule)); // ['EK09']
 * }
 */
export class FormLintError extends ElicitkitUsageError {
  readonly findings: readonly Finding[];

  constructor(where: string, findings: readonly Finding[]) {
    const lines = findings.map((f) => `  - ${f.rule} ${f.field ? `(${f.field}) ` : ''}${f.message}. ${f.fix}`);
    super('FORM_LINT', `${where} breaks the elicitation rules:\n${lines.join('\n')}`);
    this.name = 'FormLintError';
    this.findings = findings;
  }
}

/** Outside production, rule errors throw; in production they are reported and the call goes on. */
export function isProduction(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.NODE_ENV === 'production';
}
