import { parseArgs } from 'node:util';
import { clean } from '@elicitkit/client/terminal';
import { jsonText } from '@elicitkit/client/typed-json';
import { isKnownClientId, KNOWN_CLIENTS, knownClient } from '@elicitkit/form/clients';
import { localeFrom } from '@elicitkit/opsdesk';
import {
  buildReport,
  checkRestart,
  clientProfile,
  confirmToProceed,
  type Endpoint,
  EXPLORE_DEFAULTS,
  endpointFor,
  FixtureError,
  type Fixtures,
  judge,
  liveServerWarning,
  MAX_ASKS,
  OPSDESK_FIXTURES,
  PROFILES,
  type Profile,
  parseFixtures,
  readFixtures,
  renderText,
  runDoctor,
  startOwnOpsdesk,
} from '../doctor/index.js';
import { progressLine } from '../doctor/progress.js';
import { stoppedUnder } from '../doctor/records.js';
import type { Io } from '../io.js';
import { revisionFrom } from '../options.js';
import { joinLines } from '../shown.js';
import { parseTarget, splitCommand } from '../target.js';
import { EXIT, refuseEmptyValues, UsageError, wholeNumber } from '../usage.js';

/** What stops doctor, its throw-away server's data removed first: Ctrl+C, SIGTERM, its terminal closing. */
const STOPPING = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

/** What `doctor` reads from its surroundings; tests pass their own. */
export interface DoctorEnvironment {
  colour?: boolean;
  /** Where a person could answer "Continue?"; asked only when it is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the question is written (stderr by default). */
  prompt?: NodeJS.WritableStream;
}

/**
 * `elicitkit doctor <target> [--json] [--fixtures FILE] [--tools a,b] [--skip c] [--allow-destructive]
 * [--yes] [--revision REV|auto] [--strict] [--timeout-ms N] [--concurrency N] [--depth N] [--budget N]`:
 * exits 1 when any finding is an error, 3 when the person said no at the warning.
 */
