import { type FieldDef, field, form, type Issue } from '@elicitkit/form';
import { defineTool, done, invalid, outcomeSchema, rejected } from '@elicitkit/server';
import * as z from 'zod/v4';
import { REPORT_FIELDS, type ReportField, SERVICE_NAME_MAX } from '../choices.js';
import { type Deps, findCaller } from '../context.js';
import { all } from '../db/query.js';
import { MESSAGES, type OpsdeskMessages } from '../messages/index.js';
import { permissionsFor } from '../permissions.js';
import { oneLine } from '../shorten.js';
import { DEPLOYER_COLUMNS, DEPLOYER_JOIN, type DeployerRow, deployer, deployerFields } from './deployer.js';

const MAX_SPAN_DAYS = 31;
/** The most deployments a report lists (all are counted): a busy month must not be megabytes of text. */
const MAX_LISTED = 200;
const DAY = 86_400_000;

/** A real calendar date in YYYY-MM-DD, as epoch ms; undefined for 2026-02-30 and friends. */
export function calendarDate(value: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Not Date.UTC(y, …): it reads the years 0–99 as 1900–1999.
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  const ms = back.getTime();
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? ms : undefined;
}

type Range = Record<ReportField, string>;

/**
 * When calendar day `date` (YYYY-MM-DD, a real date), moved on by `days`, begins in the server's
 * time zone, as deployments store their time (ISO 8601, UTC): a day is the person's day, as
 * sync_file's times are, never a UTC day (a deployment at 07:00 on 1 December in Shanghai is
 * 23:00 on 30 November in UTC). A day that starts without a midnight (a DST change at 00:00)
 * starts at its first hour.
 */
export function dayStart(date: string, days = 0): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const at = new Date(2000, 0, 1);
  // setFullYear, not the constructor: the constructor reads the years 0–99 as 1900–1999.
  at.setFullYear(y, m - 1, d + days);
  at.setHours(0, 0, 0, 0);
  const iso = at.toISOString();
  // Past year 9999 the ISO form is '+010000-…', which sorts before every stored time: no bound.
  return iso.startsWith('+') ? '~' : iso;
}

