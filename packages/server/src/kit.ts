import {
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  inputRequired,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerCapabilities,
  type ServerContext,
  type ServerOptions,
} from '@modelcontextprotocol/server';
import type { AuditEvent, AuditSink, Redaction } from './audit.js';
import { callSignal, PushChannel } from './channel/push.js';
import { ReplayChannel } from './channel/replay.js';
import { createStateCodec } from './codec.js';
import { ElicitkitUsageError } from './errors.js';
import { peerOf } from './peer.js';
import type { Locale } from './results.js';
import { Session, type SessionSettings } from './session.js';
import { type CallState, callDigest, identityDigest, isCallState } from './state.js';
import type { AnyTool, ToolContext } from './tool.js';

export interface ElicitkitOptions {
  /**
   * HMAC key for `requestState` (≥ 32 bytes). Every process that may receive a round of the same
   * call needs the same key; the default is random per process, right for one process.
   */
  secret?: Uint8Array | string;
  /** Lifetime of a sealed `requestState`, seconds. Default 3600 (a question may wait 10 minutes). */
  stateTtlSeconds?: number;
  /** Language of ready-made results. Default `en`. */
  locale?: Locale;
  /** How long a question waits for the person. Default 10 minutes. */
  timeoutMs?: number;
  /** Questions per tool call. Default 2. */
  maxAsks?: number;
  /** URL mode: how long to wait after consent for the flow to finish before `pending`. Default 2 minutes. */
  urlWaitMs?: number;
  /** URL mode: how often `isComplete` is polled. Default 250 ms. */
  pollMs?: number;
  /** Receives request / response / validation records. */
  audit?: AuditSink;
  /** How answers appear in the audit trail. Default `redacted`. */
  redaction?: Redaction;
  /**
   * Who is calling, from the request (e.g. the bearer token's subject). Sealed state is bound to
   * it, so an answer given under one identity is refused under another.
   */
  identify?: (ctx: ServerContext) => string | undefined;
  /** The clock, for tests. */
  now?: () => number;
}

export interface CreateServerOptions {
  instructions?: string;
  capabilities?: ServerCapabilities;
}

/** The configured toolkit: one per process, shared by every server instance it creates. */
export interface Elicitkit {
  /**
   * A fresh `McpServer` with the given tools registered and `requestState` verification wired.
   * Call it from the factory `createMcpHandler` and `serveStdio` take.
   */
  createServer(info: Implementation, tools: readonly AnyTool[], options?: CreateServerOptions): McpServer;
  /** The server options a hand-built `McpServer` needs before `register` works on it. */
  serverOptions(): Pick<ServerOptions, 'requestState'>;
  /** Registers one tool on a server built with `serverOptions()`. */
  register(server: McpServer, tool: AnyTool): void;
}

const SUSPENDED = Symbol('suspended');

/**
 * Creates the toolkit.
 *
 * @example
 * const kit = createElicitkit({ audit: (e) => log.write(e) });
 * const handler = createMcpHandler(() => kit.createServer({ name: 'opsdesk', version: '1.0.0' }, [deploy]));
 */
