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

/** The finding texts of `rule` for one call: its questions as given, ended with `status` (done unless said). */
function findingsOf(
  rule: string,
  asks: Ask[],
  { status = 'done', args = {} }: { status?: string; args?: Record<string, unknown> } = {},
): string[] {
  const call: CallRecord = {
    tool: 'restore',
    case: 'c',
    profile: '2026-07-28 form',
    strategy: 'accept-defaults',
    arguments: args,
    asks,
    outcome: { kind: 'result', isError: status !== 'done', status, text: status },
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
    .findings.filter((f) => f.rule === rule)
    .map((f) => f.message);
}

/** The EK11 finding texts of one call with these arguments and questions. */
const ek11 = (args: Record<string, unknown>, asks: Ask[]) => findingsOf('EK11', asks, { args });

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

describe('doctor judges EK04 by the required fields an accept left out', () => {
  const two = {
    type: 'object',
    properties: { region: regions.properties.region, ticket: ticket.properties.ticket },
    required: ['region', 'ticket'],
  };
  const answered = (content: Record<string, string>): Ask['answer'] => ({
    action: 'accept',
    content,
    why: 'strategy',
  });

  it('an accept without one of two required fields, ended in success, names the field', () => {
    expect(
      findingsOf('EK04', [ask(0, 'q', 'Which region and ticket?', two, answered({ region: 'us_east_1' }), 1)]),
    ).toEqual(['treated an accept without the required field "ticket" as success']);
    expect(findingsOf('EK04', [ask(0, 'q', 'Which region and ticket?', two, answered({}), 1)])).toEqual([
      'treated an accept with empty content as success',
    ]);
  });

  it('no finding when every required field came, when the call did not succeed, or for what nobody could give', () => {
    const whole = answered({ region: 'us_east_1', ticket: 'REL-1' });
    expect(findingsOf('EK04', [ask(0, 'q', 'Which region and ticket?', two, whole, 1)])).toEqual([]);
    expect(
      findingsOf('EK04', [ask(0, 'q', 'Which region and ticket?', two, answered({}), 1)], { status: 'invalid' }),
    ).toEqual([]);
    // A required name that is no property, and a nested object outside the subset (EK03's): no client draws them.
    const odd = {
      type: 'object',
      properties: { ticket: ticket.properties.ticket, address: { type: 'object', properties: {} } },
      required: ['ghost', 'address', 'ticket'],
    };
    expect(findingsOf('EK04', [ask(0, 'q', 'Which ticket?', odd, answered({ ticket: 'REL-1' }), 1)])).toEqual([]);
  });
});

describe('doctor counts EK08 on 2026-07-28 by question, not by key', () => {
  const accepted = (content: Record<string, string>): Ask['answer'] => ({
    action: 'accept',
    content,
    why: 'strategy',
  });

  it('one key reused for three different questions is three questions', () => {
    const asks = [
      ask(0, 'q', 'Which region?', regions, accepted({ region: 'us_east_1' }), 1),
      ask(1, 'q', 'Which release ticket?', ticket, accepted({ ticket: 'REL-1' }), 2),
      ask(2, 'q', 'Which environment?', { type: 'object', properties: { env: { type: 'string', title: 'Env' } } }),
    ];
    expect(findingsOf('EK08', asks)).toEqual(['asked 3 questions in one call']);
  });

  it('one key sent again for the same fields, its message changed, is one question', () => {
    const asks = [0, 1, 2].map((n) =>
      ask(
        n,
        'q',
        `Which region? (try ${n + 1})`,
        regions,
        n < 2 ? accepted({ region: 'us_east_1' }) : undefined,
        n < 2 ? n + 1 : undefined,
      ),
    );
    expect(findingsOf('EK08', asks)).toEqual([]);
  });
});