/** A stored time (ISO 8601) as the server's time zone reads it, to the minute: '2026-12-01 07:00'. */
function localMinute(stored: string): string {
  const at = new Date(stored);
  if (Number.isNaN(at.getTime())) return stored.slice(0, 16).replace('T', ' ');
  const two = (n: number) => String(n).padStart(2, '0');
  const year = String(at.getFullYear()).padStart(4, '0');
  return `${year}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

interface Row extends DeployerRow {
  id: number;
  env: string;
  version: string;
  ticket: string | null;
  created_at: string;
}

/** weekly_report: asks for every missing field in one form, then checks the range on the server. */
export function weeklyReportTool({ store }: Deps) {
  /** The server-side rules, for given arguments and asked answers alike, said in `t`'s language. */
  const problems = (t: OpsdeskMessages, r: Partial<Range>, visible: readonly string[]): Issue[] => {
    const issues: Issue[] = [];
    // Missing and not permitted read the same, so a report cannot probe which projects exist.
    if (r.project !== undefined && !visible.includes(r.project))
      issues.push(issue('project', t.noSuchProject(oneLine(r.project, 80))));
    const from = r.from === undefined ? undefined : calendarDate(r.from);
    const to = r.to === undefined ? undefined : calendarDate(r.to);
    if (r.from !== undefined && from === undefined)
      issues.push(issue('from', t.badDate(t.fromTitle, oneLine(r.from, 40))));
    if (r.to !== undefined && to === undefined) issues.push(issue('to', t.badDate(t.toTitle, oneLine(r.to, 40))));
    if (from !== undefined && to !== undefined) {
      if (from > to) issues.push(issue('from', t.fromAfterTo(r.from as string, r.to as string)));
      else if ((to - from) / DAY + 1 > MAX_SPAN_DAYS) issues.push(issue('to', t.spanTooLong((to - from) / DAY + 1)));
    }
    return issues;
  };

  return defineTool({
    name: 'weekly_report',
    title: 'Weekly deployment report',
    description:
      'Report the deployments of one project over a date range of at most 31 days. Missing project or dates are asked from the user in one form.',
    inputSchema: z.object({
      project: z.string().max(SERVICE_NAME_MAX).optional().describe('Project (service) name'),
      from: z.string().max(64).optional().describe('First day, YYYY-MM-DD'),
      to: z.string().max(64).optional().describe('Last day, YYYY-MM-DD'),
    }),
    outputSchema: outcomeSchema({
      project: z.string(),
      from: z.string(),
      to: z.string(),
      byEnv: z.record(z.string(), z.number()),
      deployments: z.array(
        z.object({
          id: z.number(),
          env: z.string(),
          version: z.string(),
          ticket: z.string().nullable(),
          ...deployerFields,
          created_at: z.string(),
        }),
      ),
    }),
    annotations: { readOnlyHint: true },
    async run(args, ctx) {
      const t = MESSAGES[ctx.locale];
      const who = await store.run(findCaller(ctx));
      if (!who) return rejected(t.unknownCaller(ctx.user));
      const visible = (await store.run(permissionsFor(who.id))).services;
      const given: Partial<Range> = Object.fromEntries(
        Object.entries(args).filter(([, v]) => v !== undefined && v !== ''),
      );
      const upfront = problems(t, given, visible);
      // Given arguments are checked before anything is asked: no question for a doomed report.
      if (upfront.length > 0) return invalid(upfront, { locale: ctx.locale });

      let range = given;
      const missing = REPORT_FIELDS.filter((k) => given[k] === undefined);
      if (missing.length > 0) {
        if (missing.includes('project') && visible.length === 0) return rejected(t.noProjects);
        const fields: Record<string, FieldDef> = {};
        if (missing.includes('project'))
          fields.project = field.select(
            visible.map((p) => ({ value: p, title: p })),
            { title: t.projectTitle },
          );
        if (missing.includes('from')) fields.from = field.string({ title: t.fromTitle, format: 'date' });
        if (missing.includes('to')) fields.to = field.string({ title: t.toTitle, format: 'date' });
        const answer = await ctx.ask('range', {
          message: t.reportMessage(t.series(missing.map((k) => t.reportFields[k]))),
          form: form(fields),
          check: (value) => problems(t, { ...given, ...(value as Partial<Range>) }, visible),
        });
        if (answer.action !== 'accept') return answer.result();
        range = { ...given, ...(answer.value as Partial<Range>) };
      }
      const { project, from, to } = range as Range;
      // The grant is read again with the rows (on 2025 the call is not run again after its
      // question): one taken away while the person answered applies to this report too.
      const found = await store.run(
        (function* () {
          const now = (yield* permissionsFor(who.id)).services;
          if (!now.includes(project)) return { refused: now };
          // From the first day's start to the start of the day after the last, in the server's time zone.
          const inRange = 'FROM deployments d WHERE d.service = ? AND d.created_at >= ? AND d.created_at < ?';
          const bounds = [dayStart(from), dayStart(to, 1)];
          const counts = yield* all<{ env: string; n: number | string }>(
            `SELECT d.env, COUNT(*) AS n ${inRange} GROUP BY d.env`,
            project,
            ...bounds,
          );
          const listed = yield* all<Row>(
            `SELECT d.id, d.env, d.version, d.ticket, d.created_at, ${DEPLOYER_COLUMNS} FROM deployments d ${DEPLOYER_JOIN} WHERE d.service = ? AND d.created_at >= ? AND d.created_at < ? ORDER BY d.created_at LIMIT ${MAX_LISTED}`,
            project,
            ...bounds,
          );
          return { counts, listed };
        })(),
      );
      if ('refused' in found) return rejected(t.noSuchService(oneLine(project, 80), 'report', found.refused));
      const rows = found.listed.map(({ deployed_as, deployed_by_id, deployer_now, ...r }) => ({
        ...r,
        ...deployer(t, { deployed_as, deployed_by_id, deployer_now }),
      }));
      const byEnv: Record<string, number> = { dev: 0, staging: 0, prod: 0 };
      // Postgres counts in bigint, which its driver hands over as text.
      for (const c of found.counts) byEnv[c.env] = Number(c.n);
      const total = Object.values(byEnv).reduce((a, b) => a + b, 0);
      // One line per deployment, whoever wrote its row (a script, an older opsdesk): a line break
      // in it would read as another deployment, a bidi control would reorder the line.
      const line = (text: string) => oneLine(text, 80);
      const lines = found.listed.map(
        (r) =>
          `- ${line(localMinute(r.created_at))} ${line(r.version)} → ${line(r.env)}${r.ticket ? ` (${line(r.ticket)})` : ''} by ${deployer(t, r, line).deployed_by}`,
      );
      const more = total > rows.length ? [t.reportListed(rows.length, total)] : [];
      return done([t.report(project, from, to, total), ...lines, ...more].join('\n'), {
        project,
        from,
        to,
        byEnv,
        deployments: rows,
      });
    },
  });
}

function issue(field: string, message: string): Issue {
  return { path: [field], code: 'custom', message };
}
