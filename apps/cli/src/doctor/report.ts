import type { DoctorFinding } from './judge.js';
import type { Strategy } from './profiles.js';
import type { CallOutcome, CallRecord, DoctorRun } from './run.js';

export interface DoctorReport {
  target: string;
  server: { name: string; version: string } | null;
  revisions: { profile: string; served: boolean; negotiated: string | null; error: string | null }[];
  tools: {
    name: string;
    calls: { profile: string; strategy: Strategy; outcome: string; asks: number; ms: number }[];
  }[];
  findings: DoctorFinding[];
  summary: { tools: number; calls: number; errors: number; warnings: number; ok: boolean };
}

/** What a call ended in, in a word or two: the status, `error`, `timeout`, or `skipped`. */
export function outcomeLabel(o: CallOutcome): string {
  switch (o.kind) {
    case 'result':
      return o.status ?? (o.isError ? 'error result' : 'result');
    case 'error':
      return `error${o.code !== undefined ? ` ${o.code}` : ''}`;
    case 'timeout':
      return 'timeout';
    case 'skipped':
      return 'skipped';
  }
}

/** The stable JSON shape (for CI). */
export function buildReport(run: DoctorRun, findings: DoctorFinding[]): DoctorReport {
  const byTool = new Map<string, CallRecord[]>();
  for (const c of run.calls) byTool.set(c.tool, [...(byTool.get(c.tool) ?? []), c]);
  const errors = findings.filter((f) => f.severity === 'error').length;
  return {
    target: run.target,
    server: run.server ?? null,
    revisions: run.profiles.map((p) => ({
      profile: p.profile.id,
      served: p.served,
      negotiated: p.negotiated ?? null,
      error: p.error ?? null,
    })),
    tools: [...byTool].map(([name, calls]) => ({
      name,
      calls: calls.map((c) => ({
        profile: c.profile,
        strategy: c.strategy,
        outcome: outcomeLabel(c.outcome),
        asks: c.asks.length,
        ms: c.ms,
      })),
    })),
    findings,
    summary: {
      tools: byTool.size,
      calls: run.calls.length,
      errors,
      warnings: findings.length - errors,
      ok: errors === 0 && run.profiles.some((p) => p.served),
    },
  };
}

const STRATEGIES: Strategy[] = ['accept-defaults', 'accept-empty', 'decline', 'cancel', 'none'];

/** A terminal report: revisions, a table per tool, the findings, a summary. Colour only when asked. */
export function renderText(report: DoctorReport, colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);
  const red = (s: string) => paint(31, s);
  const yellow = (s: string) => paint(33, s);
  const green = (s: string) => paint(32, s);
  const dim = (s: string) => paint(2, s);
  const lines: string[] = [];
  lines.push(
    `elicitkit doctor — ${report.server ? `${report.server.name} ${report.server.version}` : 'unknown server'} (${report.target})`,
    '',
  );
  lines.push('Client profiles:');
  for (const r of report.revisions) {
    lines.push(
      `  ${r.served ? green('✓') : red('✗')} ${r.profile.padEnd(26)} ${r.served ? `negotiated ${r.negotiated ?? '?'}` : dim(`not served: ${r.error ?? ''}`)}`,
    );
  }
  const used = STRATEGIES.filter((s) => report.tools.some((t) => t.calls.some((c) => c.strategy === s)));
  for (const tool of report.tools) {
    lines.push('', `${tool.name}`);
    lines.push(`  ${'profile'.padEnd(26)} ${used.map((s) => s.padEnd(22)).join('')}`);
    const profiles = [...new Set(tool.calls.map((c) => c.profile))];
    for (const profile of profiles) {
      const cells = used.map((s) => {
        const c = tool.calls.find((x) => x.profile === profile && x.strategy === s);
        if (!c) return ''.padEnd(22);
        const text = `${c.outcome}${c.asks ? ` (${c.asks} ask${c.asks === 1 ? '' : 's'})` : ''}`.padEnd(22);
        return /timeout|error/.test(c.outcome) ? red(text) : text;
      });
      lines.push(`  ${profile.padEnd(26)} ${cells.join('')}`);
    }
  }
  lines.push('', report.findings.length === 0 ? green('No findings.') : 'Findings:');
  for (const f of report.findings) {
    const mark = f.severity === 'error' ? red(`✗ ${f.rule} error  `) : yellow(`! ${f.rule} warning`);
    const where = [f.tool, f.field && `field ${f.field}`, f.profile, f.strategy].filter(Boolean).join(', ');
    lines.push(`  ${mark} ${f.message} ${dim(`[${where}${f.seen > 1 ? `; seen ${f.seen}×` : ''}]`)}`);
    lines.push(`    ${dim(`fix: ${f.fix}`)}`);
  }
  const s = report.summary;
  lines.push(
    '',
    `${s.tools} tool${s.tools === 1 ? '' : 's'}, ${s.calls} calls: ${s.errors ? red(`${s.errors} errors`) : green('0 errors')}, ${s.warnings ? yellow(`${s.warnings} warnings`) : '0 warnings'}.`,
  );
  return lines.join('\n');
}
