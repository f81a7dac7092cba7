import type { QuestionCoverage, UntriedBranch } from './coverage.js';
import type { DoctorReport } from './report.js';

type Paint = (s: string) => string;
type Tool = DoctorReport['tools'][number];

/**
 * A case's exploring calls, one entry per path: `env=prod › confirmed=true → invalid`, with a
 * count per outcome where profiles ended differently.
 */
export function exploredEntries(calls: Tool['calls']): string[] {
  const byPath = new Map<string, string[]>();
  for (const c of calls) {
    if (c.path === null || c.skipped !== null) continue;
    const key = c.path.join(' › ');
    byPath.set(key, [...(byPath.get(key) ?? []), c.outcome]);
  }
  return [...byPath].map(([path, outcomes]) => {
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
    const shown = counts.size === 1 ? outcomes[0] : [...counts].map(([o, n]) => `${o} (${n})`).join(', ');
    return `${path} → ${shown}`;
  });
}

/** Each question: where it was reached, which branches were tried, and what was not tried and why. */
export function questionLines(
  tool: Tool,
  untried: readonly UntriedBranch[],
  green: Paint,
  yellow: Paint,
  dim: Paint,
): string[] {
  if (tool.questions.length === 0) return [`  ${dim('asked nothing')}`];
  const out = ['  questions:'];
  for (const q of tool.questions) {
    const gaps = q.notReached.filter((n) => n.reason !== 'mode-not-declared' && n.reason !== 'not-served');
    const of = q.reached.length + gaps.length;
    const everywhere = q.branches.filter((b) => b.untried.length === 0);
    const left = untried.filter((u) => u.tool === tool.name && u.question === q.key);
    const mark = gaps.length === 0 && left.length === 0 ? green('✓') : yellow('!');
    const message = q.message.length > 70 ? `${q.message.slice(0, 67)}…` : q.message;
    out.push(
      `    ${mark} ${q.key} ${dim(`"${message.replace(/\s+/g, ' ')}"`)}: reached under ${q.reached.length} of ${of} profiles; ${branchesLine(q, everywhere.length)}`,
    );
    for (const g of gaps) out.push(`      ${yellow('not reached')} under ${g.profile}: ${g.detail}`);
    const na = q.notReached.filter((n) => !gaps.includes(n)).map((n) => n.profile);
    if (na.length > 0) out.push(`      ${dim(`cannot be asked under: ${na.join(', ')}`)}`);
    for (const u of left) {
      const reached = q.reached.map((r) => r.profile);
      const under = u.profiles.length === reached.length ? 'every profile that reached it' : u.profiles.join(', ');
      out.push(`      ${yellow('not tried')} ${u.label} under ${under}: ${u.detail}`);
    }
    if (q.retried) out.push(`      ${dim('asked again after an accepted answer: the retry path was reached')}`);
  }
  return out;
}

function branchesLine(q: QuestionCoverage, everywhere: number): string {
  const labels = q.branches.map((b) => b.label).join(', ');
  return everywhere === q.branches.length
    ? `every branch tried (${labels})`
    : `${everywhere} of ${q.branches.length} branches tried under every profile that reached it`;
}

/** "No findings" only ever appears beside what was reached, and what was tried. */
export function coverageLine(report: DoctorReport, green: Paint): string {
  const c = report.coverage;
  const silent = c.silentTools.length ? ` Asked nothing: ${c.silentTools.join(', ')}.` : '';
  const notCalled = c.notCalled.length ? ` Not called: ${c.notCalled.join(', ')}.` : '';
  const spared = c.acceptNotTried.length
    ? ` Answered decline/cancel only (destructive or a confirmation), so what they ask after an accept is unexplored: ${c.acceptNotTried.join(', ')} (--allow-destructive explores it).`
    : '';
  const e = report.exploration;
  const walk = ` Explored ${e.calls} more call${e.calls === 1 ? '' : 's'} (--depth ${e.depth}, --budget ${e.budget} per tool and profile).`;
  const untried = c.untried.length
    ? ` Not tried: ${c.untried.length} branch${c.untried.length === 1 ? '' : 'es'} (each named above, with why).`
    : '';
  const reached =
    c.questions === 0
      ? 'no question was reached (if a tool should ask, give it arguments that leave something to ask: --fixtures)'
      : `${c.fullyReached} of ${c.questions} question${c.questions === 1 ? '' : 's'} reached under every profile that can show ${c.questions === 1 ? 'it' : 'them'}, with every branch tried (${c.pairs.reached} of ${c.pairs.applicable} question × profile pairs; ${c.branches.tried} of ${c.branches.seen} branches tried under every profile that reached them)`;
  // With no revision served nothing was judged, and with one whose check stopped (its connection
  // never opened, its tools never listed, its connection lost for good) not all that was there:
  // "no findings" would read as a clean bill.
  const stopped = report.revisions.filter((r) => r.stopped).map((r) => r.profile);
  const head = !report.revisions.some((r) => r.served)
    ? 'Nothing was judged: doctor could not connect under any profile.'
    : stopped.length > 0
      ? `Incomplete: the check stopped under ${stopped.join(', ')} (why is beside each profile above), so what it did not reach there was not judged. Coverage: ${reached}.`
      : report.findings.length === 0
        ? green(`No findings in what was reached: ${reached}.`)
        : `Coverage: ${reached}.`;
  return `${head}${untried}${walk}${silent}${notCalled}${spared}`;
}
