import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../../../test/support/children.js';
import type { DoctorReport } from '../src/doctor/index.js';
import { main } from '../src/main.js';

/** Runs `elicitkit doctor … --json` in-process; the report, the exit code and what went to stderr. */
export async function doctorJson(argv: string[]): Promise<{ code: number; report: DoctorReport; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  // --json goes before a `--`: after it, everything belongs to the server's command.
  const at = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const args = ['doctor', ...argv.slice(0, at), '--json', ...argv.slice(at)];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  if (out.length === 0) throw new Error(`doctor printed no report (exit ${code}): ${err.join('\n')}`);
  return { code, report: JSON.parse(out.join('\n')) as DoctorReport, err: err.join('\n') };
}

/** The command that serves the named broken tools over stdio (this run's build of them, test/support/children.ts). */
export function brokenStdio(...tools: string[]): string[] {
  return [process.execPath, ...nodeArgs(fileURLToPath(new URL('./broken-stdio.ts', import.meta.url)), ...tools)];
}

/** The rules of a report's findings, sorted, one per rule and field: what a test compares exactly. */
export function rulesOf(report: DoctorReport): string[] {
  return [...new Set(report.findings.map((f) => `${f.rule} ${f.severity}${f.field ? ` ${f.field}` : ''}`))].sort();
}
