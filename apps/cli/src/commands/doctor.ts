import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Revision } from '@elicitkit/form';
import { buildReport, judge, PROFILES, type Profile, renderText, runDoctor } from '../doctor/index.js';
import type { Io } from '../io.js';
import { REVISIONS } from '../options.js';
import { parseTarget, splitCommand } from '../target.js';
import { EXIT, UsageError } from '../usage.js';

/**
 * `elicitkit doctor <target> [--json] [--fixtures FILE] [--revision REV | --era legacy|modern|all]`:
 * exits 1 when any finding is an error.
 */
export async function doctor(argv: string[], io: Io, env: { colour?: boolean } = {}): Promise<number> {
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
    },
    strict: true,
  });
  if (positionals.length > 1) throw new UsageError(`doctor takes one target, got ${positionals.join(' ')}`);
  const target = parseTarget(positionals[0], command, { headers: values.header ?? [] });
  const timeout = values['timeout-ms'] === undefined ? 10_000 : Number(values['timeout-ms']);
  if (!Number.isInteger(timeout) || timeout < 100)
    throw new UsageError('--timeout-ms needs a whole number of at least 100');
  const concurrency = values.concurrency === undefined ? 2 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8)
    throw new UsageError('--concurrency needs a whole number from 1 to 8');
  const fixtures =
    values.fixtures === undefined
      ? positionals[0] === 'opsdesk'
        ? OPSDESK_FIXTURES
        : undefined
      : readFixtures(values.fixtures);
  const profiles = profilesFrom(values);
  const run = await runDoctor(target, {
    callTimeoutMs: timeout,
    concurrency,
    profiles,
    ...(fixtures ? { fixtures } : {}),
  });
  const report = buildReport(run, judge(run));
  if (values.json) io.out(JSON.stringify(report, null, 2));
  else io.out(renderText(report, env.colour ?? (process.stdout.isTTY === true && !process.env.NO_COLOR)));
  if (!report.revisions.some((r) => r.served)) {
    io.err(`elicitkit doctor: could not connect to ${target.label}: ${report.revisions[0]?.error ?? 'no connection'}`);
    return EXIT.toolError;
  }
  return report.summary.errors > 0 || (values.strict && report.summary.warnings > 0) ? EXIT.toolError : EXIT.ok;
}

/** Doctor plays a client of each revision; `--era legacy` is both 2025 revisions, `modern` 2026-07-28. */
const ERAS: Record<string, readonly Revision[]> = {
  all: REVISIONS,
  legacy: ['2025-06-18', '2025-11-25'],
  modern: ['2026-07-28'],
};

/** The client profiles to play: those of `--revision REV`, or of `--era` (default all). */
function profilesFrom(values: { revision?: string; era?: string }): Profile[] {
  if (values.revision !== undefined && values.era !== undefined)
    throw new UsageError('give --revision or --era, not both');
  let revisions: readonly Revision[];
  if (values.revision !== undefined) {
    const revision = REVISIONS.find((r) => r === values.revision);
    if (!revision) throw new UsageError(`--revision must be ${REVISIONS.join(', ')}, not "${values.revision}"`);
    revisions = [revision];
  } else {
    const era = values.era ?? 'all';
    const chosen = Object.hasOwn(ERAS, era) ? ERAS[era] : undefined;
    if (!chosen) throw new UsageError(`--era must be legacy, modern or all, not "${era}"`);
    revisions = chosen;
  }
  return PROFILES.filter((p) => revisions.includes(p.revision));
}

/** Arguments that let every opsdesk tool reach its questions (its seed data is known). */
const OPSDESK_FIXTURES: Record<string, Record<string, unknown>> = {
  deploy_service: { service: 'order-service' },
  list_deployments: {},
  execute_sql: { sql: 'DELETE FROM order_items' },
  sync_file: { path: 'notes/plan.md' },
  weekly_report: {},
  register_user: {},
};

/** `{ "tool_name": { ...arguments } }`, checked, with errors that name the problem. */
function readFixtures(path: string): Record<string, Record<string, unknown>> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--fixtures ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new UsageError(`--fixtures ${path}: expected an object of tool name → arguments`);
  for (const [tool, args] of Object.entries(raw)) {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new UsageError(`--fixtures ${path}: the arguments for "${tool}" must be an object`);
  }
  return raw as Record<string, Record<string, unknown>>;
}
