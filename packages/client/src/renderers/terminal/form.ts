import { note } from '@clack/prompts';
import { type ContentValue, type FieldModel, type FormContent, formatIssues, validate } from '@elicitkit/form';
import type { FormAnswer, FormPrompt } from '../../types.js';
import { pickOne } from './controls.js';
import { say } from './draw.js';
import { askField, showValue } from './fields.js';
import { clean } from './format.js';
import { drawHeader } from './header.js';
import { CANCEL, chooseKey, type Io, prompted } from './io.js';

const CANCELLED: FormAnswer = { action: 'cancel' };

/**
 * The whole form: who asks and why, a first choice (answer / decline / cancel, so declining never
 * requires filling anything in), each field, then a review with Submit / Edit / Decline / Cancel.
 */
export async function runForm(io: Io, prompt: FormPrompt): Promise<FormAnswer> {
  drawHeader(io, prompt);
  if (prompt.unanswerable && prompt.unanswerable.length > 0) return unanswerable(io, prompt);
  const first = await chooseKey(io, 'Answer this question?', [
    { key: 'a', value: 'answer', label: 'Answer', hint: 'fill in the form' },
    { key: 'd', value: 'decline', label: 'Decline', hint: 'do not share this information' },
    { key: 'c', value: 'cancel', label: 'Cancel', hint: 'stop the whole operation' },
  ]);
  if (first === CANCEL || first === 'cancel') return CANCELLED;
  if (first === 'decline') return { action: 'decline' };

  const secret = new Set(prompt.secretFields);
  const values = new Map<string, ContentValue | undefined>();
  for (const field of prompt.fields) {
    // Own values only: a field named `toString` must not start from Object.prototype's.
    const start =
      (prompt.previous && Object.hasOwn(prompt.previous, field.name) ? prompt.previous[field.name] : undefined) ??
      field.default;
    const value = await askField(io, prompt.schema, field, start, secret.has(field.name));
    if (value === CANCEL) return CANCELLED;
    values.set(field.name, value);
  }
  return review(io, prompt, values, secret);
}

/**
 * A question no answer can carry (`FormPrompt.unanswerable`: half of a character in a field's name
 * or a choice): said before anything is filled in, with only Decline and Cancel to choose from.
 */
async function unanswerable(io: Io, prompt: FormPrompt): Promise<FormAnswer> {
  const labels = new Map(prompt.fields.map((f) => [f.name, f.label]));
  const lines = (prompt.unanswerable ?? []).map(
    (u) =>
      `${clean(labels.get(u.field) ?? u.field)}: ${u.where === 'name' ? 'its name holds' : 'a choice holds'} half of a character, which no answer can carry`,
  );
  note(
    [...lines, 'This question cannot be answered as the server sent it: decline it, or cancel the operation.'].join(
      '\n',
    ),
    'Cannot be answered',
    { output: io.output },
  );
  const choice = await chooseKey(io, 'Decline or cancel?', [
    { key: 'd', value: 'decline', label: 'Decline', hint: 'tell the server it cannot be answered' },
    { key: 'c', value: 'cancel', label: 'Cancel', hint: 'stop the whole operation' },
  ]);
  return choice === 'decline' ? { action: 'decline' } : CANCELLED;
}

async function review(
  io: Io,
  prompt: FormPrompt,
  values: Map<string, ContentValue | undefined>,
  secret: ReadonlySet<string>,
): Promise<FormAnswer> {
  const output = { output: io.output };
  // Unticked confirmations stop the first Submit with a warning; the next Submit sends as it is.
  let warned = false;
  for (;;) {
    const lines = prompt.fields.map(
      (f) => `${clean(f.label)}: ${showValue(f, values.get(f.name), secret.has(f.name))}`,
    );
    note(lines.length > 0 ? lines.join('\n') : '(this form has no fields)', 'Your answers', output);
    const choice = await chooseKey(io, 'Send these answers?', [
      { key: 's', value: 'submit', label: 'Submit' },
      { key: 'e', value: 'edit', label: 'Edit an answer' },
      { key: 'd', value: 'decline', label: 'Decline', hint: 'do not share this information' },
      { key: 'c', value: 'cancel', label: 'Cancel', hint: 'stop the whole operation' },
    ]);
    switch (choice) {
      case CANCEL:
      case 'cancel':
        return CANCELLED;
      case 'decline':
        return { action: 'decline' };
      case 'submit': {
        const result = validate(prompt.schema, collect(values));
        if (!result.ok) {
          say(io.output, 'error', `Not sent yet. Fix these first:\n${clean(formatIssues(result.issues))}`);
          break;
        }
        const unticked = untickedConfirmations(prompt.fields, result.value);
        if (unticked.length > 0 && !warned) {
          warned = true;
          say(io.output, 'warn', untickedWarning(unticked));
          break;
        }
        return { action: 'accept', content: result.value };
      }
      case 'edit': {
        if (prompt.fields.length === 0) break;
        const field = await pickField(io, prompt.fields);
        if (field === CANCEL) return CANCELLED;
        const value = await askField(io, prompt.schema, field, values.get(field.name), secret.has(field.name));
        if (value === CANCEL) return CANCELLED;
        values.set(field.name, value);
        break;
      }
      default:
        return unreachable(choice);
    }
  }
}

async function pickField(io: Io, fields: FieldModel[]): Promise<FieldModel | typeof CANCEL> {
  const options = fields.map((f) => ({ value: f.name, label: clean(f.label) }));
  const name = await prompted(io, (s) => pickOne({ ...s, message: 'Which answer do you want to change?', options }));
  return typeof name === 'string' ? (fields.find((f) => f.name === name) ?? CANCEL) : CANCEL;
}

function untickedConfirmations(fields: FieldModel[], content: FormContent): FieldModel[] {
  return fields.filter((f) => f.kind === 'boolean' && f.confirmation && content[f.name] !== true);
}

function untickedWarning(unticked: FieldModel[]): string {
  const names = unticked.map((f) => `"${clean(f.label)}"`).join(', ');
  const one = unticked.length === 1;
  return `Not sent yet: ${one ? 'a confirmation is' : `${unticked.length} confirmations are`} not answered Yes (${names}), and the server refuses the request without ${one ? 'it' : 'them'}. Edit ${one ? 'it' : 'them'}, choose Submit again to send as it is, or Decline.`;
}

function collect(values: Map<string, ContentValue | undefined>): FormContent {
  const content: FormContent = {};
  for (const [name, value] of values) if (value !== undefined) content[name] = value;
  return content;
}

function unreachable(value: never): never {
  throw new TypeError(`unexpected choice ${String(value)}`);
}
