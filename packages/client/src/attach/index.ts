import type { Client, Implementation } from '@modelcontextprotocol/client';
import { AttachError } from '../errors.js';
import { type Policy, resolvePolicy } from '../policy/index.js';
import { createRateLimiter, type RateLimiter } from '../policy/rate-limit.js';
import type { Opener, Renderer, RendererModes, ServerIdentity } from '../types.js';
import { connectionSignal } from './closed.js';
import { trackCompletions } from './completions.js';
import { createSerial } from './deadline.js';
import type { ElicitationEvent } from './events.js';
import { answerForm } from './form.js';
import type { IncomingRequest, Responder, WireResult } from './responder.js';
import { answerUrl } from './url.js';
import { answerUrlRequired, type UrlRequiredOutcome } from './url-required.js';

/**
 * How `attach` answers: the renderer that asks, the policy around it, an event listener, and
 * how consented URLs are opened.
 *
 * @example
 * attach(client, { renderer, policy: { secrets: 'decline', timeoutMs: 5 * 60_000 }, onEvent: audit });
 */
export interface AttachOptions {
  renderer: Renderer;
  policy?: Policy;
  /** Called for everything attach decides (see `ElicitationEvent`); a throwing listener is ignored. */
  onEvent?: (event: ElicitationEvent) => void;
  /** Opens a URL the person consented to. Default: the renderer's own (the terminal's is the system browser). */
  opener?: Opener;
  /** The clock for the rate limit, and the one each prompt's `receivedAt` is read from. Default `Date.now`. */
  now?: () => number;
  /**
   * What counts the questions `policy.rateLimit` lets through, for a budget that must outlive
   * this client: a host that reconnects to a server (it restarted, the user changed) passes the
   * same limiter to each new client (naming the server in `budget`), or a reconnect starts a
   * fresh budget. Unused when
   * `policy.rateLimit` is false. Default: a new one per `attach`, on `now`.
   */
  limiter?: RateLimiter;
  /**
   * The key this client's questions count under in `limiter`: the server as the host knows it
   * (its configured name). Default the server's own `name@version`, which is the server's to
   * choose: one that reports a new version on each reconnect starts a fresh budget, and one that
   * takes another server's name spends that one's.
   */
  budget?: string;
}

/**
 * The caller's handle on an attached client: what `attach` declared to servers. (The state that
 * answers the client's requests is internal, the `Responder`.)
 *
 * @example
 * if (!attach(client, { renderer }).modes.form) console.error('No terminal and no answers: servers will fall back.');
 */
export interface Attachment {
  /** The elicitation modes declared to servers; both false means no elicitation capability at all. */
  readonly modes: RendererModes;
  /**
   * A call answered with error -32042 (URL elicitation required, 2025-11-25): puts the URL
   * questions it carries to the person as pushed ones are put, and waits (at most the policy's
   * `timeoutMs`, or until `signal`) for the server to say each page is done — then the call may
   * be sent again. Undefined for any other error, and where the renderer takes no URL questions.
   *
   * @example
   * try { await client.callTool(params); } catch (error) {
   *   const outcome = await attachment.urlRequired(error);
   *   if (outcome?.action === 'accept' && outcome.finished) await client.callTool(params);
   * }
   */
  urlRequired(error: unknown, signal?: AbortSignal): Promise<UrlRequiredOutcome | undefined>;
}

/**
 * Makes an SDK v2 `Client` answer elicitations through `renderer`, on 2025-11-25 and 2026-07-28
 * alike. Call it before `connect()`: it declares exactly the modes the renderer can honour (none →
 * no elicitation capability, so servers fall back honestly) and registers the handler. Do not
 * declare `elicitation` in the client's own capabilities.
 *
 * @example
 * const client = new Client({ name: 'my-host', version: '1.0.0' });
 * attach(client, { renderer: createTerminalRenderer(), policy: { secrets: 'decline' } });
 * await client.connect(transport);
 * await client.callTool({ name: 'deploy_service', arguments: {} }, { timeout: 15 * 60_000 });
 */
