import { clean } from '@elicitkit/client/terminal';
import { OUTSIDE_CALLS } from './findings.js';
import { STRATEGIES } from './profiles.js';
import { coverageLine, exploredEntries, questionLines } from './render-coverage.js';
import type { DoctorReport } from './report.js';

type Paint = (s: string) => string;

/**
 * The terminal report: profiles, a table per tool and case with the branches explored under it,
 * each tool's questions (reached where, not reached where and why, branches tried and not tried),
 * notes, findings, and the coverage beside the verdict.
 * Colour only when asked.
 *
 * @example
 * io.out(renderText(report, process.stdout.isTTY === true));
 */
export function renderText(
  server: DoctorReport,
  colour: boolean,
  options: { width?: number | undefined } = {},
): string {
  const width = options.width ?? 120;
  // Names, messages and errors come from the server: nothing in them may drive the terminal.
  const report = shownDeep(server);
  const paint = (code: number) => (s: string) => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);
  const [red, yellow, green, dim] = [paint(31), paint(33), paint(32), paint(2)];
  const lines: string[] = [
    `elicitkit doctor — ${report.server ? `${report.server.name} ${report.server.version}` : 'unknown server'} (${targetBesides(report.target, report.server?.name)})`,
    '',
    'Client profiles:',
  ];
  for (const r of report.revisions) {
    const state = r.served
      ? `negotiated ${r.negotiated ?? '?'}${r.reconnects ? `, reconnected ${r.reconnects}×` : ''}${r.error ? dim(` (${r.error})`) : ''}`
      : r.stopped
        ? red(`could not connect: ${r.error ?? ''}`)
        : dim(`not served: ${r.error ?? ''}`);
    lines.push(`  ${r.served ? green('✓') : red('✗')} ${r.profile.padEnd(26)} ${state}`);
  }
  // Exploring calls are many per cell: they get a line of their own under the table.
  const used = STRATEGIES.filter(
    (s) => s !== 'explore' && report.tools.some((t) => t.calls.some((c) => c.strategy === s)),
  );
  for (const tool of report.tools) {
    if (tool.filtered) continue;
    lines.push('', `${tool.name}${tool.destructive ? dim(' (destructive by its annotations)') : ''}`);
    const cases = [...new Set(tool.calls.map((c) => c.case))];
    for (const name of cases) {
      if (cases.length > 1 || !name.startsWith('{')) lines.push(`  case ${name}`);
      const calls = tool.calls.filter((c) => c.case === name);
      const profiles = [...new Set(calls.map((c) => c.profile))];
      const cell = (profile: string, s: string) => {
        const c = calls.find((x) => x.profile === profile && x.strategy === s);
        if (!c) return undefined;
        const text = c.skipped
          ? `skip: ${c.skipped}`
          : `${c.outcome}${c.asks ? ` (${c.asks} ask${c.asks === 1 ? '' : 's'})` : ''}`;
        const bad = c.outcome === 'timeout' || c.outcome === 'failed' || c.outcome.startsWith('error');
        return { text, paint: c.skipped ? dim : bad ? red : (t: string) => t };
      };
      // Columns as wide as what they hold; a table wider than the terminal is drawn a profile a
      // line instead, wrapped between entries — never a word cut at the edge.
      const first = Math.max('profile'.length, ...profiles.map((p) => p.length)) + 2;
      const widths = used.map((s) => Math.max(s.length, ...profiles.map((p) => cell(p, s)?.text.length ?? 0)) + 2);
      if (2 + first + widths.reduce((a, b) => a + b, 0) <= width) {
        lines.push(`  ${'profile'.padEnd(first)}${used.map((s, i) => s.padEnd(widths[i] ?? 0)).join('')}`);
        for (const profile of profiles) {
          const cells = used.map((s, i) => {
            const c = cell(profile, s);
            return c ? c.paint(c.text.padEnd(widths[i] ?? 0)) : ''.padEnd(widths[i] ?? 0);
          });
          lines.push(`  ${profile.padEnd(first)}${cells.join('')}`.trimEnd());
        }
      } else {
        for (const profile of profiles) {
          const entries = used.flatMap((s) => {
            const c = cell(profile, s);
            return c ? [c.paint(`${s} ${c.text}`)] : [];
          });
          lines.push(...wrapEntries(`  ${profile}:`, entries, width, 4));
        }
      }
      const explored = exploredEntries(calls);
      if (explored.length > 0) lines.push(...wrapEntries(`  ${dim('explored:')}`, explored, width, 4));
    }
    lines.push(...questionLines(tool, report.coverage.untried, green, yellow, dim));
  }
  lines.push(...clientLines(report, yellow, dim));
  lines.push(...restartLines(report, green, yellow, dim));
  lines.push(...outsideLines(report, dim));
  if (report.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const n of report.notes) lines.push(`  ${n.tool}${n.case ? ` ${dim(n.case)}` : ''}: ${n.message}`);
  }
  if (report.findings.length > 0) lines.push('', 'Findings:');
  for (const f of report.findings) {
    const mark = f.severity === 'error' ? red(`✗ ${f.rule} error  `) : yellow(`! ${f.rule} warning`);
    const where = [f.tool, f.field && `field ${f.field}`, f.profile, f.strategy].filter(Boolean).join(', ');
    lines.push(`  ${mark} ${f.message} ${dim(`[${where}${f.seen > 1 ? `; seen ${f.seen}×` : ''}]`)}`);
    for (const t of f.transcripts ?? []) {
      const asks = t.asks.map((a) => `${a.mode} {${a.fields.join(', ')}} → ${a.answer ?? 'not answered'}`);
      lines.push(
        `    ${dim(`${t.profile}, ${t.strategy}: ${asks.length ? asks.join('; ') : 'asked nothing'} → ${t.outcome}`)}`,
      );
    }
    lines.push(`    ${dim(`fix: ${f.fix}`)}`);
  }
  lines.push('', coverageLine(report, green));
  const s = report.summary;
  lines.push(
    `${s.tools} tool${s.tools === 1 ? '' : 's'}, ${s.made} calls made (${s.skipped} skipped): ${s.errors ? red(`${s.errors} error${s.errors === 1 ? '' : 's'}`) : green('0 errors')}, ${s.warnings ? yellow(`${s.warnings} warning${s.warnings === 1 ? '' : 's'}`) : '0 warnings'}.`,
  );
  return lines.join('\n');
}

