import type { Tool } from '@modelcontextprotocol/client';
import type { Answer } from './answer.js';
import type { CallOutcome } from './classify.js';
import type { LeftBranch, Step } from './explore.js';
import type { FindingInput } from './findings.js';
import type { Profile, Strategy } from './profiles.js';
import type { RawAsk } from './tap.js';

/** One question as it crossed the wire, when it came, and doctor's answer. */
export interface Ask extends RawAsk {
  /**
   * How many of doctor's answers in the call had gone out when it came (0: none). Questions that
   * came before an answer went out were asked without it, however many messages carried them:
   * they are one round (`cameAfter`).
   */
  after: number;
  /** Absent when the SDK client refused the request before doctor could answer it. */
  answer?: Answer;
  /** The how-many-th of doctor's answers in the call this one's was to go out (1 = first); absent until it went. */
  sent?: number;
  /** The how-many-th question doctor answered in the call (1 = first): a branch's place on a path. */
  position?: number;
  /**
   * A 2026-07-28 question that came back changed after its answer, once its round was sent again
   * word for word (`resendChanged`): `same` when the same question came back, `changed` when not.
   */
  resent?: 'same' | 'changed';
  /** Set when the question was too big to keep whole: `params` is then a stand-in (`keptOf`). */
  cut?: Cut;
}

/**
 * What doctor knows of a question it kept only as a stand-in: a digest of what it showed
 * (`shownOf`), and its findings as a question alone, judged whole as it came (`askFindings`).
 */
export interface Cut {
  shown: string;
  found: FindingInput[];
}

/** Questions a server pushed while no call was running, under one profile (`outsideCalls`). */
export interface OutsideCalls {
  /** How many came. */
  came: number;
  /** How many doctor answered cancel; the client refused the others before doctor was handed them. */
  cancelled: number;
  /** The first `MAX_OUTSIDE` of them, as they came. */
  asks: Ask[];
}

/** One tool call under one client profile and one answering strategy. */
export interface CallRecord {
  tool: string;
  /** The fixture case (or the arguments built from the input schema). */
  case: string;
  profile: string;
  strategy: Strategy;
  arguments: Record<string, unknown>;
  asks: Ask[];
  outcome: CallOutcome;
  ms: number;
  /** An exploring call (`strategy: 'explore'`): the answers it replays, and the one it changes last. */
  path?: Step[];
}

export interface ProfileRecord {
  profile: Profile;
  /** False when no connection was opened: the server refused this revision (`refused`), or it could not be reached. */
  served: boolean;
  /**
   * True when the server would not speak this revision (e.g. no 2026-07-28 support): it answered
   * the handshake with a refusal. A connection that closed, crashed or hung while connecting is no
   * refusal, and the check stopped under the profile (`stoppedUnder`).
   */
  refused?: boolean;
  negotiated?: string;
  error?: string;
  /**
   * What a stdio server last wrote on stderr when the connection could not be opened, as lines to
   * add to the failure (`lastWords`): why a server that stopped stopped.
   */
  lastWords?: string;
  /** Connections opened again after one died mid-run. */
  reconnects: number;
  /** Questions that arrived while no call was running: cancelled, and judged as questions alone. */
  outside: OutsideCalls;
}

/** A tool as doctor saw it, and which profiles saw it listed. */
export interface ToolInfo extends Pick<Tool, 'name' | 'description' | 'inputSchema' | 'annotations'> {
  destructive: boolean;
  listedBy: string[];
  /** True when `--tools`/`--skip` left it out. */
  filtered: boolean;
}

export interface DoctorRun {
  target: string;
  throwAway: boolean;
  allowDestructive: boolean;
  server?: { name: string; version: string };
  tools: ToolInfo[];
  profiles: ProfileRecord[];
  calls: CallRecord[];
  /** The tree walk's limits, and the branches it saw but did not try (and why). */
  exploration?: { depth: number; budget: number; left: LeftBranch[] };
}

/**
 * Whether the check stopped under this profile before it was done: its connection could not be
 * opened though the server did not refuse the revision, its tools were never listed, or its
 * connection was lost for good.
 */
export function stoppedUnder(p: ProfileRecord): boolean {
  return p.served ? p.error !== undefined : p.refused !== true;
}

const BY_TOOL = new WeakMap<DoctorRun, Map<string, CallRecord[]>>();

/**
 * The calls of `run` made for `tool`, in order: indexed once per run, so a report over thousands of
 * tools does not filter every call for each of them (time growing with the square of the tools).
 */
export function callsOf(run: DoctorRun, tool: string): readonly CallRecord[] {
  let index = BY_TOOL.get(run);
  if (!index) {
    index = new Map();
    for (const call of run.calls) {
      const mine = index.get(call.tool);
      if (mine) mine.push(call);
      else index.set(call.tool, [call]);
    }
    BY_TOOL.set(run, index);
  }
  return index.get(tool) ?? [];
}
