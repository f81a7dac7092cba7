import { styleText } from 'node:util';
import { note } from '@clack/prompts';
import { formatIssues } from '@elicitkit/form';
import type { Prompt } from '../../types.js';
import { say } from './draw.js';
import { clean, serverLine } from './format.js';
import type { Io } from './io.js';

/** Who asks and what: drawn before every question (the protocol asks clients to show which server is asking). */
export function drawHeader(io: Io, prompt: Prompt): void {
  say(io.output, 'step', serverLine(prompt.server));
  note(clean(prompt.message), prompt.mode === 'url' ? 'Wants you to open a link' : 'Question', { output: io.output });
  if (prompt.mode !== 'form') return;
  if (prompt.secretFields.length > 0) {
    const fields = prompt.secretFields.map((name) => `"${clean(name)}"`).join(', ');
    say(
      io.output,
      'error',
      `${styleText(['bold', 'red'], 'WARNING: this form asks for a secret')} (${fields}).\n` +
        'Servers must never ask for passwords, keys or tokens in a form. Decline unless you are certain.',
    );
  }
  const others = prompt.findings.filter((f) => f.rule !== 'EK09');
  if (others.length > 0) {
    const lines = others.map((f) => `${f.rule} ${clean(f.message)}`);
    say(io.output, 'warn', `This form breaks Elicitkit rules:\n${lines.join('\n')}`);
  }
  if (prompt.issues && prompt.issues.length > 0) {
    say(io.output, 'error', `Your previous answer was not accepted:\n${clean(formatIssues(prompt.issues))}`);
  }
}
