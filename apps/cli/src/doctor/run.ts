import { revisionOptions } from '@elicitkit/client';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { connectTo, type Target, transportFor } from '../target.js';
import { PROFILES, type Profile, type Strategy, strategiesFor } from './profiles.js';
import { type RawAsk, tap } from './tap.js';
import { sampleArguments, sampleContent } from './values.js';

/** What one tool call ended in, as doctor observed it (a question's outcome is the server's business). */
export type CallOutcome =
  | { kind: 'result'; isError: boolean; status?: string; text: string }
  | { kind: 'error'; message: string; code?: number }
  | { kind: 'timeout' }
  | { kind: 'skipped'; reason: string };

/** One tool call under one client profile and one answering strategy. */
export interface CallRecord {
  tool: string;
  profile: string;
  strategy: Strategy;
  /** What the server asked, raw from the wire, in order. */
  asks: RawAsk[];
  /** What doctor answered each ask it was handed. */
  answers: string[];
  outcome: CallOutcome;
  ms: number;
}

export interface ProfileRecord {
  profile: Profile;
  /** False when the server would not speak this revision (e.g. no 2026-07-28 support). */
  served: boolean;
  negotiated?: string;
  error?: string;
}

export interface DoctorRun {
  target: string;
  server?: { name: string; version: string };
  tools: Pick<Tool, 'name' | 'description' | 'inputSchema'>[];
  profiles: ProfileRecord[];
  calls: CallRecord[];
}

export interface DoctorOptions {
  /** Arguments per tool; tools not listed get arguments built from their input schema. */
  fixtures?: Record<string, Record<string, unknown>>;
  /** Per call, whatever the server does. Default 10 s. */
  callTimeoutMs?: number;
  /** Questions doctor answers in one call before it cancels the rest. Default 5. */
  maxAsks?: number;
  /** Profiles run at once (each is its own connection, a process for stdio targets). Default 2. */
  concurrency?: number;
  profiles?: readonly Profile[];
}

/** Plays every client profile against the target, calling every tool with every answering strategy. */
export async function runDoctor(target: Target, options: DoctorOptions = {}): Promise<DoctorRun> {
  const run: DoctorRun = { target: target.label, tools: [], profiles: [], calls: [] };
  const queue = [...(options.profiles ?? PROFILES)];
  const results: { profile: ProfileRecord; calls: CallRecord[] }[] = new Array(queue.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const profile = queue[index];
      if (!profile) return;
      results[index] = await runProfile(target, profile, options, run);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
  for (const r of results) {
    run.profiles.push(r.profile);
    run.calls.push(...r.calls);
  }
  return run;
}

async function runProfile(
  target: Target,
  profile: Profile,
  options: DoctorOptions,
  run: DoctorRun,
): Promise<{ profile: ProfileRecord; calls: CallRecord[] }> {
  const timeoutMs = options.callTimeoutMs ?? 10_000;
  const maxAsks = options.maxAsks ?? 5;
  const calls: CallRecord[] = [];
  let current: CallRecord | undefined;
  const client = new Client(
    { name: 'elicitkit-doctor', version: '0.1.0' },
    {
      capabilities: profile.capabilities,
      ...revisionOptions(profile.revision),
    },
  );
  if (profile.modes.form || profile.modes.url) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const call = current;
      const params = request.params as unknown as Record<string, unknown>;
      const answer = answerFor(call?.strategy ?? 'cancel', params, (call?.answers.length ?? 0) >= maxAsks);
      call?.answers.push(answer.action);
      return answer as never;
    });
  }
  const transport = tap(transportFor(target), (ask) => current?.asks.push(ask));
  try {
    await connectTo(client, target, transport);
  } catch (error) {
    return {
      profile: { profile, served: false, error: error instanceof Error ? error.message : String(error) },
      calls,
    };
  }
  const record: ProfileRecord = { profile, served: true };
  const negotiated = client.getNegotiatedProtocolVersion?.();
  if (negotiated) record.negotiated = negotiated;
  try {
    const info = client.getServerVersion();
    if (info && !run.server) run.server = { name: info.name, version: info.version };
    const { tools } = await client.listTools({}, { timeout: timeoutMs });
    if (run.tools.length === 0)
      run.tools = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    let timeouts = 0;
    for (const tool of tools) {
      for (const strategy of strategiesFor(profile)) {
        const call: CallRecord = {
          tool: tool.name,
          profile: profile.id,
          strategy,
          asks: [],
          answers: [],
          outcome: { kind: 'skipped', reason: '' },
          ms: 0,
        };
        calls.push(call);
        if (timeouts >= 2) {
          // A server that stopped answering would make every remaining call wait out its limit.
          call.outcome = { kind: 'skipped', reason: 'the server stopped answering on this connection' };
          continue;
        }
        current = call;
        const started = performance.now();
        call.outcome = await callOnce(
          client,
          tool.name,
          options.fixtures?.[tool.name] ?? sampleArguments(tool.inputSchema),
          timeoutMs,
        );
        call.ms = Math.round(performance.now() - started);
        current = undefined;
        timeouts = call.outcome.kind === 'timeout' ? timeouts + 1 : 0;
      }
    }
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
  } finally {
    await client.close().catch(() => {});
  }
  return { profile: record, calls };
}

async function callOnce(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<CallOutcome> {
  try {
    const result = await client.callTool(
      { name, arguments: args },
      { timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) },
    );
    const text = ((result.content ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? '').join('\n');
    const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
    return {
      kind: 'result',
      isError: result.isError === true,
      text,
      ...(typeof status === 'string' ? { status } : {}),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/timed? ?out|timeout|aborted/i.test(message) || (error as { name?: string }).name === 'TimeoutError')
      return { kind: 'timeout' };
    const code = (error as { code?: unknown }).code;
    return { kind: 'error', message, ...(typeof code === 'number' ? { code } : {}) };
  }
}

/**
 * How doctor answers one question. URL requests are declined: doctor cannot finish an
 * out-of-band flow, and consenting would leave a well-behaved server waiting for it.
 */
function answerFor(
  strategy: Strategy,
  params: Record<string, unknown>,
  overCap: boolean,
): { action: string; content?: Record<string, unknown> } {
  if (overCap) return { action: 'cancel' };
  if (params.mode === 'url') return { action: strategy === 'cancel' ? 'cancel' : 'decline' };
  switch (strategy) {
    case 'accept-defaults':
      return { action: 'accept', content: sampleContent(params.requestedSchema) };
    case 'accept-empty':
      return { action: 'accept', content: {} };
    case 'decline':
      return { action: 'decline' };
    default:
      return { action: 'cancel' };
  }
}
