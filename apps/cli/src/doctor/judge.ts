import { MAX_MESSAGE_LENGTH, messageProblem } from '@elicitkit/client';
import { describeFields, lint } from '@elicitkit/form';
import { judgeAcross } from './across.js';
import { questionKey } from './branches.js';
import { succeeded } from './classify.js';
import {
  ambiguity,
  type DoctorFinding,
  type DoctorNote,
  type FindingInput,
  FindingSet,
  type OutsideCall,
} from './findings.js';
import { shapesNotIn20250618 } from './legacy-shapes.js';
import { PROFILES, type Profile } from './profiles.js';
import type { Ask, CallRecord, DoctorRun } from './records.js';
import { cameAfter, changedAfterAnswer } from './rounds.js';

/** What an ambiguous verdict adds to a finding's message: why it rests on `isError` alone. */
const judgedBy = (reason: string | undefined) => ` (judged by isError alone: ${reason})`;

/**
 * Turns what doctor saw into rule findings (the rule catalogue) and notes: each call on its own (lint of
 * every question as it crossed the wire, in the words doctor had given the call by then; EK01, EK04, EK05, EK08, EK12, EK17, EK18), then calls against
 * each other (EK13, EK16), and each question that came outside any call as a question alone.
 * Success is read from `structuredContent.status`, else `isError` (`succeeded`).
 *
 * @example
 * const { findings, notes } = judge(await runDoctor(endpoint));
 */
export function judge(run: DoctorRun): { findings: DoctorFinding[]; notes: DoctorNote[] } {
  const found = new FindingSet();
  const profiles = new Map<string, Profile>(PROFILES.map((p) => [p.id, p]));
  for (const r of run.profiles) profiles.set(r.profile.id, r.profile);
  for (const call of run.calls) {
    if (call.outcome.kind === 'skipped') continue;
    const profile = profiles.get(call.profile);
    for (const ask of call.asks) judgeAsk(found, call, ask, profile);
    judgeCall(found, call);
  }
  for (const r of run.profiles) {
    const outside: OutsideCall = { outside: true, profile: r.profile.id };
    for (const ask of r.outside.asks) judgeAsk(found, outside, ask, r.profile);
  }
  const notes = judgeAcross(found, run, profiles);
  return { findings: found.list(), notes };
}

/**
 * One question's findings as a question alone: judged now, or as it came when it was too big to
 * keep (`keptOf`). Outside any call no word was given: the person supplied nothing it could show.
 */
function judgeAsk(found: FindingSet, seen: CallRecord | OutsideCall, ask: Ask, profile: Profile | undefined): void {
  const findings = ask.cut?.found ?? askFindings(ask, 'outside' in seen ? [] : givenBefore(seen, ask), profile);
  for (const f of findings) found.add(seen, f);
}

/**
 * The findings of one question by itself, whatever call it came in: lint of it as it crossed the
 * wire (EK11 in the words `given` before it), EK01 for a mode the client did not declare, EK17 for
 * a shape 2025-06-18 lacks. A message longer than a client shows is refused by the client before
 * anything reads it (`messageProblem`): that is EK03, a request outside what may be asked, as lint
 * reports a form over its caps; of that message, lint reads as much as a client could show.
 *
 * @example
 * for (const f of askFindings(ask, givenBefore(call, ask), profile)) found.add(call, f);
 */
export function askFindings(
  ask: Pick<Ask, 'mode' | 'via' | 'params'>,
  given: readonly string[],
  profile: Profile | undefined,
): FindingInput[] {
  const { message } = ask.params;
  const tooLong = typeof message === 'string' ? messageProblem(message) : undefined;
  const shown = tooLong ? { ...ask.params, message: (message as string).slice(0, MAX_MESSAGE_LENGTH) } : ask.params;
  const out: FindingInput[] = tooLong ? [{ rule: 'EK03', message: tooLong.message, fix: tooLong.fix }] : [];
  out.push(...lint(shown, { given }));
  if (!profile) return out;
  if (!profile.modes[ask.mode]) {
    const declared = [profile.modes.form && 'form', profile.modes.url && 'url'].filter(Boolean).join('+');
    out.push({
      rule: 'EK01',
      message: `sent a ${ask.mode}-mode elicitation to a client that declared ${declared ? `only ${declared}` : 'no elicitation'} (${profile.id})`,
      fix: 'Check the client capability per mode before asking, and fall back to telling the caller what is missing.',
    });
  }
  if (profile.revision === '2025-06-18' && ask.via === 'push') {
    for (const p of shapesNotIn20250618(ask.params))
      out.push({ rule: 'EK17', message: p.message, fix: p.fix, ...(p.field ? { field: p.field } : {}) });
  }
  return out;
}

/**
 * What the person had supplied by the time `ask` came (EK11): doctor's arguments for the call and
 * its answers that had gone out. A name among them — the table in the SQL doctor sent — is the
 * person's own word, which the message may show (and a confirmation may ask them to type).
 *
 * @example
 * lint(ask.params, { given: givenBefore(call, ask) });
 */
export function givenBefore(call: Pick<CallRecord, 'arguments' | 'asks'>, ask: Ask): string[] {
  const answers = call.asks.filter((a) => cameAfter(ask, a)).map((a) => a.answer?.content);
  return stringsIn([call.arguments, answers]);
}

