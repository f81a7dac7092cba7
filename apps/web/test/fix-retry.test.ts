/**
 * "Fix and retry": a call refused for its arguments opens the tool's form with them marked (an
 * invalid answer runs the call again instead), and once a later call of the tool is done, the
 * earlier buttons have nothing left to fix.
 */
import { describe, expect, it } from 'vitest';
import { doneSince, refusedArguments } from '../components/fix-retry';
import type { ChatMessage, ToolOutput } from '../lib/wire';

const refusedArgs: ToolOutput = {
  text: 'The arguments of this call were not accepted…',
  status: 'invalid',
  isError: true,
  structured: {
    status: 'invalid',
    issues: [
      { field: 'service', code: 'required', message: 'service: required, and not given' },
      { field: 'service', code: 'custom', message: 'a second reason for the same field' },
      { field: 'version', code: 'custom', message: 'version: letters and digits' },
    ],
  },
};

const call = (id: string, tool: string, output: ToolOutput) =>
  ({
    id: `m-${id}`,
    role: 'assistant',
    parts: [{ type: 'dynamic-tool', toolName: tool, toolCallId: id, state: 'output-available', input: {}, output }],
  }) as unknown as ChatMessage;

describe('refusedArguments', () => {
  it('names the arguments a call was refused for, the first reason of each', () => {
    expect(refusedArguments(refusedArgs)).toEqual({
      service: 'service: required, and not given',
      version: 'version: letters and digits',
    });
  });

  it('is undefined for an invalid answer (a question was asked), and for any other status', () => {
    const answer = { ...refusedArgs, structured: { ...refusedArgs.structured, question: 'prod' } };
    expect(refusedArguments(answer)).toBeUndefined();
    expect(refusedArguments({ ...refusedArgs, status: 'rejected' })).toBeUndefined();
    expect(refusedArguments(undefined)).toBeUndefined();
  });

  it('hostile issue data is ignored, not trusted: no field, odd types, a __proto__ field', () => {
    const odd: ToolOutput = {
      text: '',
      status: 'invalid',
      isError: true,
      structured: { issues: [null, 7, { message: 'no field' }, { field: 3 }, { field: '__proto__', message: 'x' }] },
    };
    const marked = refusedArguments(odd) ?? {};
    expect(Object.keys(marked)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(marked)).toBe(Object.prototype);
  });
});

describe('doneSince', () => {
  it('marks the invalid calls a later call of the same tool has done, and no other', () => {
    const messages = [
      call('a', 'deploy_service', refusedArgs),
      call('b', 'weekly_report', refusedArgs),
      call('c', 'deploy_service', { text: 'Deployed', status: 'done', isError: false }),
      call('d', 'deploy_service', refusedArgs),
    ];
    expect([...doneSince(messages)]).toEqual(['a']);
  });
});
