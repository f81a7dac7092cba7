/**
 * The bounds on a call's questions — `maxAsks` (the kit's and a tool's) and `maxQuestionChanges`
 * — are whole numbers from 1, checked when the kit is made and when a tool is defined. Taken as
 * they came, `NaN` lifted them (`asked > NaN` is never true): a page link that changed on every
 * round was asked of the person for ever on 2026-07-28, never ending `question_unstable`; and 0
 * refused every question a tool asked.
 */
import { describe, expect, it } from 'vitest';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

describe('question bounds out of range are refused, naming the option', () => {
  it.each([
    ['maxAsks', Number.NaN],
    ['maxAsks', 0],
    ['maxAsks', 1.5],
    ['maxAsks', -1],
    ['maxQuestionChanges', Number.NaN],
    ['maxQuestionChanges', 0],
    ['maxQuestionChanges', 2.5],
    ['maxQuestionChanges', Number.POSITIVE_INFINITY],
  ])('createElicitkit %s: %s', (name, value) => {
    expect(() => createElicitkit({ [name]: value })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(`${name} must be`) }),
    );
  });

  it.each([Number.NaN, 0, 2.5])('defineTool maxAsks: %s', (value) => {
    expect(() => defineTool({ name: 't', description: 'd', maxAsks: value, run: () => done('ok') })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringContaining('maxAsks must be') }),
    );
  });

  it('takes whole numbers from 1', () => {
    expect(() => createElicitkit({ maxAsks: 1, maxQuestionChanges: 1 })).not.toThrow();
    expect(() => createElicitkit({ maxAsks: 50, maxQuestionChanges: 50 })).not.toThrow();
    expect(() => defineTool({ name: 't', description: 'd', maxAsks: 3, run: () => done('ok') })).not.toThrow();
  });
});
