import { ElicitkitError, type Finding } from '@elicitkit/form';

/**
 * A mistake in the tool's code, not in anyone's input: a third ask over the budget, an ask after
 * a decline or cancel, an unknown form key. Thrown so that it fails loudly in tests; the SDK turns
 * it into an `isError` tool result, and doctor reports it.
 */
export class ElicitkitUsageError extends ElicitkitError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'ElicitkitUsageError';
  }
}

/**
 * A form or request that breaks an error-level rule of the catalogue (a password field, a
 * confirmation that defaults to yes, a URL with a token in it). Thrown outside production.
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
