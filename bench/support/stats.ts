import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** Small statistics and the result line every bench prints. */

export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export const p50 = (xs: readonly number[]) => quantile(xs, 0.5);

/** The middle half of a sample, as "low–high": the spread a p50 sits in. */
export function iqr(xs: readonly number[], digits = 2): string {
  return `${quantile(xs, 0.25).toFixed(digits)}–${quantile(xs, 0.75).toFixed(digits)}`;
}

/** One goal of issue 12 with its measured figure and verdict. */
export interface GoalLine {
  goal: string;
  figure: string;
  /** undefined = SKIP (what could not be measured in this run, and why is in `figure`); 'info' = a figure without a goal. */
  pass: boolean | undefined | 'info';
}

const lines: GoalLine[] = [];

/** Records a goal line (printed at once and again in the final table). */
export function report(line: GoalLine): void {
  lines.push(line);
  console.log(`  → ${verdict(line.pass)}  ${line.goal}: ${line.figure}`);
  // A part run as a child of `npm run bench` hands its lines to the parent's table this way.
  if (process.env.BENCH_GOALS_FILE) appendFileSync(process.env.BENCH_GOALS_FILE, `${JSON.stringify(line)}\n`);
}

/** The goal lines a child part wrote to `file` (BENCH_GOALS_FILE), recorded without printing them again. */
export function recordFrom(file: string): number {
  if (!existsSync(file)) return 0;
  const found = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as GoalLine);
  lines.push(...found);
  return found.length;
}

const verdict = (pass: GoalLine['pass']) =>
  pass === 'info' ? 'INFO' : pass === undefined ? 'SKIP' : pass ? 'PASS' : 'FAIL';

/** How many goal lines recorded in this process failed. */
export function failedGoals(): number {
  return lines.filter((l) => l.pass === false).length;
}

/** The table of every goal line recorded in this process. */
export function goalTable(): string {
  const width = Math.max(...lines.map((l) => l.goal.length));
  return lines.map((l) => `${verdict(l.pass).padEnd(4)}  ${l.goal.padEnd(width)}  ${l.figure}`).join('\n');
}

/** Let timers, I/O and GC run between measured calls, as a real server's event loop would. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CPU time (user + system) in ms spent by this process while `fn` ran. */
export async function cpuOf<T>(fn: () => Promise<T>): Promise<{ value: T; cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}
