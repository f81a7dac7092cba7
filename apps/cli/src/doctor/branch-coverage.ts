import type { FormContent } from '@elicitkit/form';
import { type Branch, branchesOf, branchesTaken, branchId, branchLabel, questionKey, sameBranch } from './branches.js';
import { outcomeLabel } from './classify.js';
import type { LeftBranch, LeftReason } from './explore.js';
import type { CallRecord, DoctorRun, ToolInfo } from './records.js';

/** Why a branch was not tried under a profile that reached its question. */
export type Untried =
  | LeftReason
  /** A destructive tool: only decline and cancel were tried. */
  | 'destructive'
  /** No call took it, and the walk left no reason (e.g. the call that led to the question failed). */
  | 'not-tried';

/** One branch of a question: where it was tried, where not and why, and how those calls ended. */
export interface QuestionBranch {
  /** `env=prod`, `confirmed=true`, `regions=[eu, us]`, `decline`, `cancel`. */
  label: string;
  answer: Branch['action'];
  /** The field an accept branch sets; null for decline and cancel. */
  field: string | null;
  value: FormContent[string] | null;
  /** Profiles under which some call took it. */
  tried: string[];
  /** Profiles that reached the question and never took it. */
  untried: { profile: string; reason: Untried; detail: string }[];
  /** How the calls that took it ended (`done`, `invalid`, `declined` …), each once. */
  outcomes: string[];
}

/** A branch left untried, grouped over the profiles it was left under for one reason. */
export interface UntriedBranch {
  tool: string;
  /** The question's key (`form: confirmed, ticket`). */
  question: string;
  label: string;
  answer: Branch['action'];
  field: string | null;
  value: FormContent[string] | null;
  reason: Untried;
  detail: string;
  profiles: string[];
}

/** The most telling reason first: a limit the person can raise before a property of the server. */
const ORDER: readonly LeftReason[] = [
  'budget',
  'depth',
  'timed-out',
  'failed',
  'connection-lost',
  'confirmation',
  'not-reproduced',
];

/**
 * The branches of one question over every call of the tool. A profile counts for a branch when
 * doctor answered the question under it at least once (a request the client refused before doctor
 * could answer has nothing to try).
 */
export function questionBranches(
  run: DoctorRun,
  tool: ToolInfo,
  key: string,
  calls: readonly CallRecord[],
): QuestionBranch[] {
  const branches = new Map<string, Branch>();
  const listed = new Map<string, Set<string>>();
  const tried = new Map<string, Set<string>>();
  const outcomes = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, id: string, value: string) =>
    map.set(id, (map.get(id) ?? new Set()).add(value));
  for (const call of calls) {
    for (const ask of call.asks) {
      if (!ask.answer || questionKey(ask) !== key) continue;
      const all = branchesOf(ask);
      for (const b of all) {
        if (!branches.has(branchId(b))) branches.set(branchId(b), b);
        add(listed, branchId(b), call.profile);
      }
      for (const b of branchesTaken(all, ask.answer)) {
        add(tried, branchId(b), call.profile);
        add(outcomes, branchId(b), outcomeLabel(call.outcome));
      }
    }
  }
  const order = run.profiles.map((p) => p.profile.id);
  const inOrder = (set: Set<string> | undefined) => order.filter((p) => set?.has(p));
  return [...branches].map(([id, branch]) => {
    const triedBy = inOrder(tried.get(id));
    const untried = inOrder(listed.get(id))
      .filter((p) => !triedBy.includes(p))
      .map((profile) => ({ profile, ...reasonFor(run, tool, key, profile, branch) }));
    return {
      label: branchLabel(branch),
      answer: branch.action,
      field: branch.action === 'accept' ? branch.field : null,
      value: branch.action === 'accept' ? branch.value : null,
      tried: triedBy,
      untried,
      outcomes: [...(outcomes.get(id) ?? [])],
    };
  });
}

function reasonFor(
  run: DoctorRun,
  tool: ToolInfo,
  key: string,
  profile: string,
  branch: Branch,
): { reason: Untried; detail: string } {
  const left = (run.exploration?.left ?? []).filter(
    (l) => l.tool === tool.name && l.profile === profile && l.key === key && sameBranch(l.branch, branch),
  );
  const first = ORDER.map((r) => left.find((l) => l.reason === r)).find((l) => l !== undefined);
  if (first) return { reason: first.reason, detail: detailOf(run, first) };
  if (tool.destructive && !run.allowDestructive && branch.action === 'accept')
    return {
      reason: 'destructive',
      detail: 'a destructive tool: only decline and cancel were tried (--allow-destructive to accept)',
    };
  return { reason: 'not-tried', detail: 'no call took this branch (the calls that led here did not get that far)' };
}

function detailOf(run: DoctorRun, left: LeftBranch): string {
  switch (left.reason) {
    case 'budget':
      return `the tool's ${run.exploration?.budget ?? 0} exploring calls under this profile were spent first (--budget)`;
    case 'depth':
      return `question ${left.position} of its call, deeper than --depth ${run.exploration?.depth ?? 0}`;
    case 'timed-out':
      return 'an exploring call of this tool timed out, so its walk stopped (--timeout-ms)';
    case 'failed':
      return 'the exploring call that would take it failed first';
    case 'connection-lost':
      return 'the connection was lost';
    case 'confirmation':
      return 'a confirmation: doctor declines it (--allow-destructive to accept)';
    case 'not-reproduced':
      return 'the replay did not come back to this question: the server went another way';
    default:
      return unreachable(left.reason);
  }
}

function unreachable(reason: never): never {
  throw new TypeError(`unknown reason ${String(reason)}`);
}

/** A tool's untried branches, one entry per question, branch and reason, with the profiles. */
export function untriedOf(
  tool: string,
  questions: readonly { key: string; branches: QuestionBranch[] }[],
): UntriedBranch[] {
  const out: UntriedBranch[] = [];
  for (const q of questions) {
    for (const b of q.branches) {
      for (const u of b.untried) {
        const same = out.find((o) => o.question === q.key && o.label === b.label && o.reason === u.reason);
        if (same) same.profiles.push(u.profile);
        else
          out.push({
            tool,
            question: q.key,
            label: b.label,
            answer: b.answer,
            field: b.field,
            value: b.value,
            reason: u.reason,
            detail: u.detail,
            profiles: [u.profile],
          });
      }
    }
  }
  return out;
}