export function attach(client: Client, options: AttachOptions): Attachment {
  if (client.transport !== undefined) {
    throw new AttachError('ALREADY_CONNECTED', 'attach() must run before connect(): capabilities are fixed then.');
  }
  const policy = resolvePolicy(options.policy);
  const { renderer } = options;
  const modes: RendererModes = { form: renderer.modes.form === true, url: renderer.modes.url === true };
  if (!modes.form && !modes.url) return { modes, urlRequired: async () => undefined };

  client.registerCapabilities({
    elicitation: { ...(modes.form ? { form: {} } : {}), ...(modes.url ? { url: {} } : {}) },
  });
  const listener = options.onEvent;
  const responder: Responder = {
    renderer,
    policy,
    limiter:
      policy.rateLimit === false
        ? undefined
        : (options.limiter ?? createRateLimiter({ ...policy.rateLimit, ...nowOption(options) })),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    opener: options.opener ?? renderer.opener,
    emit(event) {
      try {
        listener?.(event);
      } catch {
        // Observers must not change what the person is asked or what the server receives.
      }
    },
    serial: createSerial(),
  };
  const connection = connectionSignal(client);
  const completions = trackCompletions(client, responder);
  const rounds = roundsOf();
  let count = 0;
  client.setRequestHandler('elicitation/create', async (incoming, ctx) => {
    const params = incoming.params;
    const connected = connection();
    // Cancel stops the operation: once the person cancels, the round's other questions are not
    // asked (those waiting their turn, or shown, are withdrawn and answer cancel). A decline is
    // one question's no.
    const id = ++count;
    const round = rounds(ctx.mcpReq.signal);
    const request: IncomingRequest = {
      id,
      receivedAt: (options.now ?? Date.now)(),
      server: identity(client.getServerVersion()),
      // The server's withdrawal, the client closing (which the SDK misses on 2026-07-28), or a
      // cancel of another question of its round.
      signal: AbortSignal.any([ctx.mcpReq.signal, connected, round.others(id)]),
      accepted: (prompt) => completions.accepted(request.id, prompt, connected),
      cancelled: () => round.cancel(id),
    };
    const elicitationId = 'elicitationId' in params ? params.elicitationId : undefined;
    responder.emit({
      type: 'request',
      id: request.id,
      mode: params.mode === 'url' ? 'url' : 'form',
      message: params.message,
      server: request.server,
      ...(elicitationId === undefined ? {} : { elicitationId }),
    });
    const result: WireResult =
      params.mode === 'url'
        ? await answerUrl(responder, request, params)
        : await answerForm(responder, request, {
            ...params,
            ...(elicitationId === undefined ? {} : { elicitationId }),
          });
    responder.emit({ type: 'answered', id: request.id, action: result.action });
    return result;
  });
  // A -32042 error's pages: the server waits on none of them (the call has ended), so each is
  // received as it is put to the person.
  const next = () => ({
    id: ++count,
    receivedAt: (options.now ?? Date.now)(),
    server: identity(client.getServerVersion()),
    connection: connection(),
  });
  return {
    modes,
    urlRequired: (error, signal) =>
      modes.url ? answerUrlRequired(responder, completions, next, error, signal) : Promise.resolve(undefined),
  };
}

/** The questions of one round: a cancel of one withdraws the others. */
interface Round {
  /** Aborts when another question of the round is cancelled (never for `id`'s own cancel). */
  others(id: number): AbortSignal;
  /** The person cancelled question `id`. */
  cancel(id: number): void;
}

/**
 * The questions of one 2026-07-28 `input_required` round, by the signal the SDK gives them all
 * (one per round; on 2025 each request has its own, so a round is one question).
 */
function roundsOf(): (signal: AbortSignal) => Round {
  const rounds = new WeakMap<AbortSignal, Round>();
  return (signal) => {
    let round = rounds.get(signal);
    if (!round) {
      const cancelled = new AbortController();
      const others = new Map<number, AbortController>();
      round = {
        others(id) {
          const controller = new AbortController();
          if (cancelled.signal.aborted) controller.abort();
          else others.set(id, controller);
          return controller.signal;
        },
        cancel(id) {
          if (cancelled.signal.aborted) return;
          cancelled.abort();
          for (const [other, controller] of others) if (other !== id) controller.abort();
          others.clear();
        },
      };
      rounds.set(signal, round);
    }
    return round;
  };
}

function identity(server: Implementation | undefined): ServerIdentity | undefined {
  if (!server) return undefined;
  return { name: server.name, version: server.version, ...(server.title ? { title: server.title } : {}) };
}

function nowOption(options: AttachOptions): { now?: () => number } {
  return options.now ? { now: options.now } : {};
}
