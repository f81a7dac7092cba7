import { RULES, type RuleCode, type Severity } from '@elicitkit/form';
import { answerLabel } from './answer.js';
import { fieldsOf } from './branches.js';
import { outcomeLabel } from './classify.js';
import type { Ask, CallRecord } from './records.js';

export { fieldsOf } from './branches.js';

/** Where a finding about a question that came while no call was running is reported, in place of a tool. */
export const OUTSIDE_CALLS = '(outside any call)';

/** A question that came while no call was running, under one profile: where its findings were seen. */
export interface OutsideCall {
  outside: true;
  profile: string;
}

/** A question as reports quote it: its mode, message, fields, and doctor's answer (null: not answered). */
export interface ShownAsk {
  mode: 'form' | 'url';
  message: string;
  fields: string[];
  answer: string | null;
}

/** One call as a finding quotes it: what was asked, what doctor answered, how it ended. */
export interface Transcript {
  profile: string;
  strategy: string;
  case: string;
  arguments: Record<string, unknown>;
  asks: ShownAsk[];
  outcome: string;
}

/** A finding tied to where doctor saw it. */
export interface DoctorFinding {
  rule: RuleCode;
  severity: Severity;
  /** The tool, or `OUTSIDE_CALLS` for a question that came while no call was running (`outsideCall`). */
  tool: string;
  /** True for a question the server sent while no call was running: no tool asked it. */
  outsideCall?: true;
  /** The client profile, strategy and case of the first call that showed it (a question outside any call: its profile). */
  profile?: string;
  strategy?: string;
  case?: string;
  field?: string;
  message: string;
  fix: string;
  /** How many calls showed the same thing. */
  seen: number;
  /**
   * True when the verdict rests on `isError` alone (the result had no `structuredContent.status`,
   * or one doctor does not know): doctor cannot tell a clear refusal from a success, so it says so.
   */
  ambiguous?: true;
  /** The calls the finding compares (EK16 quotes both revisions'). */
  transcripts?: Transcript[];
}

/** Something worth knowing that is not a fault, e.g. a tool too slow under every profile. */
export interface DoctorNote {
  tool: string;
  case?: string;
  message: string;
}

export interface FindingInput {
  rule: RuleCode;
  message: string;
  fix: string;
  severity?: Severity;
  field?: string;
  ambiguous?: boolean;
  transcripts?: CallRecord[];
}

/** An ambiguous verdict is reported, but as a warning: doctor may be wrong about it. */
export function ambiguity(ambiguous: boolean): { ambiguous?: boolean; severity?: 'warning' } {
  return ambiguous ? { ambiguous: true, severity: 'warning' } : {};
}

/** Collects findings, one per tool, rule, field and message; repeats only count. */
export class FindingSet {
  readonly #found = new Map<string, DoctorFinding>();
  /** For rules that count something: the highest count per tool, rule and field, and its finding's key. */
  readonly #most = new Map<string, { count: number; key: string }>();

  /**
   * For a rule that counts (questions in a call, changes of a question): only the highest count
   * is reported per tool, rule and field. A call that doctor ended early — the walk declining the
   * third of four questions — would otherwise add a milder finding beside the real one.
   */
  addMost(call: CallRecord, f: FindingInput, count: number): void {
    const where = `${call.tool}|${f.rule}|${f.field ?? ''}`;
    const most = this.#most.get(where);
    if (most && most.count > count) return;
    if (most && most.count < count) this.#found.delete(most.key);
    this.#most.set(where, { count, key: this.#keyOf(call, f) });
    this.add(call, f);
  }

  #keyOf(seen: CallRecord | OutsideCall, f: FindingInput): string {
    // Apart from every tool's, whatever a tool is named.
    const where = 'outside' in seen ? 'outside' : `tool ${seen.tool}`;
    return `${where}|${f.rule}|${f.field ?? ''}|${f.message}`;
  }

  /** A finding seen in a call, or in a question that came outside any call. */
  add(seen: CallRecord | OutsideCall, f: FindingInput): void {
    const key = this.#keyOf(seen, f);
    const existing = this.#found.get(key);
    if (existing) {
      existing.seen++;
      return;
    }
    this.#found.set(key, {
      rule: f.rule,
      severity: f.severity ?? RULES[f.rule].severity,
      ...('outside' in seen
        ? { tool: OUTSIDE_CALLS, outsideCall: true as const, profile: seen.profile }
        : { tool: seen.tool, profile: seen.profile, strategy: seen.strategy, case: seen.case }),
      ...(f.field ? { field: f.field } : {}),
      message: f.message,
      fix: f.fix,
      seen: 1,
      ...(f.ambiguous ? { ambiguous: true as const } : {}),
      ...(f.transcripts ? { transcripts: f.transcripts.map(transcriptOf) } : {}),
    });
  }

  /** Errors first, then by rule and tool. */
  list(): DoctorFinding[] {
    return [...this.#found.values()].sort((a, b) =>
      a.severity === b.severity
        ? a.rule.localeCompare(b.rule) || a.tool.localeCompare(b.tool)
        : a.severity === 'error'
          ? -1
          : 1,
    );
  }
}

/** A call as findings quote it. */
export function transcriptOf(call: CallRecord): Transcript {
  return {
    profile: call.profile,
    strategy: call.strategy,
    case: call.case,
    arguments: call.arguments,
    asks: call.asks.map(shownAsk),
    outcome: outcomeLabel(call.outcome),
  };
}

/** A question as reports quote it. */
export function shownAsk(a: Ask): ShownAsk {
  return {
    mode: a.mode,
    message: typeof a.params.message === 'string' ? a.params.message : '',
    fields: fieldsOf(a.params),
    answer: a.answer ? answerLabel(a.answer) : null,
  };
}
