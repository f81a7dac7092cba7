import { type QuestionBranch, questionBranches, type UntriedBranch, untriedOf } from './branch-coverage.js';
import { fieldsOf, questionKey } from './branches.js';
import { outcomeLabel, type SkipReason } from './classify.js';
import type { Strategy } from './profiles.js';
import { type CallRecord, callsOf, type DoctorRun, type ProfileRecord, type ToolInfo } from './records.js';

export type { QuestionBranch, Untried, UntriedBranch } from './branch-coverage.js';

/** Why a question was not reached under a profile. */
export type NotReached =
  /**
   * The profile declares no mode for it, or none for a question every call asked before it (a
   * page behind a form, under a URL-only client): not a gap, the server must not ask there.
   */
  | 'mode-not-declared'
  /** The server would not speak the profile's revision (it refused it). */
  | 'not-served'
  /** The server did not list the tool to this profile. */
  | 'not-listed'
  /** Only decline and cancel were tried (a destructive tool, or a confirmation before it). */
  | 'destructive'
  | 'needs-own-server'
  | 'connection-lost'
  /** An earlier answer of the call ended it before this question. */
  | 'ended-earlier'
  /** The call ended without asking it. */
  | 'not-asked'
  | 'timed-out'
  | 'failed';

/** One question a tool asked, keyed by its mode and fields (messages vary from call to call). */
export interface QuestionCoverage {
  /** `form: confirmed, ticket` or `url`. */
  key: string;
  mode: 'form' | 'url';
  fields: string[];
  /** The message the first time doctor saw it. */
  message: string;
  /** The fixture cases that reached it. */
  cases: string[];
  reached: { profile: string; strategies: Strategy[] }[];
  notReached: { profile: string; reason: NotReached; detail: string }[];
  /** Where in a call it came (1 = the first question), at the earliest. */
  depth: number;
  /**
   * Every way of answering it that may lead elsewhere (each option, a boolean both ways, a few
   * subsets, decline, cancel): under which profiles each was tried, and why not under the others.
   */
  branches: QuestionBranch[];
  /** True when the server asked it again right after an accepted answer: its retry path was reached. */
  retried: boolean;
}

export interface CoverageSummary {
  /** Distinct questions seen, over all tools. */
  questions: number;
  /**
   * Questions reached under every profile that declares their mode (and is served), with every
   * branch tried under every profile that reached them: an option never chosen keeps a question out.
   */
  fullyReached: number;
  /**
   * Branches of the questions seen (tool × question × branch): `tried` counts those tried under
   * every profile that reached their question; `pairs`, branch × profile.
   */
  branches: { seen: number; tried: number; pairs: { tried: number; applicable: number } };
  /** Every branch left untried somewhere it could have been taken: the question, field, value, and why. */
  untried: UntriedBranch[];
  /** Question × profile pairs where the profile can show the question. */
  pairs: { reached: number; applicable: number };
  /** Tools called that asked nothing under any profile. */
  silentTools: string[];
  /** Tools listed but never called (left out by --tools/--skip, or every call skipped). */
  notCalled: string[];
  /**
   * Tools whose questions were only declined or cancelled (destructive, or a confirmation): what
   * they would ask after an accept is unknown to doctor.
   */
  acceptNotTried: string[];
}

/** Which questions each tool reached, under which profile and strategy, and why not elsewhere. */
export function toolCoverage(run: DoctorRun, tool: ToolInfo): QuestionCoverage[] {
  const calls = callsOf(run, tool.name);
  type Building = Omit<QuestionCoverage, 'branches'> & { by: Map<string, Set<Strategy>> };
  const questions = new Map<string, Building>();
  for (const call of calls) {
    const answered = call.asks
      .filter((a) => a.position !== undefined)
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    for (const ask of call.asks) {
      const key = questionKey(ask);
      let q = questions.get(key);
      if (!q) {
        q = {
          key,
          mode: ask.mode,
          fields: ask.mode === 'form' ? fieldsOf(ask.params) : [],
          message: typeof ask.params.message === 'string' ? ask.params.message : '',
          cases: [],
          reached: [],
          notReached: [],
          depth: ask.position ?? Number.POSITIVE_INFINITY,
          retried: false,
          by: new Map(),
        };
        questions.set(key, q);
      }
      if (ask.position !== undefined) q.depth = Math.min(q.depth, ask.position);
      // Asked again right after doctor accepted it: the server's retry path.
      const before =
        ask.position !== undefined ? answered.find((a) => a.position === (ask.position ?? 0) - 1) : undefined;
      if (before?.answer?.action === 'accept' && questionKey(before) === key) q.retried = true;
      if (!q.cases.includes(call.case)) q.cases.push(call.case);
      const strategies = q.by.get(call.profile) ?? new Set();
      strategies.add(call.strategy);
      q.by.set(call.profile, strategies);
    }
  }
  return [...questions.values()].map(({ by, ...q }) => {
    for (const record of run.profiles) {
      const strategies = by.get(record.profile.id);
      if (strategies) q.reached.push({ profile: record.profile.id, strategies: [...strategies] });
      else q.notReached.push({ profile: record.profile.id, ...whyNot(q, record, tool, calls) });
    }
    // A question only ever seen unanswered (refused by the SDK) has no place in a call.
    const depth = Number.isFinite(q.depth) ? q.depth : 1;
    return { ...q, depth, branches: questionBranches(run, tool, q.key, calls) };
  });
}

