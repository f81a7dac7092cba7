import type { Tool } from '@modelcontextprotocol/client';
import { answerFor } from './answer.js';
import { type CallOutcome, fromError, fromResult, type SkipReason } from './classify.js';
import { type Connection, isAlive, openConnection } from './connection.js';
import type { Endpoint } from './endpoint.js';
import type { FixtureCase, Fixtures } from './fixtures.js';
import { accepts, PROFILES, type Profile, type Strategy, strategiesFor } from './profiles.js';
import type { Ask, CallRecord, DoctorRun, ProfileRecord, ToolInfo } from './records.js';
import { isDestructive } from './safety.js';
import type { RawAsk } from './tap.js';
import { freshTag, sampleArguments } from './values.js';

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
 * each answering strategy. A timed-out call is cancelled; if the server then stops answering the
 * connection is opened again, and the run goes on with the next call.
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
  };
}

/** One profile's part of a run; `listed` is its tool listing, in the server's order. */
interface ProfileResult {
  profile: ProfileRecord;
  calls: CallRecord[];
  listed: string[];
}

async function runProfile(shared: Shared, profile: Profile): Promise<ProfileResult> {
  const { options } = shared;
  const timeoutMs = options.callTimeoutMs ?? 10_000;
  const record: ProfileRecord = { profile, served: false, reconnects: 0, stray: 0 };
  const calls: CallRecord[] = [];
  const listed: string[] = [];
  let current: { call: CallRecord; tag: string; rounds: number } | undefined;
  const hooks = {
    onAsks(asks: RawAsk[]) {
      if (!current) return;
      const round = ++current.rounds;
      current.call.asks.push(...asks.map((a) => ({ ...a, round })));
    },
    answer(params: Record<string, unknown>) {
      if (!current) {
        record.stray++;
        return { action: 'cancel' as const };
      }
      const { call, tag } = current;
      const ask = pairAsk(call.asks, params);
      const answered = call.asks.filter((a) => a.answer).length;
      const answer = answerFor(call.strategy, params, {
        tag,
        overCap: answered >= (options.maxAsks ?? 5),
        allowDestructive: shared.allowDestructive,
      });
      if (ask) ask.answer = answer;
      return answer.content === undefined
        ? { action: answer.action }
        : { action: answer.action, content: answer.content };
    },
  };

  let conn: Connection | undefined;
  try {
    conn = await openConnection(shared.endpoint, profile, hooks);
  } catch (error) {
    record.error = messageOf(error);
    return { profile: record, calls, listed };
  }
  record.served = true;
  if (conn.negotiated) record.negotiated = conn.negotiated;
  try {
    const info = conn.client.getServerVersion();
    if (info && !shared.server) shared.server = { name: info.name, version: info.version };
    const { tools } = await conn.client.listTools({}, { timeout: timeoutMs });
    listed.push(...tools.map((t) => t.name));
    for (const tool of tools) {
      const info = noteTool(shared, tool, profile);
      if (info.filtered) continue;
      for (const fixture of casesFor(shared, tool)) {
        let first: CallRecord | undefined;
        for (const strategy of strategiesFor(profile)) {
          const call: CallRecord = {
            tool: tool.name,
            case: fixture.label,
            profile: profile.id,
            strategy,
            arguments: fixture.arguments,
            asks: [],
            outcome: { kind: 'skipped', reason: 'no-question' },
            ms: 0,
          };
          calls.push(call);
          const skip = skipReason(shared, info, fixture, strategy, first, conn);
          if (skip) {
            call.outcome = { kind: 'skipped', reason: skip };
            continue;
          }
          const live: Connection = conn as Connection;
          current = { call, tag: freshTag(), rounds: 0 };
          const started = performance.now();
          const attempt = async () => {
            if (fixture.prepare) shared.endpoint.prepare?.(fixture.prepare, `call ${++shared.stamps}`);
            return callOnce(live, tool.name, fixture.arguments, timeoutMs);
          };
          call.outcome = await (fixture.prepare ? shared.exclusive(attempt) : attempt());
          call.ms = Math.round(performance.now() - started);
          current = undefined;
          shared.options.onCall?.(call);
          first ??= call;
          if (call.outcome.kind === 'timeout' || call.outcome.kind === 'failed') {
            conn = await keepAlive(shared, profile, hooks, live, record, Math.min(timeoutMs, 5_000));
          }
        }
      }
    }
  } catch (error) {
    record.error = messageOf(error);
  } finally {
    await conn?.close();
  }
  return { profile: record, calls, listed };
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
  hooks: Parameters<typeof openConnection>[2],
  conn: Connection,
  record: ProfileRecord,
  probeMs: number,
): Promise<Connection | undefined> {
  if (await isAlive(conn, probeMs)) return conn;
  await conn.close();
  try {
    const fresh = await openConnection(shared.endpoint, profile, hooks);
    record.reconnects++;
    return fresh;
  } catch (error) {
    record.error = `the connection died and could not be opened again: ${messageOf(error)}`;
    return undefined;
  }
}

async function callOnce(
  conn: Connection,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<CallOutcome> {
  const started = performance.now();
  try {
    // The SDK cancels a call past its timeout (notifications/cancelled, or aborting the request).
    const result = await conn.client.callTool(
      { name, arguments: args },
      { timeout: timeoutMs, maxTotalTimeout: timeoutMs },
    );
    return fromResult(result);
  } catch (error) {
    return fromError(error, Math.round(performance.now() - started));
  }
}

/** Records a listed tool once for the run, and which profiles listed it. */
function noteTool(shared: Shared, tool: Tool, profile: Profile): ToolInfo {
  let info = shared.tools.get(tool.name);
  if (!info) {
    const { only, skip } = shared.options;
    info = {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      destructive: isDestructive(tool),
      listedBy: [],
      filtered: (only !== undefined && !only.includes(tool.name)) || (skip?.includes(tool.name) ?? false),
    };
    shared.tools.set(tool.name, info);
  }
  info.listedBy.push(profile.id);
  return info;
}

function casesFor(shared: Shared, tool: Tool): readonly FixtureCase[] {
  const given = shared.options.fixtures?.get(tool.name);
  if (given) return given;
  const args = sampleArguments(tool.inputSchema);
  return [{ label: JSON.stringify(args), arguments: args }];
}

/** The recorded ask a request handed to doctor belongs to: the first unanswered one with its message. */
function pairAsk(asks: Ask[], params: Record<string, unknown>): Ask | undefined {
  const open = asks.filter((a) => !a.answer);
  return open.find((a) => a.params.message === params.message) ?? open[0];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
