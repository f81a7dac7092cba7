import type { RequestId, Tool } from '@modelcontextprotocol/client';
import { urlsShown } from '../shown-url.js';
import { type CallOutcome, fromError, fromResult } from './classify.js';
import type { Connection } from './connection.js';
import type { Step } from './explore.js';
import type { FixtureCase, Fixtures } from './fixtures.js';
import type { Profile, Strategy } from './profiles.js';
import type { Ask, CallRecord, ToolInfo } from './records.js';
import { isDestructive } from './safety.js';
import { sampleArguments } from './values.js';

/**
 * One tool call, its outcome by class and code; a call past `timeoutMs` is cancelled by the SDK.
 * `definition`: the tool as listed, when the SDK cached no list (it refused the whole of it).
 */
export async function callOnce(
  conn: Connection,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
  definition?: Tool,
): Promise<CallOutcome> {
  const started = performance.now();
  try {
    // The SDK cancels a call past its timeout (notifications/cancelled, or aborting the request).
    const result = await conn.client.callTool(
      { name, arguments: args },
      {
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        ...(signal ? { signal } : {}),
        ...(definition ? { toolDefinition: definition } : {}),
      },
    );
    return fromResult(result);
  } catch (error) {
    if (signal?.aborted) return { kind: 'failed', sdkCode: 'RUNAWAY', message: String(signal.reason) };
    return fromError(error, Math.round(performance.now() - started));
  }
}

/** Records a listed tool once for the run, and which profiles listed it. */
export function noteTool(
  tools: Map<string, ToolInfo>,
  tool: Tool,
  profile: Profile,
  filter: { only?: readonly string[] | undefined; skip?: readonly string[] | undefined },
): ToolInfo {
  let info = tools.get(tool.name);
  if (!info) {
    const { only, skip } = filter;
    info = {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      destructive: isDestructive(tool),
      listedBy: [],
      filtered: (only !== undefined && !only.includes(tool.name)) || (skip?.includes(tool.name) ?? false),
    };
    tools.set(tool.name, info);
  }
  info.listedBy.push(profile.id);
  return info;
}

/** The fixture cases of a tool, else one case of arguments built from its input schema. */
export function casesFor(fixtures: Fixtures | undefined, tool: Tool): readonly FixtureCase[] {
  const given = fixtures?.get(tool.name);
  if (given) return given;
  const args = sampleArguments(tool.inputSchema);
  return [{ label: JSON.stringify(args), arguments: args }];
}

/**
 * The recorded ask a request handed to doctor belongs to: the unanswered one of its `id` (a pushed
 * question's JSON-RPC id, an embedded one's `inputRequests` key), else the first with its message.
 */
export function pairAsk(asks: Ask[], params: Record<string, unknown>, id: RequestId): Ask | undefined {
  const open = asks.filter((a) => !a.answer);
  return (
    open.find((a) => (a.via === 'push' ? a.id : a.key) === id) ??
    open.find((a) => a.params.message === params.message) ??
    open[0]
  );
}

/** An error's message for the report, any URL in it printed as the CLI prints one (`urlsShown`). */
export function messageOf(error: unknown): string {
  return urlsShown(error instanceof Error ? error.message : String(error));
}

/** A call record before it is made (skipped until then). */
export function newCall(
  tool: string,
  fixture: FixtureCase,
  profile: Profile,
  strategy: Strategy,
  path?: Step[],
): CallRecord {
  return {
    tool,
    case: fixture.label,
    profile: profile.id,
    strategy,
    arguments: fixture.arguments,
    asks: [],
    outcome: { kind: 'skipped', reason: 'no-question' },
    ms: 0,
    ...(path ? { path } : {}),
  };
}