/** Counts over every tool's coverage, for the summary line. */
export function summarize(run: DoctorRun, perTool: Map<string, QuestionCoverage[]>): CoverageSummary {
  const all = [...perTool.values()].flat();
  const counted = (q: QuestionCoverage) =>
    q.notReached.filter((n) => n.reason !== 'mode-not-declared' && n.reason !== 'not-served').length;
  const made = (tool: string) => callsOf(run, tool).some((c) => c.outcome.kind !== 'skipped');
  const pairs = all.flatMap((q) => q.branches.map((b) => ({ tried: b.tried.length, untried: b.untried.length })));
  return {
    questions: all.length,
    fullyReached: all.filter((q) => counted(q) === 0 && q.branches.every((b) => b.untried.length === 0)).length,
    branches: {
      seen: pairs.length,
      tried: pairs.filter((p) => p.untried === 0).length,
      pairs: {
        tried: pairs.reduce((n, p) => n + p.tried, 0),
        applicable: pairs.reduce((n, p) => n + p.tried + p.untried, 0),
      },
    },
    untried: [...perTool].flatMap(([tool, qs]) => untriedOf(tool, qs)),
    pairs: {
      reached: all.reduce((n, q) => n + q.reached.length, 0),
      applicable: all.reduce((n, q) => n + q.reached.length + counted(q), 0),
    },
    silentTools: run.tools.filter((t) => made(t.name) && (perTool.get(t.name)?.length ?? 0) === 0).map((t) => t.name),
    notCalled: run.tools.filter((t) => !made(t.name)).map((t) => t.name),
    acceptNotTried: run.tools
      .filter((t) =>
        callsOf(run, t.name).some(
          (c) =>
            (c.outcome.kind === 'skipped' && c.outcome.reason === 'destructive') ||
            c.asks.some((a) => a.answer?.why === 'confirmation'),
        ),
      )
      .map((t) => t.name),
  };
}

const SKIP_REASON: Record<SkipReason, NotReached> = {
  destructive: 'destructive',
  'needs-own-server': 'needs-own-server',
  'connection-lost': 'connection-lost',
  'no-question': 'not-asked',
};

function whyNot(
  q: Pick<QuestionCoverage, 'key' | 'mode' | 'cases'>,
  record: ProfileRecord,
  tool: ToolInfo,
  calls: readonly CallRecord[],
): { reason: NotReached; detail: string } {
  if (!record.served)
    return record.refused
      ? { reason: 'not-served', detail: 'the server does not speak this revision' }
      : { reason: 'connection-lost', detail: 'the connection could not be opened: the check stopped' };
  if (!record.profile.modes[q.mode]) return { reason: 'mode-not-declared', detail: `no ${q.mode} mode declared` };
  const gate = gatedBy(q.key, record.profile.modes, calls);
  if (gate)
    return { reason: 'mode-not-declared', detail: `asked only after a ${gate} question, and no ${gate} mode declared` };
  if (!tool.listedBy.includes(record.profile.id))
    return { reason: 'not-listed', detail: 'the server does not list the tool to this client' };
  const relevant = calls.filter((c) => c.profile === record.profile.id && q.cases.includes(c.case));
  const made = relevant.filter((c) => c.outcome.kind !== 'skipped');
  const skipped = relevant.find((c) => c.outcome.kind === 'skipped' && c.outcome.reason !== 'no-question');
  if (made.length === 0) {
    const reason = skipped?.outcome.kind === 'skipped' ? SKIP_REASON[skipped.outcome.reason] : 'not-asked';
    return { reason, detail: 'no call was made' };
  }
  const refusedEarlier = made.some((c) => c.asks.some((a) => a.answer && a.answer.action !== 'accept'));
  const spared =
    skipped?.outcome.kind === 'skipped' && skipped.outcome.reason === 'destructive'
      ? true
      : made.some((c) => c.asks.some((a) => a.answer?.why === 'confirmation'));
  if (refusedEarlier && spared)
    return { reason: 'destructive', detail: 'only decline and cancel were tried (--allow-destructive to accept)' };
  if (refusedEarlier) return { reason: 'ended-earlier', detail: 'an earlier answer ended the call' };
  if (made.some((c) => c.outcome.kind === 'timeout')) return { reason: 'timed-out', detail: 'the call timed out' };
  if (made.some((c) => c.outcome.kind === 'failed' || c.outcome.kind === 'error'))
    return { reason: 'failed', detail: made.map((c) => outcomeLabel(c.outcome)).join(', ') };
  return {
    reason: 'not-asked',
    detail: `the call ended without asking it (${[...new Set(made.map((c) => outcomeLabel(c.outcome)))].join(', ')})`,
  };
}

/**
 * The mode a profile lacks that every call reaching the question asked in first, if any:
 * register_user's page comes only after its form, so a URL-only client cannot reach it, and that
 * is no gap in the check.
 */
function gatedBy(
  key: string,
  modes: ProfileRecord['profile']['modes'],
  calls: readonly CallRecord[],
): 'form' | 'url' | undefined {
  let gate: 'form' | 'url' | undefined;
  for (const call of calls) {
    const at = call.asks.findIndex((a) => questionKey(a) === key);
    if (at < 0) continue;
    const lacking = call.asks.slice(0, at).find((a) => !modes[a.mode]);
    if (!lacking) return undefined;
    gate = lacking.mode;
  }
  return gate;
}
