import { type ContentValue, coerceValue, type FieldModel, type FormContent } from '@elicitkit/form';
import type { FormPrompt } from '../../types.js';
import { type FieldStep, type RendererDriver, rendererConformance, type Step } from '../conformance.suite.js';
import type { ScriptedAnswer } from './answers.js';
import { createScriptedRenderer } from './index.js';

/** Turns the person's intents into the one answers-file entry they amount to. */
function scriptedDriver(): RendererDriver {
  return {
    inlineValidation: false,
    reviewEdit: false,
    // An entry leaves a field out to take its default (`accept-defaults` takes them all).
    prefillsDefaults: false,
    answerForm(prompt, steps) {
      const withdrawn = steps.some((s) => 'withdraw' in s);
      const signal = withdrawn ? AbortSignal.abort() : new AbortController().signal;
      return createScriptedRenderer([entryFor(prompt, steps)]).renderForm(prompt, signal);
    },
    answerUrl(prompt, choice) {
      const signal = choice === 'withdraw' ? AbortSignal.abort() : new AbortController().signal;
      const entry: ScriptedAnswer =
        choice === 'open' ? { action: 'accept' } : { action: choice === 'decline' ? 'decline' : 'cancel' };
      return createScriptedRenderer([entry]).renderUrl(prompt, signal);
    },
  };
}

function entryFor(prompt: FormPrompt, steps: Step[]): ScriptedAnswer {
  const ending = steps.find((s) => 'decline' in s || 'cancel' in s);
  if (ending) return { action: 'decline' in ending ? 'decline' : 'cancel' };
  const content: FormContent = {};
  for (const step of steps) {
    const fieldStep = 'edit' in step ? step.edit : 'field' in step ? step : undefined;
    if (!fieldStep || ('rejected' in fieldStep && fieldStep.rejected)) continue;
    const field = prompt.fields.find((f) => f.name === fieldStep.field);
    if (!field) throw new Error(`No field ${fieldStep.field}.`);
    const value = intendedValue(field, fieldStep);
    if (value === undefined) delete content[field.name];
    else content[field.name] = value;
  }
  return Object.keys(content).length === 0 ? { action: 'accept-defaults' } : { action: 'accept', content };
}

function intendedValue(field: FieldModel, step: FieldStep): ContentValue | undefined {
  if ('keep' in step) return field.default;
  if ('choose' in step) return step.choose;
  if ('set' in step) return step.set;
  if ('toggle' in step) {
    const start = field.kind === 'multiselect' ? (field.default ?? []) : [];
    const flipped = new Set(start);
    for (const value of step.toggle) if (!flipped.delete(value)) flipped.add(value);
    return field.kind === 'multiselect' ? field.options.map((o) => o.value).filter((v) => flipped.has(v)) : [];
  }
  const read = coerceValue(field, step.type);
  if (!read.ok) throw new Error(read.message);
  return read.value;
}

rendererConformance('scripted', scriptedDriver);
