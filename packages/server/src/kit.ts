import {
  type Implementation,
  McpServer,
  type ServerCapabilities,
  type ServerContext,
  type ServerOptions,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { advertised, withConvertedJson } from './arguments.js';
import type { AuditEvent, AuditSink, Redaction } from './audit.js';
import type { CallSettings } from './call-questions.js';
import { type CallStateCodec, createCallStateCodec } from './call-state-codec.js';
import { DEFAULT_MAX_CHANGES } from './channel/replay.js';
import { createMemoryClaimStore } from './claims/memory.js';
import type { ClaimStore } from './claims/types.js';
import { Committer } from './commit.js';
import { count, duration, MAX_TIMER_MS } from './durations.js';
import { execute, issuedFor, type Runtime } from './execute.js';
import type { Locale } from './messages.js';
import { checkSecret } from './secret.js';
import { answersFit, MAX_REQUEST_STATE_LENGTH, OVERSIZE_ANSWERS } from './size-limits.js';
import type { CallState } from './state.js';
import { AMBIGUOUS, callOf, seam } from './state-seam.js';
import type { AnyTool } from './tool.js';

const EMPTY_FORMS: Readonly<Record<string, never>> = Object.freeze({});
/** The default `identify`: the client an authenticated request came from, none without authentication. */
const authenticatedClient = (ctx: ServerContext): string | undefined => ctx.http?.authInfo?.clientId;
/** How much longer than a state's lifetime a claim is kept: for clocks that differ between hosts. */
const CLAIM_CLOCK_MARGIN_MS = 60_000;
/** Ten years: a longer lifetime is a mistake (every store still counts such a claim's expiry exactly). */
const MAX_STATE_TTL_SECONDS = 10 * 365 * 24 * 3600;
/** What `registerTool` is given for a tool. */
interface ToolConfig {
  description: string;
  title?: string;
  inputSchema?: StandardSchemaWithJSON;
  outputSchema?: StandardSchemaWithJSON;
  annotations?: ToolAnnotations;
}

/** How the kit behaves for every tool it serves; every option has a default. */
export interface ElicitkitOptions {
  /**
   * HMAC key for `requestState`: at least 32 bytes (a string's UTF-8), random — a shorter one
   * throws a `RangeError` here. Every process that may receive a round of the same call needs the
   * same key; the default is random per process, right for one process.
   */
  secret?: Uint8Array | string;
  /**
   * Lifetime of a sealed `requestState`, whole seconds (1 to ten years). Default 3600 (a question
   * may wait 10 minutes).
   */
  stateTtlSeconds?: number;
  /** Language of ready-made results. Default `en`. */
  locale?: Locale;
  /** How long a question waits for the person, 1 ms to 2^31-1 ms (about 24.8 days). Default 10 minutes. */
  timeoutMs?: number;
  /** Questions per tool call, a whole number from 1. Default 2. */
  maxAsks?: number;
  /**
   * 2026-07-28: how many answers to one question may be set aside because the question changed
   * before they arrived; at this many the ask ends `invalid` (`QUESTION_UNSTABLE`) instead of
   * asking again. A whole number from 1; default 3.
   */
  maxQuestionChanges?: number;
  /** URL mode: how long to wait after consent for the flow to finish before `pending` (0 to 2^31-1 ms). Default 2 minutes. */
  urlWaitMs?: number;
  /** URL mode: how often `isComplete` is polled (1 to 2^31-1 ms). Default 250 ms. */
  pollMs?: number;
  /** Receives request / response / validation records. */
  audit?: AuditSink;
  /** How answers appear in the audit trail. Default `redacted`. */
  redaction?: Redaction;
  /**
   * Who is calling, from the request (e.g. the bearer token's subject). Sealed state is bound to
   * it, so an answer given under one identity is refused under another. Default: the client the
   * request authenticated as (`ctx.http.authInfo.clientId`, as `createHttpHandler`'s `authenticate`
   * or the SDK's bearer auth set it), and one anonymous caller without authentication. Where one
   * client id serves several people, return the person (the token's subject) instead.
   */
  identify?: (ctx: ServerContext) => string | undefined;
  /**
   * Where each call's side effect is claimed once (`ctx.commit`), its result kept for replays.
   * Default: a memory store in this process. Every process that may receive a round of the same
   * call needs the same store (SQLite on a shared file, or a shared server).
   */
  claims?: ClaimStore;
  /**
   * How long a running effect's holder counts as alive without renewing its claim, whole ms (100
   * to 2^31 − 1). Default 15 s.
   */
  claimLeaseMs?: number;
  /**
   * How long a duplicate of a running effect waits for its result before answering "still
   * running", ms (0 to 2^31 − 1). Default 60 s.
   */
  commitWaitMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** What `createServer` passes on to the `McpServer` besides the tools. */
export interface CreateServerOptions {
  instructions?: string;
  capabilities?: ServerCapabilities;
}

/** The configured toolkit: one per process, shared by every server instance it creates. */
export interface Elicitkit {
  /**
   * A fresh `McpServer` with the given tools registered and `requestState` verification wired: its
   * states are sealed for `info.name`, and it takes no other server's (replicas share the name).
   * Call it from the factory `createMcpHandler` and `serveStdio` take. Hand-written tools may be
   * registered on it too: a `requestState` not in the kit's format reaches them as sent.
   */
  createServer(info: Implementation, tools: readonly AnyTool[], options?: CreateServerOptions): McpServer;
  /**
   * The server options a hand-built `McpServer` needs before `register` works on it. Such a server
   * knows no name: its states are sealed for none, and it takes only those of other hand-built servers.
   */
  serverOptions(): Pick<ServerOptions, 'requestState'>;
  /**
   * Registers one tool on a server built with `serverOptions()`, or on one `createServer` built
   * (its states then sealed for that server's name, as the server expects).
   */
  register(server: McpServer, tool: AnyTool): void;
  /**
   * Resolves once no tool call is running (those cut short by a closed connection end promptly):
   * wait for it before closing what their last audit records and effects write to.
   */
  settled(): Promise<void>;
}

/**
 * Creates the toolkit.
 *
 * @example
 * const kit = createElicitkit({ audit: (e) => log.write(e) });
 * const handler = createMcpHandler(() => kit.createServer({ name: 'opsdesk', version: '1.0.0' }, [deploy]));
 */
export function createElicitkit(options: ElicitkitOptions = {}): Elicitkit {
  const now = options.now ?? Date.now;
  const identify = options.identify ?? authenticatedClient;
  // Whole seconds: a claim is kept a whole number of milliseconds (Redis's PEXPIRE takes no other).
  const ttlSeconds = duration('stateTtlSeconds', options.stateTtlSeconds, 3600, 1, MAX_STATE_TTL_SECONDS, true);
  // Whole milliseconds, as a Postgres store keeps a lease; renewed every third of it, on a timer.
  const leaseMs = duration('claimLeaseMs', options.claimLeaseMs, 15_000, 100, MAX_TIMER_MS, true);
  const waitMs = duration('commitWaitMs', options.commitWaitMs, 60_000, 0, MAX_TIMER_MS, false);
  // A question's own timer (the SDK's, on 2025 connections) holds no more than MAX_TIMER_MS.
  const questionMs = duration('timeoutMs', options.timeoutMs, 600_000, 1, MAX_TIMER_MS, false);
  const urlWaitMs = duration('urlWaitMs', options.urlWaitMs, 120_000, 0, MAX_TIMER_MS, false);
  const pollMs = duration('pollMs', options.pollMs, 250, 1, MAX_TIMER_MS, false);
  const kitMaxAsks = count('maxAsks', options.maxAsks, 2);
  const maxQuestionChanges = count('maxQuestionChanges', options.maxQuestionChanges, DEFAULT_MAX_CHANGES);
  // Checked here, at start: a short or empty secret is a key anyone can seal states with.
  const secret = options.secret === undefined ? undefined : checkSecret('secret', options.secret);
  // Made on first use: its key (and the platform's crypto behind it) costs a server's start time,
  // and a server whose calls never reach a 2026-07-28 round never needs it.
  let made: CallStateCodec | undefined;
  const codecNow = (): CallStateCodec => {
    made ??= createCallStateCodec({
      key: secret ?? crypto.getRandomValues(new Uint8Array(32)),
      ttlSeconds,
      now,
    });
    return made;
  };
  // A question answered for one person must not be replayable by another: the caller is part of
  // the state's MAC, so a state opened under any other identity is refused at the seam like any
  // other bad state: -32602.
  //
  // The SDK runs one `verify` for every tool on the server. A state in another format belongs to a
  // hand-written tool beside the kit's: it is left as it is (`undefined`) for that tool to check.
  // Sent to a kit tool (the call noted as it arrived: state-seam.ts), any state the kit did not
  // seal for this very call is refused here, so every bad state gets the same -32602 (the SDK's
  // `invalid_request_state`): not the kit's, past the size limit, or issued for another tool or
  // other arguments, as well as tampered, expired or another identity's.
  //
  // A server `createServer` built takes only states sealed on a server of its name (`server`): two
  // servers of one kit, or two services sharing a secret, each with a tool of the same name, do not
  // take each other's — a confirmation given for one is never the other's. Replicas of one server
  // share its name, and so its states.
  const verify = (state: string, ctx: ServerContext, server?: string): CallState | undefined => {
    const call = callOf(ctx.mcpReq.id, state);
    if (call === AMBIGUOUS) throw new Error('two requests in flight with this id and state call different things');
    // Past the limit no state is the kit's: no MAC is computed.
    if (state.length > MAX_REQUEST_STATE_LENGTH) {
      if (call) throw new Error(`requestState is ${state.length} characters long, past the limit`);
      return undefined;
    }
    const caller = { method: ctx.mcpReq.method, identity: identify(ctx), server };
    const codec = codecNow();
    const format = codec.formatOf(state);
    if (format === 'foreign') {
      if (call) throw new Error(`requestState is not one ${call.tool} sealed`);
      return undefined;
    }
    // Answers past their limit: no MAC either; the kit's tool refuses them naming it (readState).
    // (The SDK answers any throw here with its own fixed words.)
    if (!answersFit(ctx.mcpReq.inputResponses)) return OVERSIZE_ANSWERS;
    const opened = codec.open(state, caller);
    if (call && issuedFor(opened, call.tool, call.args) === false)
      throw new Error(`requestState was issued for a different call than this ${call.tool} call`);
    return opened;
  };
  const sink = options.audit;
  const audit = sink
    ? (event: AuditEvent) => {
        try {
          void Promise.resolve(sink(event)).catch(() => {});
        } catch {
          // Auditing never breaks a call.
        }
      }
    : undefined;
  // Per tool, not per call: a 2026-07-28 call is one request per round, each asking for them.
  // Rebuilt when the tool's forms or budget are no longer the objects they were built from.
  const settingsByTool = new WeakMap<AnyTool, CallSettings>();
  const settingsFor = (tool: AnyTool): CallSettings => {
    const forms = tool.forms ?? EMPTY_FORMS;
    const maxAsks = tool.maxAsks ?? kitMaxAsks;
    const known = settingsByTool.get(tool);
    if (known && known.tool === tool.name && known.forms === forms && known.maxAsks === maxAsks) return known;
    const settings: CallSettings = {
      tool: tool.name,
      forms,
      maxAsks,
      maxQuestionChanges,
      timeoutMs: questionMs,
      urlWaitMs,
      pollMs,
      locale: options.locale ?? 'en',
      redaction: options.redaction ?? 'redacted',
      now,
      audit,
    };
    settingsByTool.set(tool, settings);
    return settings;
  };
  // A hand-built server's states are sealed for no server name: it knows none (the SDK keeps the
  // name it was built with to itself).
  const unnamed = { verify: (state: string, ctx: ServerContext) => verify(state, ctx) };
  const serverOptions = (): Pick<ServerOptions, 'requestState'> => ({ requestState: unnamed });
  // Per tool, not per server: a 2026-07-28 request builds a server, so registering a tool must
  // not build its listing (and the schema wrappers in it) again each time. Rebuilt when a field
  // it was built from is no longer the same.
  const configs = new WeakMap<AnyTool, { from: AnyTool; config: ToolConfig }>();
  const configFor = (tool: AnyTool): ToolConfig => {
    const known = configs.get(tool);
    if (
      known &&
      known.from.description === tool.description &&
      known.from.title === tool.title &&
      known.from.inputSchema === tool.inputSchema &&
      known.from.outputSchema === tool.outputSchema &&
      known.from.annotations === tool.annotations
    )
      return known.config;
    const config: ToolConfig = {
      description: tool.description,
      ...(tool.title ? { title: tool.title } : {}),
      // The real schema is listed, but applied by the kit: a refusal then has a status too.
      ...(tool.inputSchema ? { inputSchema: advertised(tool.inputSchema) } : {}),
      ...(tool.outputSchema ? { outputSchema: withConvertedJson(tool.outputSchema) } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    configs.set(tool, { from: { ...tool }, config });
    return config;
  };
  const committer = new Committer({
    store: options.claims ?? createMemoryClaimStore({ now }),
    // A claim outlives every state that could replay it: a state expires `ttlSeconds` after the
    // round that sealed it began, before that round read the claim (execute.ts); the margin covers
    // clocks that differ between the replicas that seal states and the store that keeps claims.
    ttlMs: ttlSeconds * 1000 + CLAIM_CLOCK_MARGIN_MS,
    leaseMs,
    waitMs,
    now,
  });
  const runtime: Runtime = {
    get codec() {
      return codecNow();
    },
    committer,
    identify,
    settingsFor,
    now,
  };

  let running = 0;
  const idle: (() => void)[] = [];
  const settle = () => {
    if (--running === 0) for (const resolve of idle.splice(0)) resolve();
  };
  // Not an async wrapper: the count settles in a reaction registered before the SDK's own, so
  // `settled()` still sees the call end first, without an extra promise and await per call.
  const track = <T>(done: Promise<T>): Promise<T> => {
    done.then(settle, settle);
    return done;
  };

  function register(server: McpServer, tool: AnyTool, serverName?: string): void {
    seam(server).set(tool.name, tool.inputSchema !== undefined);
    server.registerTool(
      tool.name,
      configFor(tool),
      // biome-ignore lint/suspicious/noExplicitAny: the SDK infers handler arity from the schema; ours always takes (args, ctx).
      ((...params: any[]) => {
        const ctx = params[params.length - 1] as ServerContext;
        const args = params.length > 1 ? params[0] : {};
        // Counted before the call starts (no closure per call for it).
        running++;
        return track(execute(runtime, tool, server, args, ctx, serverName));
      }) as never,
    );
  }

  // The name each server `createServer` built was given: a tool `register` adds to one later seals
  // for that name too, as its server's `verify` expects.
  const names = new WeakMap<McpServer, string>();

  return {
    serverOptions,
    register: (server, tool) => register(server, tool, names.get(server)),
    settled: () => (running === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve))),
    createServer(info, tools, opts = {}) {
      // The SDK only reads `verify` of it; one per server (a 2026-07-28 request builds one).
      const name = info.name;
      const server = new McpServer(info, {
        capabilities: { tools: {}, ...opts.capabilities },
        ...(opts.instructions ? { instructions: opts.instructions } : {}),
        requestState: { verify: (state: string, ctx: ServerContext) => verify(state, ctx, name) },
      });
      seam(server);
      if (typeof name === 'string') names.set(server, name);
      for (const tool of tools) register(server, tool, name);
      return server;
    },
  };
}