/** What each known client played would show (`--clients`). */
function clientLines(report: DoctorReport, yellow: Paint, dim: Paint): string[] {
  if (report.clients.length === 0) return [];
  const out = ['', 'What each client would show:'];
  for (const c of report.clients) {
    out.push(`  ${c.name} ${dim(`(${c.client}, announced as "${c.announced}")`)}`);
    if (c.tools.length === 0) out.push(`    ${dim('no call was made')}`);
    for (const t of c.tools) {
      out.push(`    ${t.tool}${t.case.startsWith('{') ? '' : ` ${dim(t.case)}`}: ${t.sees.join('; ')}`);
      for (const w of t.warnings) out.push(`      ${yellow('!')} ${w}`);
    }
  }
  return out;
}

/** Questions the server pushed while no tool call was running, per profile: how many, and that doctor cancelled them. */
function outsideLines(report: DoctorReport, dim: Paint): string[] {
  if (report.outsideCalls.length === 0) return [];
  const out = [
    '',
    `Questions outside any call (asked while no tool call was running; their findings say ${OUTSIDE_CALLS}):`,
  ];
  for (const o of report.outsideCalls) {
    const n = o.questions;
    const answered =
      o.cancelled === n
        ? 'cancelled by doctor'
        : `${o.cancelled} cancelled by doctor, ${n - o.cancelled} refused by the client`;
    out.push(`  ${o.profile}: ${n} question${n === 1 ? '' : 's'}, ${answered}`);
    for (const a of o.asks) {
      const message = a.message.length > 70 ? `${a.message.slice(0, 67)}…` : a.message;
      const fields = a.mode === 'form' ? ` {${a.fields.join(', ')}}` : '';
      out.push(`    ${dim(`${a.mode}${fields} "${message}" → ${a.answer ?? 'not answered (refused by the client)'}`)}`);
    }
    if (o.asks.length < n) out.push(`    ${dim(`… and ${n - o.asks.length} more, not kept`)}`);
  }
  return out;
}

/** Troubleshooting row 13: what changed between two fresh starts (`--restart-check`). */
function restartLines(report: DoctorReport, green: Paint, yellow: Paint, dim: Paint): string[] {
  const r = report.restart;
  if (!r) return [];
  if (!r.compared) return ['', `Restart check: ${dim(`not compared: ${r.error ?? 'no connection'}`)}`];
  if (r.changes.length === 0)
    return ['', `Restart check: ${green('the same capabilities and tools on a fresh start')}`];
  return [
    '',
    `Restart check: ${yellow('the server declared something else on a fresh start')} — a client that cached the first (troubleshooting row 13) stops showing forms or tools; reconnect it:`,
    ...r.changes.map((c) => `  ${yellow('!')} ${c}`),
  ];
}

/** A copy of plain report data with every string made fit for a terminal (`clean`). */
function shownDeep<T>(value: T): T {
  // One line each: a line break in server text (a tool's name, a message) would start what reads
  // as a line of the report's own, so it is shown as a mark instead.
  if (typeof value === 'string') return clean(value).replace(/\n/g, ' ⏎ ') as T;
  if (Array.isArray(value)) return value.map(shownDeep) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a key named `__proto__` (the server's names can be keys) stays a key.
  for (const [key, v] of Object.entries(value))
    Object.defineProperty(out, key, { value: shownDeep(v), enumerable: true, writable: true, configurable: true });
  return out as T;
}

/**
 * What the report's target adds to the server's name: `opsdesk (throw-away data: …)` under
 * `opsdesk` is `throw-away data: …`, not the name twice.
 */
function targetBesides(target: string, name: string | undefined): string {
  return name !== undefined && target.startsWith(`${name} (`) && target.endsWith(')')
    ? target.slice(name.length + 2, -1)
    : target;
}

/**
 * `head` and `entries` (separated by ` · `) in lines of at most `width` columns, continued
 * `indent` spaces in; an entry is never split (one longer than a line gets a line of its own, and
 * one that does not fit after `head` starts the next line).
 * Colour codes do not count.
 */
export function wrapEntries(head: string, entries: readonly string[], width: number, indent: number): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes (ESC [ … m) take no columns.
  const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
  const lines: string[] = [];
  let line = head;
  let first = true;
  for (const entry of entries) {
    const piece = first ? ` ${entry}` : ` · ${entry}`;
    if (visible(line) + visible(piece) > width) {
      lines.push(line);
      line = `${' '.repeat(indent)}${entry}`;
    } else line += piece;
    first = false;
  }
  lines.push(line);
  return lines;
}