export function createElicitkit(options: ElicitkitOptions = {}): Elicitkit {
  const now = options.now ?? Date.now;
  const identify = options.identify ?? (() => undefined);
  const codec = createStateCodec<CallState>({
    key: options.secret ?? crypto.getRandomValues(new Uint8Array(32)),
    ttlSeconds: options.stateTtlSeconds ?? 3600,
    now,
  });
  // A question answered for one person must not be replayable by another. The identity digest
  // rides inside the MAC'd payload (one HMAC per round instead of the codec's two with `bind`),
  // and a mismatch is refused at the seam like any other bad state: -32602.
  const verify = async (state: string, ctx: ServerContext): Promise<CallState> => {
    const payload = await codec.verify(state);
    if (!isCallState(payload) || payload.who !== (await identityDigest(ctx.mcpReq.method, identify(ctx)))) {
      throw new Error('bind');
    }
    return payload;
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
  const settingsFor = (tool: AnyTool): SessionSettings => ({
    tool: tool.name,
    forms: tool.forms ?? {},
    maxAsks: tool.maxAsks ?? options.maxAsks ?? 2,
    timeoutMs: options.timeoutMs ?? 600_000,
    urlWaitMs: options.urlWaitMs ?? 120_000,
    pollMs: options.pollMs ?? 250,
    locale: options.locale ?? 'en',
    redaction: options.redaction ?? 'redacted',
    now,
    audit,
  });
  const serverOptions = (): Pick<ServerOptions, 'requestState'> => ({ requestState: { verify } });

  async function execute(
    tool: AnyTool,
    server: McpServer,
    args: unknown,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const peer = peerOf(ctx, server.server);
    const user = identify(ctx);
    const settings = settingsFor(tool);
    const signal = peer.era === 'legacy' ? callSignal(ctx) : ctx.mcpReq.signal;
    const context = (session: Session): ToolContext => ({
      ask: ((key: string, opts: never) => session.ask(key, opts)) as ToolContext['ask'],
      askUrl: (key, opts) => session.askUrl(key, opts),
      contextId: session.contextId,
      user,
      revision: peer.revision,
      era: peer.era,
      locale: settings.locale,
      signal,
      mcp: ctx,
    });

    if (peer.era === 'legacy') {
      const channel = new PushChannel(ctx, server.server, peer.revision, signal, now);
      const session = new Session(settings, channel, peer, crypto.randomUUID(), user, signal);
      return session.finish(await tool.run(args, context(session)));
    }

    const previous = readState(ctx);
    const call = await callDigest(tool.name, args);
    if (previous && previous.call !== call) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState was issued for a different tool call');
    }
    const channel = new ReplayChannel(previous, ctx.mcpReq.inputResponses, now);
    const session = new Session(settings, channel, peer, previous?.cid ?? crypto.randomUUID(), user, signal);
    const suspended = new Promise<typeof SUSPENDED>((resolve) => {
      channel.onSuspend = () => resolve(SUSPENDED);
    });
    const running = Promise.resolve().then(() => tool.run(args, context(session)));
    // A handler abandoned at a pending question may still reject later; that must not surface.
    running.catch(() => {});
    const first = await Promise.race([running, suspended]);
    if (first !== SUSPENDED) return session.finish(first);
    return inputRequired({
      inputRequests: channel.requests(),
      requestState: await codec.mint(
        channel.state(call, session.contextId, await identityDigest(ctx.mcpReq.method, user)),
      ),
    });
  }

  function register(server: McpServer, tool: AnyTool): void {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        ...(tool.title ? { title: tool.title } : {}),
        ...(tool.inputSchema ? { inputSchema: tool.inputSchema } : {}),
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      // biome-ignore lint/suspicious/noExplicitAny: the SDK infers handler arity from the schema; ours always takes (args, ctx).
      (async (...params: any[]) => {
        const ctx = params[params.length - 1] as ServerContext;
        const args = params.length > 1 ? params[0] : {};
        return execute(tool, server, args, ctx);
      }) as never,
    );
  }

  return {
    serverOptions,
    register,
    createServer(info, tools, opts = {}) {
      const server = new McpServer(info, {
        capabilities: { tools: {}, ...opts.capabilities },
        ...(opts.instructions ? { instructions: opts.instructions } : {}),
        ...serverOptions(),
      });
      for (const tool of tools) register(server, tool);
      return server;
    },
  };
}

function readState(ctx: ServerContext): CallState | undefined {
  const state = ctx.mcpReq.requestState();
  if (state === undefined) return undefined;
  if (typeof state === 'string') {
    throw new ElicitkitUsageError(
      'STATE_UNVERIFIED',
      'requestState arrived unverified: build the McpServer with kit.createServer() or kit.serverOptions().',
    );
  }
  if (!isCallState(state))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState is not an Elicitkit call state');
  return state;
}