/** Every string inside a JSON value, at any depth (arrays included: their values are their items). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

function judgeCall(found: FindingSet, call: CallRecord): void {
  // A 2026-07-28 key asked again for the same fields is the same question sent again (its message
  // perhaps changed), not another one; one key reused for other fields is another question.
  const asked = new Set(
    call.asks.map((a, i) => (a.via === 'embedded' && a.key !== undefined ? `key:${a.key}\0${questionKey(a)}` : i)),
  ).size;
  if (asked > 2)
    found.addMost(
      call,
      {
        rule: 'EK08',
        message: `asked ${asked} questions in one call`,
        fix: 'Ask for every missing value in one form; two questions per call at most.',
        severity: asked > 3 ? 'error' : 'warning',
      },
      asked,
    );

  judgeChanges(found, call);
  const result = succeeded(call.outcome);
  // A page declined is declined too: asking about it (or anything) again is a re-ask. Only a
  // question that came after the decline went out can be one: two asked at once are one round.
  const declined = firstSent(call, 'decline');
  if (declined && call.asks.some((a) => cameAfter(a, declined)))
    found.add(call, {
      rule: 'EK12',
      message: 'asked again after the user declined',
      fix: 'After a decline, stop asking and return a result that says what is missing.',
    });
  const cancelled = call.asks.find((a) => a.answer?.action === 'cancel');
  if (cancelled) {
    const sent = firstSent(call, 'cancel');
    if (sent && call.asks.some((a) => cameAfter(a, sent)))
      found.add(call, {
        rule: 'EK05',
        message: 'asked another question after the user cancelled',
        fix: 'Cancel ends the whole operation: return at once.',
      });
    if (result.done)
      found.add(call, {
        rule: 'EK05',
        message: `reported success after the user cancelled${result.ambiguous ? judgedBy(result.reason) : ''}`,
        fix: result.ambiguous
          ? 'After a cancel, do nothing and say so: set isError, or return structuredContent.status "cancelled".'
          : 'After a cancel, do nothing and return a result saying so.',
        ...ambiguity(result.ambiguous),
      });
  }
  const incomplete = result.done ? call.asks.find((a) => missingRequired(a).length > 0) : undefined;
  if (incomplete) {
    const missing = missingRequired(incomplete);
    const what = isEmpty(incomplete.answer?.content)
      ? 'an accept with empty content'
      : `an accept without the required ${missing.length === 1 ? 'field' : 'fields'} ${missing.map((m) => JSON.stringify(m)).join(', ')}`;
    found.add(call, {
      rule: 'EK04',
      message: `treated ${what} as success${result.ambiguous ? judgedBy(result.reason) : ''}`,
      fix: 'Validate accepted content; an accept without the required values is invalid.',
      ...ambiguity(result.ambiguous),
    });
  }
}

/** The question whose `action` answer went out first in the call, if one went out. */
function firstSent(call: CallRecord, action: 'decline' | 'cancel'): Ask | undefined {
  let first: Ask | undefined;
  for (const a of call.asks)
    if (a.answer?.action === action && a.sent !== undefined && (first?.sent ?? Infinity) > a.sent) first = a;
  return first;
}

/**
 * EK18: on 2026-07-28 a key answered in one round came back changed in a later one, and changed
 * again when doctor sent that round once more, word for word (`resendChanged`): the question
 * changes by itself, so its answer did not count. A question that comes back the same from the same
 * round changed because of the answer — a retry prompt saying why it did not fit — and is no fault.
 * Once can be the world moving on (a new version to deploy); twice in one call is a question that
 * changes on every look (a clock, a live count), which no answer can ever settle.
 */
function judgeChanges(found: FindingSet, call: CallRecord): void {
  const changes = new Map<string, number>();
  for (const ask of changedAfterAnswer(call.asks)) {
    if (ask.resent !== 'changed' || ask.key === undefined) continue;
    changes.set(ask.key, (changes.get(ask.key) ?? 0) + 1);
  }
  for (const [key, n] of changes) {
    found.addMost(
      call,
      {
        rule: 'EK18',
        field: key,
        message:
          n === 1
            ? `the question "${key}" came back changed in the round after it was answered, and changed again when that round was sent once more word for word (the same answers and requestState), so that answer did not count`
            : `the question "${key}" came back changed after each answer, and changed again each time that round was sent once more word for word (the same answers and requestState), so no answer to it could count`,
        fix: 'Keep what changes by itself (the time, a live count, a fresh token) out of the message, form and URL: a question that changes on every look can never be answered on 2026-07-28.',
        severity: n === 1 ? 'warning' : 'error',
      },
      n,
    );
  }
}

function isEmpty(content: Record<string, unknown> | undefined): boolean {
  return content === undefined || Object.keys(content).length === 0;
}

/**
 * The required fields of a form an accept left out: such an accept is no complete answer. Only
 * fields a client can draw count: a `required` naming no property, or one outside the restricted
 * subset (EK03's), asks for nothing anyone can give.
 */
function missingRequired(ask: Ask): string[] {
  if (ask.mode !== 'form' || ask.answer?.action !== 'accept') return [];
  const schema = ask.params.requestedSchema as { required?: unknown } | undefined;
  if (!Array.isArray(schema?.required)) return [];
  const declared = new Set(describeFields(schema).map((f) => f.name));
  const content = ask.answer.content ?? {};
  return schema.required.filter(
    (r): r is string => typeof r === 'string' && declared.has(r) && !Object.hasOwn(content, r),
  );
}
