import { styleText } from 'node:util';
import { log, note } from '@clack/prompts';
import { formatIssues } from '@elicitkit/form';
import type { Prompt } from '../../types.js';
import { clean, serverLine } from './format.js';
import type { Io } from './io.js';

/** Who asks and what: drawn before every question (the protocol asks clients to show which server is asking). */
export function drawHeader(io: Io, prompt: Prompt): void {
  const output = { output: io.output };
  log.step(serverLine(prompt.server), output);
  note(clean(prompt.message), prompt.mode === 'url' ? 'Wants you to open a link' : 'Question', output);
  if (prompt.mode !== 'form') return;
  if (prompt.secretFields.length > 0) {
    const fields = prompt.secretFields.map((name) => `"${clean(name)}"`).join(', ');
    log.error(
      `${styleText(['bold', 'red'], 'WARNING: this form asks for a secret')} (${fields}).\n` +
        'Servers must never ask for passwords, keys or tokens in a form. Decline unless you are certain.',
      output,
    );
  }
  const others = prompt.findings.filter((f) => f.rule !== 'EK09');
  if (others.length > 0) {
    const lines = others.map((f) => `${f.rule} ${clean(f.message)}`);
    log.warn(`This form breaks Elicitkit rules:\n${lines.join('\n')}`, output);
  }
  if (prompt.issues && prompt.issues.length > 0) {
    log.error(`Your previous answer was not accepted:\n${clean(formatIssues(prompt.issues))}`, output);
  }
}
