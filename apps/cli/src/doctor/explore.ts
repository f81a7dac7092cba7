import { type Branch, branchesOf, branchesTaken, interleaved, questionKey, sameBranch } from './branches.js';
import { answered } from './classify.js';
import type { FixtureCase } from './fixtures.js';
import type { Ask, CallRecord } from './records.js';

/** How far the tree walk goes: `--depth` and `--budget`. */
export interface ExploreLimits {
  /** Answers are varied at the first `depth` questions of a call; deeper ones are answered, not varied. */
  depth: number;
  /** Exploring calls per tool under one profile, all its cases together. */
  budget: number;
}

/** Default limits: every question of opsdesk within them, `doctor opsdesk` still a couple of seconds. */
export const EXPLORE_DEFAULTS: ExploreLimits = { depth: 3, budget: 20 };

/**
 * One answer of an exploring call, by its place: the question expected there (its key) and, where
 * the answer is changed on purpose, the branch to take. Without a branch the answer is accept-defaults'.
 */
export interface Step {
  key: string;
  branch?: Branch;
}

/** Why the tree walk saw a branch and did not take it. */
export type LeftReason =
  /** The tool's exploring calls under the profile reached `--budget`. */
  | 'budget'
  /** The question came deeper in its call than `--depth`. */
  | 'depth'
  /** A confirmation: declined, never accepted, without `--allow-destructive`. */
  | 'confirmation'
  /** The replay went another way: the question did not come back where the path expected it. */
  | 'not-reproduced'
  /** An exploring call of the tool timed out: the walk of that tool under that profile stopped there. */
  | 'timed-out'
  /** The exploring call failed (the connection or the client) before it came to the question. */
  | 'failed'
  /** The connection died and could not be opened again. */
  | 'connection-lost';

/** A branch seen and not taken on one path. */
export interface LeftBranch {
  tool: string;
  case: string;
  profile: string;
  /** The question's key (`form: env`). */
  key: string;
  /** Its place in the call (1 = first question). */
  position: number;
  branch: Branch;
  reason: LeftReason;
}

/** A call the walk still has to make. */
interface Pending {
  fixture: FixtureCase;
  path: Step[];
  /** For a decline or cancel: which question it ends (`endOf`), so another path need not end it again. */
  end?: string;
}

/**
 * The tree walk over one tool's calls under one profile. It starts from each case's
 * accept-defaults call; each new call replays the answers that led to a question and changes the
 * answer at that question to a branch not taken yet (another option, the other boolean, a subset;
 * decline and cancel past the first question, whose own decline and cancel are strategies of their
 * own). A question's decline and cancel are tried once, on the first path that meets it (or not at
 * all when an `earlier` call — the strategies' — already did): they end the call wherever it came
 * from. Shallow branches go first (breadth first), so a spent budget leaves the deepest untried.
 * Questions after the changed one are answered as accept-defaults answers them, and their
 * branches join the walk. A retry — the server asking the same question again after an accepted
 * answer — is a question like any other: doctor answers it, and explores it. `call` makes one
 * exploring call, undefined when it cannot (the connection is gone).
 *
 * @example
 * const left = await explore({ tool, profile }, [{ fixture, call: acceptDefaults }], { depth: 3, budget: 20 }, makeCall);
 */
