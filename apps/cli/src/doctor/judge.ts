import { lint, RULES, type RuleCode, type Severity } from '@elicitkit/form';
import { PROFILES } from './profiles.js';
import type { CallRecord, DoctorRun } from './run.js';

/** A finding tied to where doctor saw it. */
export interface DoctorFinding {
  rule: RuleCode;
  severity: Severity;
  tool: string;
  /** The client profile and strategy of the first call that showed it. */
  profile?: string;
  strategy?: string;
  field?: string;
  message: string;
  fix: string;
  /** How many calls showed the same thing. */
  seen: number;
}

const CAPABILITY_FAILURE = /does not support|not supported|capabilit|elicit/i;

/** A result that reads as the work having been done. */
function succeeded(call: CallRecord): boolean {
  const o = call.outcome;
  if (o.kind !== 'result' || o.isError) return false;
  if (o.status !== undefined) return o.status === 'done';
  return !/cancel|declin|abort|not done|nothing was done|取消|拒绝/i.test(o.text);
}

/** Turns what doctor saw into rule findings (SPEC §5), deduplicated per tool, rule, field and message. */
export function judge(run: DoctorRun): DoctorFinding[] {
  const found = new Map<string, DoctorFinding>();
  const add = (
    call: CallRecord,
    rule: RuleCode,
    message: string,
    fix: string,
    severity: Severity = RULES[rule].severity,
    field?: string,
  ) => {
    const key = `${call.tool}|${rule}|${field ?? ''}|${message}`;
    const existing = found.get(key);
    if (existing) {
      existing.seen++;
      return;
    }
    found.set(key, {
      rule,
      severity,
      tool: call.tool,
      profile: call.profile,
      strategy: call.strategy,
      ...(field ? { field } : {}),
      message,
      fix,
      seen: 1,
    });
  };

  for (const call of run.calls) {
    const profile = PROFILES.find((p) => p.id === call.profile);
    for (const ask of call.asks) {
      for (const f of lint(ask.params)) add(call, f.rule, f.message, f.fix, f.severity, f.field);
      if (profile && !profile.modes[ask.mode]) {
        add(
          call,
          'EK01',
          `sent a ${ask.mode}-mode elicitation to a client that declared ${profile.modes.form || profile.modes.url ? `only ${profile.modes.form ? 'form' : 'url'}` : 'no elicitation'} (${call.profile})`,
          'Check the client capability per mode before asking, and fall back to telling the caller what is missing.',
        );
      }
    }
    const asked = call.asks.length;
    if (asked > 3)
      add(
        call,
        'EK08',
        `asked ${asked} questions in one call`,
        'Ask for every missing value in one form; two questions per call at most.',
        'error',
      );
    else if (asked > 2)
      add(
        call,
        'EK08',
        `asked ${asked} questions in one call`,
        'Ask for every missing value in one form; two questions per call at most.',
      );

    const firstRefusal = call.answers.findIndex((a) => a === 'decline' || a === 'cancel');
    const refusedForm = firstRefusal !== -1 && call.asks[firstRefusal]?.mode === 'form';
    if (call.strategy === 'decline' && refusedForm && asked > firstRefusal + 1) {
      add(
        call,
        'EK12',
        'asked again after the user declined',
        'After a decline, stop asking and return a result that says what is missing.',
      );
    }
    if (call.strategy === 'cancel' && firstRefusal !== -1) {
      if (asked > firstRefusal + 1)
        add(
          call,
          'EK05',
          'asked another question after the user cancelled',
          'Cancel ends the whole operation: return at once.',
        );
      if (succeeded(call))
        add(
          call,
          'EK05',
          'reported success after the user cancelled',
          'After a cancel, do nothing and return a result saying so.',
        );
    }
    if (call.strategy === 'accept-empty' && call.asks.some((a) => a.mode === 'form') && succeeded(call)) {
      add(
        call,
        'EK04',
        'treated an accept with empty content as success',
        'Validate accepted content; accept without the required values is invalid.',
      );
    }
    if (call.strategy === 'none') {
      const o = call.outcome;
      if (o.kind === 'error')
        add(
          call,
          'EK13',
          `failed when the client cannot elicit (${call.profile}): ${o.message}`,
          'Without the capability, return a result naming the missing arguments and their allowed values.',
        );
      else if (o.kind === 'timeout')
        add(
          call,
          'EK13',
          `hung when the client cannot elicit (${call.profile})`,
          'Check the capability before asking; never wait for an answer that cannot come.',
        );
      else if (o.kind === 'result' && o.isError && o.status === undefined && CAPABILITY_FAILURE.test(o.text)) {
        add(
          call,
          'EK13',
          `failed when the client cannot elicit (${call.profile}): ${o.text.slice(0, 120)}`,
          'Without the capability, return a result naming the missing arguments and their allowed values.',
        );
      }
    }
  }
  return [...found.values()].sort((a, b) =>
    a.severity === b.severity
      ? a.rule.localeCompare(b.rule) || a.tool.localeCompare(b.tool)
      : a.severity === 'error'
        ? -1
        : 1,
  );
}
