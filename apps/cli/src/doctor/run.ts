import { listToolsSafely } from '@elicitkit/client';
import type { ElicitResult, RequestId, Tool } from '@modelcontextprotocol/client';
import { duplicateText } from '../duplicate-names.js';
import { answerFor, MAX_ASKS, MAX_OUTSIDE, RUNAWAY_ASKS } from './answer.js';
import { modeOf, questionKey } from './branches.js';
import { callOnce, casesFor, messageOf, newCall, noteTool, pairAsk } from './calls.js';
import { answered, type SkipReason } from './classify.js';
import { ConnectFailure, type Connection, type ConnectionHooks, isAlive, openConnection } from './connection.js';
import { droppedBySdk } from './dropped.js';
import type { Endpoint } from './endpoint.js';
import { EXPLORE_DEFAULTS, type ExploreLimits, explore, type LeftBranch, type Step } from './explore.js';
import type { FixtureCase, Fixtures } from './fixtures.js';
import { askFindings, givenBefore } from './judge.js';
import { keptOf } from './kept.js';
import { accepts, PROFILES, type Profile, type Strategy, strategiesFor } from './profiles.js';
import type { Ask, CallRecord, DoctorRun, OutsideCalls, ProfileRecord, ToolInfo } from './records.js';
import { keepsRound, resendChanged } from './resend.js';
import type { RawAsk, SentAnswer } from './tap.js';
import { freshTag } from './values.js';

export type { Ask, CallRecord, DoctorRun, ProfileRecord, ToolInfo } from './records.js';

export interface DoctorOptions {
  /** Cases per tool; tools not listed get arguments built from their input schema. */
  fixtures?: Fixtures;
  /** Per call, whatever the server does; a call past it is cancelled. Default 10 s. */
  callTimeoutMs?: number;
  /** Questions doctor answers in one call before it cancels the rest. Default 5. */
  maxAsks?: number;
  /** Profiles run at once (each its own connection; a process for stdio targets). Default 2. */
  concurrency?: number;
  profiles?: readonly Profile[];
  /** Only these tools (`--tools`). */
  only?: readonly string[];
  /** Not these tools (`--skip`). */
  skip?: readonly string[];
  /** Accept the questions of destructive tools and confirmations too. */
  allowDestructive?: boolean;
  /**
   * The tree walk over answers (`--depth`, `--budget`): how many questions deep answers are varied,
   * and how many exploring calls each tool gets under each profile. Default `EXPLORE_DEFAULTS`.
   */
  explore?: Partial<ExploreLimits>;
  /** Told after each call made (not the skipped ones): for a progress line. */
  onCall?: (call: Pick<CallRecord, 'tool' | 'profile' | 'strategy'>) => void;
}

