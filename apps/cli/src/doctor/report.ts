import { answerLabel } from './answer.js';
import { branchLabel } from './branches.js';
import { outcomeLabel, type SkipReason } from './classify.js';
import { type ClientView, clientViews } from './clients.js';
import { type CoverageSummary, type QuestionCoverage, summarize, toolCoverage } from './coverage.js';
import { type DoctorFinding, type DoctorNote, type ShownAsk, shownAsk } from './findings.js';
import type { Strategy } from './profiles.js';
import { callsOf, type DoctorRun, stoppedUnder } from './records.js';
import type { RestartCheck } from './restart.js';

/**
 * The stable JSON shape of a doctor run (`--json`, documented in `docs/cli.md`, "The JSON report"). Fields are only
 * ever added: the first version's names keep their meaning, but for `coverage.fullyReached`, which now also
 * needs every branch of a question tried (issue 32: a question behind an untried option was counted reached).
 */
export interface DoctorReport {
  target: string;
  server: { name: string; version: string } | null;
  /** True when doctor started the server itself on data it deleted afterwards (`doctor opsdesk`). */
  throwAway: boolean;
  /** True when destructive tools' questions and confirmations were accepted too. */
  allowDestructive: boolean;
  /** The tree walk over answers: its limits (`--depth`, `--budget` per tool and profile) and the calls it made. */
  exploration: { depth: number; budget: number; calls: number };
  revisions: {
    profile: string;
    /** False when no connection was opened: the server refused the revision, or (`stopped`) could not be reached on it. */
    served: boolean;
    negotiated: string | null;
    /** Why not served, or why the check stopped; a stdio server's last lines on stderr after it when it could not be connected to. */
    error: string | null;
    reconnects: number;
    /**
     * The check stopped under this profile before it was done: the connection could not be opened
     * though the server did not refuse the revision (it closed, crashed or hung while connecting),
     * the tools were never listed, or the connection was lost for good.
     */
    stopped: boolean;
  }[];
  tools: {
    name: string;
    destructive: boolean;
    /** True when `--tools`/`--skip` left it out. */
    filtered: boolean;
    listedBy: string[];
    calls: {
      profile: string;
      strategy: Strategy;
      case: string;
      outcome: string;
      asks: number;
      /** Doctor's answers in order, e.g. `accept`, `accept (env=prod)`, `decline (confirmation)`. */
      answers: string[];
      skipped: SkipReason | null;
      ms: number;
      /** An exploring call's branches, in the order taken (`["env=prod", "confirmed=true"]`); null for the others. */
      path: string[] | null;
    }[];
    questions: QuestionCoverage[];
  }[];
  /**
   * Per profile under which the server pushed questions while no tool call was running (the
   * protocol allows it): how many came, how many doctor cancelled (the client refused the others
   * before doctor was handed them), and the first `MAX_OUTSIDE` (50) as they came. Their findings
   * are in `findings`, with `outsideCall` (tool `(outside any call)`).
   */
  outsideCalls: { profile: string; questions: number; cancelled: number; asks: ShownAsk[] }[];
  findings: DoctorFinding[];
  notes: DoctorNote[];
  /** Per known client played (`--clients`): what the person would see, tool by tool. */
  clients: ClientView[];
  /** The restart check (`--restart-check`): what changed between two fresh starts; null when not run. */
  restart: RestartCheck | null;
  coverage: CoverageSummary;
  summary: {
    tools: number;
    /** Every call record, skipped ones included. */
    calls: number;
    made: number;
    skipped: number;
    errors: number;
    warnings: number;
    /**
     * Profiles whose check stopped before it was done (no connection though the revision was not
     * refused, tools never listed, connection lost for good).
     */
    stopped: string[];
    /** No error findings, and some profile served, and none of them stopped. */
    ok: boolean;
  };
}

/**
 * Builds the report from a run and its judgement.
 *
 * @example
 * const run = await runDoctor(endpoint);
 * const { findings, notes } = judge(run);
 * console.log(JSON.stringify(buildReport(run, findings, notes), null, 2));
 */
export function buildReport(
  run: DoctorRun,
  findings: DoctorFinding[],
  notes: DoctorNote[],
  restart: RestartCheck | null = null,
): DoctorReport {
  const perTool = new Map(run.tools.map((t) => [t.name, t.filtered ? [] : toolCoverage(run, t)]));
  const errors = findings.filter((f) => f.severity === 'error').length;
  const made = run.calls.filter((c) => c.outcome.kind !== 'skipped').length;
  return {
    target: run.target,
    server: run.server ?? null,
    throwAway: run.throwAway,
    allowDestructive: run.allowDestructive,
    exploration: {
      depth: run.exploration?.depth ?? 0,
      budget: run.exploration?.budget ?? 0,
      calls: run.calls.filter((c) => c.strategy === 'explore' && c.outcome.kind !== 'skipped').length,
    },
    revisions: run.profiles.map((p) => ({
      profile: p.profile.id,
      served: p.served,
      negotiated: p.negotiated ?? null,
      error: p.error === undefined ? null : `${p.error}${p.lastWords ?? ''}`,
      reconnects: p.reconnects,
      stopped: stoppedUnder(p),
    })),
    tools: run.tools.map((t) => ({
      name: t.name,
      destructive: t.destructive,
      filtered: t.filtered,
      listedBy: t.listedBy,
      calls: callsOf(run, t.name).map((c) => ({
        profile: c.profile,
        strategy: c.strategy,
        case: c.case,
        outcome: outcomeLabel(c.outcome),
        asks: c.asks.length,
        answers: c.asks.flatMap((a) => (a.answer ? [answerLabel(a.answer)] : [])),
        skipped: c.outcome.kind === 'skipped' ? c.outcome.reason : null,
        ms: c.ms,
        path: c.path ? c.path.flatMap((s) => (s.branch ? [branchLabel(s.branch)] : [])) : null,
      })),
      questions: perTool.get(t.name) ?? [],
    })),
    outsideCalls: run.profiles
      .filter((p) => p.outside.came > 0)
      .map((p) => ({
        profile: p.profile.id,
        questions: p.outside.came,
        cancelled: p.outside.cancelled,
        asks: p.outside.asks.map(shownAsk),
      })),
    findings,
    notes,
    clients: clientViews(run),
    restart,
    coverage: summarize(run, perTool),
    summary: {
      tools: run.tools.length,
      calls: run.calls.length,
      made,
      skipped: run.calls.length - made,
      errors,
      warnings: findings.length - errors,
      stopped: run.profiles.filter(stoppedUnder).map((p) => p.profile.id),
      ok: errors === 0 && run.profiles.some((p) => p.served) && !run.profiles.some(stoppedUnder),
    },
  };
}