export async function explore(
  where: { tool: string; profile: string },
  bases: readonly { fixture: FixtureCase; call: CallRecord }[],
  limits: ExploreLimits,
  call: (fixture: FixtureCase, path: Step[]) => Promise<CallRecord | undefined>,
  earlier: readonly CallRecord[] = bases.map((b) => b.call),
): Promise<LeftBranch[]> {
  /** Pending calls by the place of the branch they take (0 = the first question's). */
  const levels: Pending[][] = [];
  const left: LeftBranch[] = [];
  // Decline and cancel end a call: once a question has been declined (or cancelled) on one path,
  // another path adds nothing there but the cost of a call. A retry — the same question asked
  // again at once — counts apart: what a server does after a refused answer is its own branch.
  const ended = new Set<string>();
  const note = (made: CallRecord) => {
    const asks = answeredInOrder(made);
    for (const [index, a] of asks.entries())
      if (a.answer?.action === 'decline' || a.answer?.action === 'cancel')
        ended.add(endOf(asks, index, a.answer.action));
  };
  const endedAlready = (p: Pending) => p.end !== undefined && ended.has(p.end);
  for (const c of earlier) note(c);
  const leave = ({ fixture, path }: Pending, reason: LeftReason) => {
    const last = path[path.length - 1];
    if (last?.branch)
      left.push({ ...where, case: fixture.label, key: last.key, position: path.length, branch: last.branch, reason });
  };
  const expand = (fixture: FixtureCase, made: CallRecord, after: number) => {
    const asks = answeredInOrder(made);
    for (const [index, ask] of asks.entries()) {
      const position = index + 1;
      // A gap (an answer doctor did not record) would misplace every later step: stop there.
      if (ask.position !== position) return;
      if (position <= after) continue;
      const key = questionKey(ask);
      const prefix = asks.slice(0, index).map(stepOf);
      const { open, confirmation } = alternatives(ask, position);
      for (const branch of confirmation) leave({ fixture, path: [...prefix, { key, branch }] }, 'confirmation');
      for (const branch of open) {
        const end = branch.action === 'accept' ? undefined : endOf(asks, index, branch.action);
        const pending: Pending = { fixture, path: [...prefix, { key, branch }], ...(end ? { end } : {}) };
        if (endedAlready(pending)) continue;
        if (position > limits.depth) leave(pending, 'depth');
        else levels[index] = [...(levels[index] ?? []), pending];
      }
    }
  };
  for (const base of bases) expand(base.fixture, base.call, 0);

  let spent = 0;
  let stopped: LeftReason | undefined;
  for (;;) {
    const next = levels.find((l) => l !== undefined && l.length > 0)?.shift();
    if (!next) break;
    if (endedAlready(next)) continue;
    if (stopped || spent >= limits.budget) {
      leave(next, stopped ?? 'budget');
      continue;
    }
    spent++;
    const made = await call(next.fixture, next.path);
    if (!made) {
      stopped = 'connection-lost';
      leave(next, stopped);
      continue;
    }
    note(made);
    // Each timeout costs --timeout-ms: one is enough to know the walk would be slow, not thorough.
    if (made.outcome.kind === 'timeout') stopped = 'timed-out';
    const at = next.path.length;
    const target = next.path[at - 1]?.branch;
    const taken = made.asks.find((a) => a.position === at)?.answer;
    if (!target || taken?.why !== 'explore' || !taken.branch || !sameBranch(taken.branch, target)) {
      leave(next, stopped ?? (answered(made.outcome) ? 'not-reproduced' : 'failed'));
      continue;
    }
    // After a timeout or a dropped connection the answers past this one are not the server's last word.
    if (answered(made.outcome)) expand(next.fixture, made, at);
  }
  return left;
}

/** The asks doctor answered, in the order it answered them. */
function answeredInOrder(call: CallRecord): Ask[] {
  return call.asks
    .filter((a) => a.answer !== undefined && a.position !== undefined)
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
}

/** The question a decline or cancel at `index` ends, a retry of the question before it apart. */
function endOf(asks: readonly Ask[], index: number, action: 'decline' | 'cancel'): string {
  const ask = asks[index] as Ask;
  const before = asks[index - 1];
  const retry = before !== undefined && questionKey(before) === questionKey(ask);
  return `${questionKey(ask)}\0${retry ? 'retry\0' : ''}${action}`;
}

/** How a later call replays this answer: on purpose where it was a branch, else as accept-defaults would. */
function stepOf(ask: Ask): Step {
  const branch = ask.answer?.why === 'explore' ? ask.answer.branch : undefined;
  return branch ? { key: questionKey(ask), branch } : { key: questionKey(ask) };
}

/**
 * The branches of a question not taken by its answer: `open` to try, `confirmation` seen but
 * never accepted without `--allow-destructive`. Decline and cancel of the first question are
 * left out: the decline and cancel strategies take them.
 */
function alternatives(ask: Ask, position: number): { open: Branch[]; confirmation: Branch[] } {
  const answer = ask.answer;
  if (!answer || answer.why === 'over-cap') return { open: [], confirmation: [] };
  const all = branchesOf(ask);
  const taken = branchesTaken(all, answer);
  const open = all.filter((b) => !taken.some((t) => sameBranch(t, b)));
  const ends = position > 1 ? open.filter((b) => b.action !== 'accept') : [];
  const values = open.filter((b) => b.action === 'accept');
  if (answer.why === 'confirmation') return { open: ends, confirmation: values };
  return { open: answer.action === 'accept' ? [...interleaved(values), ...ends] : ends, confirmation: [] };
}
