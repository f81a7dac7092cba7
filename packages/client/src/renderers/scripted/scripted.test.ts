import type { FormSchema } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { formPrompt, urlPrompt } from '../conformance.suite.js';
import { createScriptedRenderer } from './index.js';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: {
    env: { type: 'string', title: 'Environment', enum: ['dev', 'prod'], default: 'dev' },
    ticket: { type: 'string', title: 'Release ticket' },
  },
};
const live = () => new AbortController().signal;

describe('scripted renderer', () => {
  it('answers elicitations in order and counts what is left', async () => {
    const renderer = createScriptedRenderer([{ action: 'decline' }, { action: 'accept' }, { action: 'cancel' }]);
    expect(renderer.remaining()).toBe(3);
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toEqual({ action: 'decline' });
    expect(await renderer.renderUrl(urlPrompt('https://example.com/a'), live())).toEqual({ action: 'accept' });
    expect(renderer.remaining()).toBe(1);
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toEqual({ action: 'cancel' });
    expect(renderer.remaining()).toBe(0);
  });

  it('puts accepted content over the defaults, like a person who leaves pre-filled fields alone', async () => {
    const renderer = createScriptedRenderer([
      { action: 'accept', content: { ticket: 'REL-1' } },
      { action: 'accept' },
      { action: 'accept-defaults' },
    ]);
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toEqual({
      action: 'accept',
      content: { ticket: 'REL-1', env: 'dev' },
    });
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toEqual({
      action: 'accept',
      content: { env: 'dev' },
    });
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toEqual({
      action: 'accept',
      content: { env: 'dev' },
    });
  });

  it('takes accept-defaults as consent for a URL', async () => {
    const renderer = createScriptedRenderer([{ action: 'accept-defaults' }]);
    expect(await renderer.renderUrl(urlPrompt('https://example.com/a'), live())).toEqual({ action: 'accept' });
  });

  it('throws ANSWERS_EXHAUSTED when the script runs out', async () => {
    const renderer = createScriptedRenderer([{ action: 'decline' }]);
    await renderer.renderForm(formPrompt(SCHEMA), live());
    await expect(renderer.renderForm(formPrompt(SCHEMA), live())).rejects.toMatchObject({
      code: 'ANSWERS_EXHAUSTED',
      index: 1,
      message: 'Elicitation 2 has no scripted answer (the script has 1).',
    });
    await expect(renderer.renderUrl(urlPrompt('https://example.com/a'), live())).rejects.toMatchObject({
      code: 'ANSWERS_EXHAUSTED',
      index: 2,
    });
  });

  it('throws ANSWER_MISMATCH for form content offered as URL consent', async () => {
    const renderer = createScriptedRenderer([{ action: 'accept', content: { env: 'dev' } }]);
    await expect(renderer.renderUrl(urlPrompt('https://example.com/a'), live())).rejects.toMatchObject({
      code: 'ANSWER_MISMATCH',
      index: 0,
    });
  });

  it('refuses an entry that did not come through parseAnswers', async () => {
    const renderer = createScriptedRenderer([{ action: 'approve' } as never, { action: 'approve' } as never]);
    await expect(renderer.renderForm(formPrompt(SCHEMA), live())).rejects.toThrow('Unknown scripted action "approve"');
    await expect(renderer.renderUrl(urlPrompt('https://example.com/a'), live())).rejects.toThrow(TypeError);
  });

  it('answers cancel, using up nothing, when the question is already withdrawn', async () => {
    const renderer = createScriptedRenderer([{ action: 'accept' }]);
    expect(await renderer.renderForm(formPrompt(SCHEMA), AbortSignal.abort())).toEqual({ action: 'cancel' });
    expect(await renderer.renderUrl(urlPrompt('https://example.com/a'), AbortSignal.abort())).toEqual({
      action: 'cancel',
    });
    expect(renderer.remaining()).toBe(1);
  });

  it('is not changed by later edits to the answers it was given, and has no opener unless given one', async () => {
    const answers = [{ action: 'accept' as const, content: { ticket: 'REL-1' } }];
    const renderer = createScriptedRenderer(answers);
    answers[0] = { action: 'accept', content: { ticket: 'HACKED' } };
    expect(await renderer.renderForm(formPrompt(SCHEMA), live())).toMatchObject({ content: { ticket: 'REL-1' } });
    expect(renderer.opener).toBeUndefined();
    expect(renderer.interactive).toBe(false);
  });
});