/** What every profile of one run shares. */
interface Shared {
  endpoint: Endpoint;
  options: DoctorOptions;
  allowDestructive: boolean;
  tools: Map<string, ToolInfo>;
  server?: { name: string; version: string };
  /** Calls whose case prepares the data run one at a time, so preparations never interleave. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  stamps: number;
}

/**
 * Plays every client profile against the endpoint, calling each tool with each fixture case and
 * each answering strategy, then walking the tree of answers that lead on (`explore`). A timed-out
 * call is cancelled; if the server then stops answering the connection is opened again, and the
 * run goes on with the next call.
 *
 * @example
 * const run = await runDoctor(endpointFor(target), { callTimeoutMs: 2_000 });
 */
export async function runDoctor(endpoint: Endpoint, options: DoctorOptions = {}): Promise<DoctorRun> {
  let lock: Promise<unknown> = Promise.resolve();
  const shared: Shared = {
    endpoint,
    options,
    allowDestructive: options.allowDestructive === true || endpoint.throwAway,
    tools: new Map(),
    exclusive: (fn) => {
      const next = lock.then(fn, fn);
      lock = next.catch(() => {});
      return next;
    },
    stamps: 0,
  };
  const queue = [...(options.profiles ?? PROFILES)];
  const results: ProfileResult[] = new Array(queue.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const profile = queue[index];
      if (!profile) return;
      results[index] = await runProfile(shared, profile);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
  // Profiles run at once: order tools and their listings by profile, not by who answered first.
  const order = queue.map((p) => p.id);
  const names = [...new Set(results.flatMap((r) => r.listed))];
  const tools = [...shared.tools.values()].sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
  for (const t of tools) t.listedBy.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return {
    target: endpoint.label,
    throwAway: endpoint.throwAway,
    allowDestructive: shared.allowDestructive,
    ...(shared.server ? { server: shared.server } : {}),
    tools,
    profiles: results.map((r) => r.profile),
    calls: results.flatMap((r) => r.calls),
    exploration: { ...EXPLORE_DEFAULTS, ...options.explore, left: results.flatMap((r) => r.left) },
  };
}

/** One profile's part of a run; `listed` is its tool listing, in the server's order; `left`, the branches it did not try. */
interface ProfileResult {
  profile: ProfileRecord;
  calls: CallRecord[];
  listed: string[];
  left: LeftBranch[];
}

async function runProfile(shared: Shared, profile: Profile): Promise<ProfileResult> {
  const { options } = shared;
  const timeoutMs = options.callTimeoutMs ?? 10_000;
  const record: ProfileRecord = {
    profile,
    served: false,
    reconnects: 0,
    outside: { came: 0, cancelled: 0, asks: [] },
  };
  const calls: CallRecord[] = [];
  const listed: string[] = [];
  const left: LeftBranch[] = [];
  let current: Running | undefined;
  /**
   * Whom each pushed question was asked of, by its JSON-RPC id, as it came: the call under way
   * then, or none (outside any call). Its answer goes there, whatever runs by the time the SDK
   * hands it to doctor; the entry goes when the response to it leaves.
   */
  const owners = new Map<RequestId, Running | undefined>();
  /** Tools as listed, when the SDK cached no list: each call hands the SDK its tool's definition. */
  const unlisted = new Map<string, Tool>();
  /** `ask` as the call keeps it: a stand-in when it is too big, judged now in the words given before it. */
  const keep = (call: CallRecord, ask: Ask): Ask => {
    const kept = keptOf(ask, (whole) => askFindings(whole, givenBefore(call, whole), profile));
    if (kept.request === undefined || keepsRound(call.asks, kept)) return kept;
    const { request: _, ...rest } = kept;
    return rest;
  };
  const hooks: ConnectionHooks = {
    onAsks(asks: RawAsk[]) {
      const running = current;
      for (const a of asks) if (a.via === 'push' && a.id !== undefined) owners.set(a.id, running);
      if (!running) {
        keepOutside(record.outside, asks, profile);
        return;
      }
      // A round sent again for EK18 is not the call: its questions go to that resend alone.
      if (running.resending) {
        running.resending.push(...asks);
        return;
      }
      // Past the runaway cap the call is stopped (a client without the capability answers the
      // server's questions without doctor: they are counted here), and what else it asks is not kept.
      const { call } = running;
      const after = running.sent;
      const room = RUNAWAY_ASKS - call.asks.length;
      for (const a of asks.slice(0, Math.max(0, room))) call.asks.push(keep(call, { ...a, after }));
      if (asks.length > room) running.stop.abort(runaway());
    },
    onSent(sent: SentAnswer) {
      const owned = 'id' in sent && owners.has(sent.id);
      const running = owned ? owners.get(sent.id) : current;
      if (owned) owners.delete(sent.id);
      if (!running || running.resending) return;
      for (const ask of running.call.asks) {
        if (!ask.answer || ask.sent !== undefined) continue;
        const carries =
          'id' in sent
            ? ask.via === 'push' && ask.id === sent.id
            : ask.via === 'embedded' && ask.key !== undefined && sent.keys.includes(ask.key);
        if (carries) ask.sent = ++running.sent;
      }
    },
    answer(params: Record<string, unknown>, id: RequestId) {
      const running = owners.has(id) ? owners.get(id) : current;
      if (!running) return cancelOutside(record.outside, id);
      const { call, tag } = running;
      const position = ++running.answers;
      if (position > RUNAWAY_ASKS) {
        running.stop.abort(runaway());
        return { action: 'cancel' as const };
      }
      const ask = pairAsk(call.asks, params, id);
      // A replay that meets another question than its path expects has gone another way: from
      // there on doctor answers as accept-defaults would, and the walk says the branch was not reached.
      // The question as kept is what the path was made of (a stand-in's key is its own).
      const step = running.path?.[position - 1];
      if (step && step.key !== questionKey(ask ?? { mode: modeOf(params), params })) running.diverged = true;
      const answer = answerFor(call.strategy, params, {
        tag,
        overCap: position > (options.maxAsks ?? MAX_ASKS),
        allowDestructive: shared.allowDestructive,
        branch: running.diverged ? undefined : step?.branch,
      });
      if (ask) {
        ask.answer = answer;
        ask.position = position;
      }
      return answer.content === undefined
        ? { action: answer.action }
        : { action: answer.action, content: answer.content };
    },
  };

  let conn: Connection | undefined;
  try {
    conn = await openConnection(shared.endpoint, profile, hooks, timeoutMs);
  } catch (error) {
    record.error = messageOf(error);
    if (error instanceof ConnectFailure) {
      if (error.lastWords !== '') record.lastWords = error.lastWords;
      record.refused = error.refused;
    }
    return { profile: record, calls, listed, left };
  }
  record.served = true;
  if (conn.negotiated) record.negotiated = conn.negotiated;

  /**
   * One 2026-07-28 round of the call under way sent again as it was (EK18), its result handed back
   * rather than answered: the questions it brought, as they came.
   */
  const sendAgain = async (live: Connection, request: Record<string, unknown>, ms: number): Promise<RawAsk[]> => {
    const running = current;
    if (!running) return [];
    running.resending = [];
    try {
      await live.client.request({ method: 'tools/call', params: request }, { allowInputRequired: true, timeout: ms });
    } catch {
      // A result the SDK refuses, an error or a timeout: whatever questions came are still read.
    }
    const brought = running.resending;
    running.resending = undefined;
    return brought;
  };

  /** Makes one call on the live connection and records how it went. */
  const perform = async (call: CallRecord, fixture: FixtureCase) => {
    const live = conn as Connection;
    const stop = new AbortController();
    current = {
      call,
      tag: freshTag(),
      sent: 0,
      answers: 0,
      diverged: false,
      stop,
      resending: undefined,
      ...(call.path ? { path: call.path } : {}),
    };
    const attempt = async () => {
      if (fixture.prepare) shared.endpoint.prepare?.(fixture.prepare, `call ${++shared.stamps}`);
      const started = performance.now();
      call.outcome = await callOnce(
        live,
        call.tool,
        fixture.arguments,
        timeoutMs,
        stop.signal,
        unlisted.get(call.tool),
      );
      call.ms = Math.round(performance.now() - started);
      // On the same prepared data, before another call: a round sent again must meet what the call met.
      if (answered(call.outcome)) await resendChanged(call, (request) => sendAgain(live, request, timeoutMs));
      // Its rounds are sent again only now: the server's requestState in them is let go.
      for (const ask of call.asks) delete ask.request;
    };
    await (fixture.prepare ? shared.exclusive(attempt) : attempt());
    current = undefined;
    // What the server sent along with the result (a handler that asks without awaiting the answer,
    // and returns) comes before the barrier's answer: while no call runs, not in the next one.
    // After a timeout or a failure, whether it still answers is that barrier.
    if (call.outcome.kind === 'timeout' || call.outcome.kind === 'failed') {
      conn = await keepAlive(shared, profile, hooks, live, record, Math.min(timeoutMs, 5_000));
    } else await live.barrier();
    options.onCall?.(call);
  };
  const limits = { ...EXPLORE_DEFAULTS, ...options.explore };

  try {
    const info = conn.client.getServerVersion();
    if (info && !shared.server) shared.server = { name: info.name, version: info.version };
    const { tools, skipped, fallback, refusal, duplicates } = await listToolsSafely(conn.client, {
      timeout: timeoutMs,
    });
    if (fallback) {
      // Every client on the SDK fails to list this server's tools; the check goes on with the tools
      // read one by one, and the profile counts as stopped: it was not judged as a client sees it.
      for (const tool of tools) unlisted.set(tool.name, tool);
      const left = skipped.map((name) => JSON.stringify(name)).join(', ');
      const kind = skipped.length === 1 ? 'not a tool as MCP defines one' : 'not tools as MCP defines them';
      record.error = `the SDK's client refuses this server's tool list whole (${refusal}), so clients built on it list none of its tools; ${
        skipped.length > 0 ? `${left} left out (${kind}), ` : ''
      }the others were read one by one and checked`;
    }
    // Tools the SDK's client drops from the list, read as the server sent it: not checked, and so
    // not a clean pass (as with the SDK's refusal above). A list read tool by tool has none.
    const dropped = fallback ? [] : await droppedBySdk(conn.client, tools, timeoutMs);
    if (dropped.length > 0) {
      const names = dropped.map((name) => JSON.stringify(name)).join(', ');
      const fault = `the server lists ${names}, which the SDK's client leaves out of its tool list (as it must leave out a tool whose x-mcp-header declarations are invalid, on 2026-07-28 over HTTP), so clients built on it cannot call ${dropped.length === 1 ? 'it' : 'them'}; not checked`;
      record.error = record.error === undefined ? fault : `${record.error}; ${fault}`;
    }
    if (duplicates.length > 0) {
      // A protocol fault no rule names: reported as the SDK's refusal is, the profile not passed.
      const faults = duplicates.map((d) => duplicateText(d)).join('; ');
      record.error = record.error === undefined ? faults : `${record.error}; ${faults}`;
    }
    listed.push(...new Set(tools.map((t) => t.name)));
    const called = new Set<string>();
    for (const tool of tools) {
      // A name listed twice is checked once, as its first definition: a call cannot pick the other.
      if (called.has(tool.name)) continue;
      called.add(tool.name);
      const info = noteTool(shared.tools, tool, profile, options);
      if (info.filtered) continue;
      const bases: { fixture: FixtureCase; call: CallRecord }[] = [];
      for (const fixture of casesFor(options.fixtures, tool)) {
        let first: CallRecord | undefined;
        for (const strategy of strategiesFor(profile)) {
          const call = newCall(tool.name, fixture, profile, strategy);
          calls.push(call);
          const skip = skipReason(shared, info, fixture, strategy, first, conn);
          if (skip) {
            call.outcome = { kind: 'skipped', reason: skip };
            continue;
          }
          await perform(call, fixture);
          first ??= call;
          // The walk starts where accept-defaults was asked something and heard back in time.
          if (strategy === 'accept-defaults' && call.asks.length > 0 && answered(call.outcome))
            bases.push({ fixture, call });
        }
      }
      if (bases.length === 0) continue;
      const where = { tool: tool.name, profile: profile.id };
      const earlier = calls.filter((c) => c.tool === tool.name);
      const walked = await explore(
        where,
        bases,
        limits,
        async (fixture, path) => {
          if (!conn) return undefined;
          const call = newCall(tool.name, fixture, profile, 'explore', path);
          calls.push(call);
          await perform(call, fixture);
          return call;
        },
        earlier,
      );
      left.push(...walked);
    }
  } catch (error) {
    record.error = messageOf(error);
  } finally {
    await conn?.close();
  }
  return { profile: record, calls, listed, left };
}

/** The call under way on a profile's connection: what its answers go to, and the path it replays. */
interface Running {
  call: CallRecord;
  tag: string;
  /** Doctor's answers in the call that have gone out so far. */
  sent: number;
  /** Answers given so far: the next one's place on the path. */
  answers: number;
  path?: Step[];
  diverged: boolean;
  /** Aborts the call when it asks past `RUNAWAY_ASKS`. */
  stop: AbortController;
  /** Set while a round of the call is sent again (EK18): the questions that resend brought. */
  resending: RawAsk[] | undefined;
}

/** The reason not to make this call, or undefined to make it. */
function skipReason(
  shared: Shared,
  tool: ToolInfo,
  fixture: FixtureCase,
  strategy: Strategy,
  first: CallRecord | undefined,
  conn: Connection | undefined,
): SkipReason | undefined {
  if (fixture.prepare && !shared.endpoint.prepare) return 'needs-own-server';
  if (tool.destructive && !shared.allowDestructive && accepts(strategy)) return 'destructive';
  if (!conn) return 'connection-lost';
  // Answers only matter when there is a question: a call that asked nothing would go the same way.
  if (first && first.asks.length === 0) return 'no-question';
  return undefined;
}

/** After a timeout or a failure: the same connection if it still answers, else a new one, else none. */
async function keepAlive(
  shared: Shared,
  profile: Profile,
  hooks: ConnectionHooks,
  conn: Connection,
  record: ProfileRecord,
  probeMs: number,
): Promise<Connection | undefined> {
  if (await isAlive(conn, probeMs)) return conn;
  await conn.close();
  try {
    const fresh = await openConnection(shared.endpoint, profile, hooks, probeMs);
    record.reconnects++;
    return fresh;
  } catch (error) {
    record.error = `the connection died and could not be opened again: ${messageOf(error)}`;
    return undefined;
  }
}

/**
 * Questions pushed while no call was running (the protocol allows a server to ask outside any
 * request: over HTTP on its own stream): counted, and the first `MAX_OUTSIDE` kept, judged as
 * questions alone. A late round of a call doctor stopped waiting for asks no one, and is let go.
 */
function keepOutside(outside: OutsideCalls, asks: readonly RawAsk[], profile: Profile): void {
  for (const a of asks) {
    if (a.via !== 'push') continue;
    outside.came++;
    if (outside.asks.length < MAX_OUTSIDE)
      outside.asks.push(keptOf({ ...a, after: 0 }, (whole) => askFindings(whole, [], profile)));
  }
}

/** Doctor's answer to a question outside any call: cancel, as nothing was asked for; noted on the question kept. */
function cancelOutside(outside: OutsideCalls, id: RequestId): ElicitResult {
  outside.cancelled++;
  const ask = outside.asks.findLast((a) => a.id === id && !a.answer);
  if (ask) ask.answer = { action: 'cancel', why: 'outside' };
  return { action: 'cancel' };
}

function runaway(): string {
  return `asked more than ${RUNAWAY_ASKS} questions in one call; doctor stopped it`;
}
