import { describe, expect, it } from 'vitest';
import { judge } from './judge.js';
import type { Ask, CallRecord, DoctorRun } from './records.js';

const regions = {
  type: 'object',
  properties: { region: { type: 'string', title: 'Region', enum: ['us_east_1'], enumNames: ['US East'] } },
};
const ticket = { type: 'object', properties: { ticket: { type: 'string', title: 'Release ticket' } } };

/**
 * A 2026-07-28 question as doctor records it: `after` is how many of doctor's answers had gone out
 * when it came; an answered one's answer went out as the `sent`-th.
 */
function ask(after: number, key: string, message: string, schema: object, answer?: Ask['answer'], sent?: number): Ask {
  return {
    mode: 'form',
    via: 'embedded',
    key,
    after,
    params: { message, requestedSchema: schema },
    ...(answer ? { answer } : {}),
    ...(sent !== undefined ? { sent } : {}),
  };
}

/** The EK11 finding texts of one call with these arguments and questions. */
function ek11(args: Record<string, unknown>, asks: Ask[]): string[] {
  const call: CallRecord = {
    tool: 'restore',
    case: 'c',
    profile: '2026-07-28 form',
    strategy: 'accept-defaults',
    arguments: args,
    asks,
    outcome: { kind: 'result', isError: false, status: 'done', text: 'done' },
    ms: 1,
  };
  const run: DoctorRun = {
    target: 't',
    throwAway: false,
    allowDestructive: false,
    tools: [],
    profiles: [],
    calls: [call],
  };
  return judge(run)
    .findings.filter((f) => f.rule === 'EK11')
    .map((f) => f.message);
}

const chose = (region: string): Ask['answer'] => ({ action: 'accept', content: { region }, why: 'strategy' });
const restoring = 'Which release ticket covers restoring the orders in us_east_1?';

describe('doctor judges EK11 in the words the person gave before each question', () => {
  it('takes every string of the arguments, at any depth', () => {
    const message = 'Which region should the rows of order_items be restored in?';
    expect(ek11({ target: { tables: ['audit_log', 'order_items'] } }, [ask(0, 'region', message, regions)])).toEqual(
      [],
    );
    expect(ek11({ target: { tables: ['audit_log'] }, rows: 3 }, [ask(0, 'region', message, regions)])).toEqual([
      'the message shows the internal identifier "order_items"',
    ]);
  });

  it('takes the answers of earlier rounds', () => {
    const asks = [ask(0, 'region', 'Which region should the orders be restored in?', regions, chose('us_east_1'), 1)];
    expect(ek11({}, [...asks, ask(1, 'ticket', restoring, ticket)])).toEqual([]);
  });

  it('not an answer of the same round: it was asked before any of them was given', () => {
    const asks = [
      ask(0, 'region', 'Which region should the orders be restored in?', regions, chose('us_east_1'), 1),
      ask(0, 'ticket', restoring, ticket),
    ];
    expect(ek11({}, asks)).toEqual(['the message shows the internal identifier "us_east_1"']);
  });

  it('not a declined question, which gave nothing', () => {
    const declined = { action: 'decline', why: 'strategy' } as const;
    const asks = [ask(0, 'region', 'Which region should the orders be restored in?', regions, declined, 1)];
    expect(ek11({}, [...asks, ask(1, 'ticket', restoring, ticket)])).toEqual([
      'the message shows the internal identifier "us_east_1"',
    ]);
  });
});
