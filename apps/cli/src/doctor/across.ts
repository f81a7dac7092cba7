import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { answered, succeeded } from './classify.js';
import { ambiguity, type DoctorNote, type FindingSet } from './findings.js';
import { canElicit, type Profile } from './profiles.js';
import type { CallRecord, DoctorRun } from './records.js';

const FALLBACK_FIX = 'Without the capability, return a result naming the missing arguments and their allowed values.';

/**
 * The statuses of an error result that say the call stopped cleanly for want of what it could not
 * ask: `unsupported` (the kit's, for a client that cannot elicit), `rejected` (the request refused
 * as given, saying why) and `pending` (left for someone to finish elsewhere).
 */
const FALLBACK_STATUSES = new Set(['unsupported', 'rejected', 'pending']);

/**
 * The rules that compare calls: EK13 (fails without the capability where it works with it) and
 * EK16 (asks on one revision, acts without asking on another). Returns the notes: tools that
 * timed out under every profile, which is slowness, not an elicitation fault.
 */
export function judgeAcross(found: FindingSet, run: DoctorRun, profiles: ReadonlyMap<string, Profile>): DoctorNote[] {
  const notes: DoctorNote[] = [];
  const groups = new Map<string, CallRecord[]>();
  for (const call of run.calls) {
    if (call.outcome.kind === 'skipped') continue;
    const key = `${call.tool}\u0000${call.case}`;
    groups.set(key, [...(groups.get(key) ?? []), call]);
  }
  for (const calls of groups.values()) {
    const first = calls[0] as CallRecord;
    if (calls.every((c) => c.outcome.kind === 'timeout')) {
      const profilesSeen = [...new Set(calls.map((c) => c.profile))];
      notes.push({
        tool: first.tool,
        case: first.case,
        message: `timed out under every profile that called it (${profilesSeen.length}), asking nothing: slow, not an elicitation fault. Raise --timeout-ms to see what it does.`,
      });
      continue;
    }
    for (const call of calls) {
      const profile = profiles.get(call.profile);
      if (profile && !canElicit(profile)) withoutCapability(found, call, profile, calls, profiles);
    }
    acrossRevisions(found, calls, profiles);
    const hung = hungOnOneRevision(calls, profiles);
    if (hung) notes.push({ tool: first.tool, case: first.case, message: hung });
  }
  return notes;
}

/**
 * A call that timed out under a client that can be asked, while the same call (same answers, a
 * client declaring the same modes) answered in time on another revision: no rule names it — it
 * asked nothing doctor could answer — but clients of that revision wait on it until they give up
 * (a tool that waits for a pushed answer a 2026-07-28 client can never send, say). Said once per
 * tool and case, naming the revisions; undefined when there is none.
 */
function hungOnOneRevision(calls: CallRecord[], profiles: ReadonlyMap<string, Profile>): string | undefined {
  const hung = new Map<string, { ms: number; answered: CallRecord }>();
  for (const call of calls) {
    const p = profiles.get(call.profile);
    if (call.outcome.kind !== 'timeout' || !p || !canElicit(p)) continue;
    const peer = calls.find((c) => {
      const q = profiles.get(c.profile);
      return (
        q !== undefined &&
        q.revision !== p.revision &&
        q.modes.form === p.modes.form &&
        q.modes.url === p.modes.url &&
        c.strategy === call.strategy &&
        pathOf(c) === pathOf(call) &&
        answered(c.outcome)
      );
    });
    if (peer && !hung.has(call.profile)) hung.set(call.profile, { ms: call.outcome.afterMs, answered: peer });
  }
  if (hung.size === 0) return undefined;
  const [[profile, first]] = [...hung] as [[string, { ms: number; answered: CallRecord }]];
  const others = hung.size > 1 ? ` (and under ${[...hung.keys()].slice(1).join(', ')})` : '';
  return `hung under ${profile}${others}: no answer in ${first.ms} ms, while ${first.answered.profile} answered the same call in ${first.answered.ms} ms. Clients of that revision wait until they give up: on 2026-07-28 a question is returned (input_required), never waited for.`;
}