export async function doctor(argv: string[], io: Io, env: DoctorEnvironment = {}): Promise<number> {
  const { before, command } = splitCommand(argv);
  const { values, positionals } = parseArgs({
    args: before,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      fixtures: { type: 'string' },
      header: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
      concurrency: { type: 'string' },
      revision: { type: 'string' },
      era: { type: 'string' },
      strict: { type: 'boolean' },
      tools: { type: 'string', multiple: true },
      skip: { type: 'string', multiple: true },
      'allow-destructive': { type: 'boolean' },
      yes: { type: 'boolean' },
      clients: { type: 'string', multiple: true },
      'restart-check': { type: 'boolean' },
      depth: { type: 'string' },
      budget: { type: 'string' },
    },
    strict: true,
  });
  refuseEmptyValues(values);
  if (positionals.length > 1) throw new UsageError(`doctor takes one target, got ${positionals.join(' ')}`);
  const own = positionals[0] === 'opsdesk' && command === undefined;
  const target = own ? undefined : parseTarget(positionals[0], command, { headers: values.header ?? [] });
  const timeout = wholeNumber('--timeout-ms', values['timeout-ms'], 10_000, 100, 3_600_000);
  const profiles = [...profilesFrom(values, io), ...clientsFrom(values.clients)];
  // Every profile at once by default: a slow tool then costs one timeout, not one per profile.
  const concurrency = wholeNumber('--concurrency', values.concurrency, profiles.length, 1, 8);
  const only = names('--tools', values.tools);
  const skip = names('--skip', values.skip);
  const fixtures = fixturesFrom(values.fixtures, own);
  const allowDestructive = values['allow-destructive'] === true;
  // Checked before anything is started or called: a bad limit costs nothing.
  const explore = {
    depth: wholeNumber('--depth', values.depth, EXPLORE_DEFAULTS.depth, 1, MAX_ASKS),
    budget: wholeNumber('--budget', values.budget, EXPLORE_DEFAULTS.budget, 0, 1_000),
  };

  if (target) {
    io.err(liveServerWarning(target.label, allowDestructive));
    if (!values.yes && !(await confirmToProceed(env.stdin ?? process.stdin, env.prompt ?? process.stderr))) {
      io.err('elicitkit doctor: nothing was called.');
      return EXIT.refused;
    }
  }
  const endpoint: Endpoint = target
    ? endpointFor(target)
    : await startOwnOpsdesk({ locale: localeFrom(process.env.LANG) });
  // Ctrl+C, SIGTERM or a closed terminal (SIGHUP) must not leave the throw-away server's data behind.
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? EXIT.interrupted : signal === 'SIGHUP' ? EXIT.hungUp : EXIT.terminated;
    void endpoint.close().finally(() => process.exit(code));
  };
  for (const name of STOPPING) process.once(name, onSignal);
  if (!target) io.err(`elicitkit doctor: ${endpoint.label}, removed when doctor exits.`);
  const progress = progressLine(process.stderr);
  try {
    const run = await runDoctor(endpoint, {
      onCall: progress.call,
      callTimeoutMs: timeout,
      concurrency,
      profiles,
      allowDestructive,
      explore,
      ...(fixtures ? { fixtures } : {}),
      ...(only ? { only } : {}),
      ...(skip ? { skip } : {}),
    });
    progress.done();
    const listed = run.tools.map((t) => t.name);
    const unknown = [...(only ?? []), ...(skip ?? [])].filter((n) => !listed.includes(n));
    if (run.profiles.some((p) => p.served) && unknown.length > 0) {
      const message = `no tool named ${unknown.join(', ')} (the server lists: ${listed.join(', ') || 'none'})`;
      if (only?.every((n) => unknown.includes(n))) throw new UsageError(`--tools: ${oneLine(message)}`);
      io.err(`elicitkit doctor: warning: ${oneLine(message)}`);
    }
    const { findings, notes } = judge(run);
    const firstProfile = profiles[0];
    const restart =
      values['restart-check'] && firstProfile ? await checkRestart(endpoint, firstProfile, timeout) : null;
    const report = buildReport(run, findings, notes, restart);
    if (values.json) io.out(jsonText(report, { space: 2 }) ?? 'null');
    else
      io.out(
        renderText(report, env.colour ?? (process.stdout.isTTY === true && !process.env.NO_COLOR), {
          width: process.stdout.isTTY ? process.stdout.columns : undefined,
        }),
      );
    if (!report.revisions.some((r) => r.served)) {
      io.err(
        `elicitkit doctor: could not connect to ${endpoint.label}: ${oneLine(run.profiles[0]?.error ?? 'no connection')}${clean(run.profiles.find((p) => p.lastWords)?.lastWords ?? '')}`,
      );
      return EXIT.toolError;
    }
    // A check that stopped under a profile — one the server closed or crashed on while connecting,
    // too — judged only part of the server: not a pass.
    for (const p of run.profiles)
      if (stoppedUnder(p))
        io.err(
          `elicitkit doctor: the check stopped under ${p.profile.id}: ${oneLine(p.error ?? '')}${p.served ? '' : clean(p.lastWords ?? '')}`,
        );
    return report.summary.errors > 0 ||
      report.summary.stopped.length > 0 ||
      (values.strict && report.summary.warnings > 0)
      ? EXIT.toolError
      : EXIT.ok;
  } finally {
    progress.done();
    for (const name of STOPPING) process.removeListener(name, onSignal);
    await endpoint.close();
  }
}

/** `--tools a,b --tools c` → ['a', 'b', 'c']. */
function names(flag: string, raw: string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.flatMap((r) => r.split(',')).map((n) => n.trim());
  if (list.some((n) => n === '')) throw new UsageError(`${flag} needs tool names separated by commas`);
  return list;
}

function fixturesFrom(path: string | undefined, own: boolean): Fixtures | undefined {
  try {
    if (path !== undefined) return readFixtures(path);
    return own ? parseFixtures(OPSDESK_FIXTURES, 'the built-in opsdesk fixtures') : undefined;
  } catch (error) {
    throw error instanceof FixtureError ? new UsageError(`--fixtures ${error.message}`) : error;
  }
}

/** `--clients trae,cursor --clients cline` → the profiles that play those known clients. */
function clientsFrom(raw: string[] | undefined): Profile[] {
  if (raw === undefined) return [];
  const ids = raw.flatMap((r) => r.split(',')).map((n) => n.trim());
  const known = KNOWN_CLIENTS.map((c) => c.id).join(', ');
  const unknown = ids.filter((id) => !isKnownClientId(id));
  if (ids.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--clients takes known client ids separated by commas (${known}), not "${unknown.join(', ')}"`,
    );
  return [...new Set(ids.filter(isKnownClientId))].map((id) => clientProfile(knownClient(id)));
}

/**
 * The client profiles to play: every revision's by default (or `--revision auto`), only one
 * revision's with `--revision REV` (or the deprecated `--era legacy|modern`, read as `call` reads it).
 */
function profilesFrom(values: { revision?: string; era?: string }, io: Io): Profile[] {
  const choice = revisionFrom(values, io);
  return choice === 'auto' ? [...PROFILES] : PROFILES.filter((p) => p.revision === choice);
}

/** Server text (tool names, an error's message) on one line of stderr: no control sequence, no line break. */
function oneLine(text: string): string {
  return joinLines(clean(text));
}