/** EK13: judged only against the same call under eliciting profiles, of the same revision when there are any. */
function withoutCapability(
  found: FindingSet,
  call: CallRecord,
  profile: Profile,
  calls: CallRecord[],
  profiles: ReadonlyMap<string, Profile>,
): void {
  // The same call: the answering strategies' calls, not the walk's, whose answers differ on purpose.
  const eliciting = calls.filter((c) => {
    const p = profiles.get(c.profile);
    return p !== undefined && canElicit(p) && c.strategy !== 'explore';
  });
  const sameRevision = eliciting.filter((c) => profiles.get(c.profile)?.revision === profile.revision);
  const peers = sameRevision.length > 0 ? sameRevision : eliciting;
  const inTime = peers.find((c) => answered(c.outcome));
  if (!inTime) return;
  const there = `${inTime.profile} answered in ${inTime.ms} ms`;
  const o = call.outcome;
  switch (o.kind) {
    case 'timeout':
      found.add(call, {
        rule: 'EK13',
        message: `hung when the client cannot elicit (${call.profile}): no answer in ${o.afterMs} ms, while ${there}`,
        fix: 'Check the capability before asking; never wait for an answer that cannot come.',
      });
      return;
    case 'failed':
      found.add(call, {
        rule: 'EK13',
        message: `the call failed when the client cannot elicit (${call.profile}: ${o.sdkCode}), while ${there}`,
        fix: FALLBACK_FIX,
      });
      return;
    case 'error': {
      // -32042 carries URL questions: EK01 judges those.
      if (o.code === ProtocolErrorCode.UrlElicitationRequired) return;
      // Failing alike where the client can elicit is no fallback fault: the call fails for every
      // client (a sample argument the tool refuses), whatever it can do.
      const otherwise = peers.find((c) => answered(c.outcome) && !sameError(c.outcome, o.code));
      if (!otherwise) return;
      const elsewhere = `${otherwise.profile} answered in ${otherwise.ms} ms`;
      found.add(call, {
        rule: 'EK13',
        message:
          o.code === ProtocolErrorCode.MissingRequiredClientCapability
            ? `answered JSON-RPC error ${o.code} (missing client capability) when the client cannot elicit (${call.profile}), as the protocol allows, but the caller learns nothing about what is missing`
            : `failed with JSON-RPC error ${o.code} when the client cannot elicit (${call.profile}), while ${elsewhere}`,
        fix: FALLBACK_FIX,
        ...(o.code === ProtocolErrorCode.MissingRequiredClientCapability ? { severity: 'warning' as const } : {}),
      });
      return;
    }
    case 'result': {
      // A status that says the call stopped for want of what it could not ask is the fallback;
      // any other status on an error result (`failed`, or a decline no one made) says it failed.
      if (!o.isError || (o.status !== undefined && FALLBACK_STATUSES.has(o.status))) return;
      const worked = peers.find((c) => succeeded(c.outcome).done);
      if (!worked) return;
      if (o.status !== undefined) {
        found.add(call, {
          rule: 'EK13',
          message: `returned an error result with status "${o.status}" when the client cannot elicit (${call.profile}), while under ${worked.profile} the same call succeeded`,
          fix: `${FALLBACK_FIX} Mark it with structuredContent.status "unsupported".`,
        });
        return;
      }
      found.add(call, {
        rule: 'EK13',
        message: `returned an error result when the client cannot elicit (${call.profile}), while under ${worked.profile} the same call succeeded (judged by isError alone: no structuredContent.status tells a clear fallback from a failure)`,
        fix: `${FALLBACK_FIX} Mark it with structuredContent.status "unsupported" so clients can tell.`,
        ...ambiguity(true),
      });
      return;
    }
    case 'skipped':
      return;
  }
}

/** EK16: the same case and answers, the same declared modes, different revisions: asked on one, acted on the other. */
function acrossRevisions(found: FindingSet, calls: CallRecord[], profiles: ReadonlyMap<string, Profile>): void {
  for (const asking of calls) {
    if (asking.asks.length === 0) continue;
    const pa = profiles.get(asking.profile);
    if (!pa) continue;
    for (const silent of calls) {
      const pb = profiles.get(silent.profile);
      if (!pb || pb.revision === pa.revision || silent.strategy !== asking.strategy) continue;
      if (pathOf(silent) !== pathOf(asking)) continue;
      if (pb.modes.form !== pa.modes.form || pb.modes.url !== pa.modes.url || !canElicit(pb)) continue;
      if (silent.asks.length > 0) continue;
      const result = succeeded(silent.outcome);
      if (!result.done) continue;
      found.add(silent, {
        rule: 'EK16',
        message: `asked on ${pa.revision} but acted without asking on ${pb.revision}, the client declaring the same modes${result.ambiguous ? ` (success judged by isError alone: ${result.reason})` : ''}`,
        fix: 'Ask on every revision: on 2026-07-28 return an input_required result (inputRequired) where 2025 clients get elicitation/create; never act because asking failed.',
        ...(result.ambiguous ? { ambiguous: true } : {}),
        transcripts: [asking, silent],
      });
    }
  }
}

/** An exploring call's path, comparable across profiles ('' for the answering strategies' calls). */
function pathOf(call: CallRecord): string {
  return JSON.stringify(call.path ?? []);
}

/** Whether `outcome` is the JSON-RPC error `code`. */
function sameError(outcome: CallRecord['outcome'], code: number): boolean {
  return outcome.kind === 'error' && outcome.code === code;
}
