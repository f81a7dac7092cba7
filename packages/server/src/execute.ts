import { LOCALE_META_KEY } from '@elicitkit/form';
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { parseArguments } from './arguments.js';
import { CallQuestions, type CallSettings } from './call-questions.js';
import type { CallStateCodec } from './call-state-codec.js';
import { callSignal, endedBy, PushChannel } from './channel/push.js';
import { ReplayChannel } from './channel/replay.js';
import {
  type Attempt,
  type AttemptEffect,
  type CommitOptions,
  type Committer,
  checkTransaction,
  type Effect,
  runsAtomically,
  sendable,
  Withheld,
} from './commit.js';
import { randomUUID } from './digest.js';
import { ElicitkitUsageError } from './errors.js';
import { LOCALES, type Locale, MESSAGES } from './messages.js';
import { type Peer, peerOf } from './peer.js';
import { invalid } from './results.js';
import {
  checkAnswersSize,
  checkSealedSize,
  MAX_REQUEST_STATE_LENGTH,
  OVERSIZE_ANSWERS,
  tooLargeState,
} from './size-limits.js';
import { type CallState, callDigest, callText, isCallState } from './state.js';
import type { AnyTool, ToolContext } from './tool.js';

/** What every call of every tool shares. */
export interface Runtime {
  codec: CallStateCodec;
  committer: Committer;
  identify: (ctx: ServerContext) => string | undefined;
  settingsFor: (tool: AnyTool) => CallSettings;
  now: () => number;
}

const SUSPENDED = Symbol('suspended');

/**
 * The longest call text a state carries as it is (UTF-16 units); a longer one is bound by its
 * digest. The text is the tool's name and its arguments, which the client sends on every round
 * anyway: carried, it costs a few bytes where a digest costs a SHA-256 per call.
 */
export const INLINE_CALL_TEXT = 128;

/**
 * Whether `state` was issued for a call of `tool` with `given` (the arguments as sent): the kit's
 * `verify` asks it before the tool runs. Undefined for a state sealed before `v4`, which only the
 * arguments as the schema made them tell (`execute` compares those).
 */
export function issuedFor(state: CallState, tool: string, given: unknown): boolean | undefined {
  if (state.boundAsParsed) return undefined;
  const text = callText(tool, given);
  if (text === undefined) return false;
  if (state.callText !== undefined) return state.callText === text;
  return state.call === callDigest(text);
}

function differentCall(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState was issued for a different tool call');
}

/**
 * One round of one tool call. Arguments the tool's schema refuses end it at once with `invalid`.
 * Where questions are pushed (2025 connections) the handler runs once; where they are returned
 * (2026-07-28) it runs again from the top each round, answers replayed from the sealed state, and
 * a round that needs a new answer ends with `input_required`. A round of a call whose side effect
 * already committed, or that the person ended with a decline or cancel, returns the recorded result
 * without running anything.
 */
export async function execute(
  rt: Runtime,
  tool: AnyTool,
  server: McpServer,
  given: unknown,
  ctx: ServerContext,
  /** The name the server was created with (`kit.createServer`), which its states are sealed for. */
  serverName: string | undefined,
): Promise<CallToolResult | InputRequiredResult> {
  const settings = inLocale(rt.settingsFor(tool), ctx);
  const parsing = parseArguments(tool.inputSchema, given, settings.locale);
  const parsed = parsing instanceof Promise ? await parsing : parsing;
  if (!parsed.ok) return invalid(parsed.issues, { locale: settings.locale });
  const args = parsed.value;
  const peer = peerOf(ctx, server.server);
  const user = rt.identify(ctx);
  const signal = peer.asks === 'push' ? callSignal(ctx) : ctx.mcpReq.signal;
  if (peer.asks === 'push') {
    const channel = new PushChannel(ctx, server.server, peer.revision, signal, rt.now);
    const questions = new CallQuestions(settings, channel, peer, randomUUID(), user, signal, ctx.http?.req);
    return questions.finish(
      await tool.run(args, toolContext(rt, tool, settings, ctx, signal, peer, user, questions, false)),
    );
  }

  const previous = readState(rt, ctx);
  // With a state, the kit's check of it (`verify`) measured the answers first.
  if (!previous) checkAnswersSize(ctx.mcpReq.inputResponses);
  // The arguments as sent bind the state: JSON, so equal text means equal arguments. What the
  // schema made of them may hold values no text tells apart (a `URL`, a `Date`).
  const text = callText(tool.name, given);
  if (text === undefined) return invalid(MESSAGES[settings.locale].argumentsTooDeep, { locale: settings.locale });
  // What binds the next state to this call: its text itself when short (a `v4` state carries it,
  // so no round hashes it), else its digest.
  let call = text.length <= INLINE_CALL_TEXT ? text : undefined;
  if (previous) {
    // A state sealed before `v4` was bound by the arguments as the schema made them.
    const bound = previous.boundAsParsed ? callText(tool.name, args) : text;
    if (bound === undefined) throw differentCall();
    // A state carrying the call's text, or one this process sealed, is compared by text: no hash.
    if (previous.callText !== undefined) {
      if (previous.callText !== bound) throw differentCall();
      if (bound === text) call ??= previous.call;
    } else {
      const digest = callDigest(bound);
      if (previous.call !== digest) throw differentCall();
      if (bound === text) call ??= digest;
    }
  }
  call ??= callDigest(text);
  // The state this round may seal expires counted from here, before the claim is read: a claim
  // taken after this read outlives it (kit.ts), so no state of a committed call opens once the
  // claim's record is gone, even one sealed by a round that raced the commit.
  const began = rt.now();
  if (previous) {
    // A replay of any round of a call that already acted gets that act's result, the same each time.
    const recorded = await rt.committer.recorded(previous.cid, tool.name, settings.locale, signal);
    if (recorded) return recorded;
  }
  const channel = new ReplayChannel(previous, ctx.mcpReq.inputResponses, rt.now, settings.maxQuestionChanges);
  const questions = new CallQuestions(
    settings,
    channel,
    peer,
    previous?.cid ?? randomUUID(),
    user,
    signal,
    ctx.http?.req,
  );
  const end = roundEnd(channel);
  // Run at once (no microtask hop before it); a handler that throws synchronously still becomes a
  // rejection. A handler abandoned at a pending question may still reject later: `end` has settled
  // by then and the rejection is handled, so it does not surface.
  try {
    const handed = toolContext(rt, tool, settings, ctx, signal, peer, user, questions, previous !== undefined);
    Promise.resolve(tool.run(args, handed)).then(end.resolve, end.reject);
  } catch (error) {
    end.reject(error);
  }
  let result: CallToolResult | undefined;
  try {
    const first = await end.promise;
    if (first !== SUSPENDED) result = questions.finish(first);
  } catch (error) {
    // The tool failed over the person's no (asked after it): the error goes out, and their no is
    // what the call ended with, for every round of it sent again.
    const no = previous && error instanceof ElicitkitUsageError ? questions.standingNo() : undefined;
    if (no) await endsWith(rt, questions, tool.name, settings.locale, no, signal).catch(() => undefined);
    throw error;
  }
  if (result) {
    // (A first round ending so gave out no state: nothing of it can come again.)
    if (!previous || !questions.endsRefused(result)) return result;
    return endsWith(rt, questions, tool.name, settings.locale, result, signal);
  }
  // A round that holds the person's no asks nothing more: it ends the call with that no.
  const no = previous ? questions.standingNo() : undefined;
  if (no) return endsWith(rt, questions, tool.name, settings.locale, no, signal);
  // Sealed for this caller on this server: the state that came in was opened under the same (kit.ts).
  const requestState = rt.codec.seal(
    channel.state(call, text, questions.contextId),
    { method: ctx.mcpReq.method, identity: user, server: serverName },
    began,
  );
  checkSealedSize(requestState);
  channel.sent();
  return inputRequired({ inputRequests: channel.requests(), requestState });
}

/**
 * The person's no ends the call for good: recorded as its result, as a side effect's is, so a
 * replay of an earlier round (a state sealed before they answered, answered otherwise) gets that
 * no — never the question again, nor what the tool gave out while asking it (a page's link, say).
 */
function endsWith(
  rt: Runtime,
  questions: CallQuestions,
  tool: string,
  locale: Locale,
  no: CallToolResult,
  signal: AbortSignal,
): Promise<CallToolResult> {
  return rt.committer.run(questions.contextId, tool, locale, () => no, {}, signal);
}

/**
 * What a handler is given besides its arguments. Made here, not inline in `execute`: closures
 * written there share `execute`'s scope (and one more closure per call made them); these four
 * share one small scope, held as long as the handler keeps them — an open question's whole wait.
 * `sealed`: the call's id has travelled in a sealed state, so a round of it can come again.
 */
function toolContext(
  rt: Runtime,
  tool: AnyTool,
  settings: CallSettings,
  ctx: ServerContext,
  signal: AbortSignal,
  peer: Peer,
  user: string | undefined,
  questions: CallQuestions,
  sealed: boolean,
): ToolContext {
  return {
    ask: ((key: string, opts: never) => questions.ask(key, opts)) as ToolContext['ask'],
    askUrl: (key, opts) => questions.askUrl(key, opts),
    commit: async (effect: Effect, opts: CommitOptions = {}) => {
      checkTransaction(effect.length > 0, rt.committer.store, tool.name, opts);
      const instead = questions.committing(signal.aborted ? endedBy(ctx) : undefined, 'blind');
      if (instead) return instead;
      // No round of it can come again: nothing to claim — unless it is atomic, its effect then run
      // in one transaction (a half-written effect that throws leaves nothing), recorded only where
      // the store cannot run a transaction without a record.
      if (!sealed && !runsAtomically(rt.committer.store, opts))
        return recorded(questions, sendable(await effect(undefined as never), tool.name, settings.locale));
      const result = await rt.committer.run(
        questions.contextId,
        tool.name,
        settings.locale,
        effect,
        opts,
        signal,
        sealed,
      );
      return recorded(questions, result);
    },
    attempt: async <W>(effect: AttemptEffect<W>, opts: CommitOptions = {}): Promise<Attempt<W>> => {
      checkTransaction(effect.length > 1, rt.committer.store, tool.name, opts);
      const instead = questions.committing(signal.aborted ? endedBy(ctx) : undefined);
      if (instead) return { done: true, result: instead };
      // A withheld effect is thrown through the committer as a failed one: its claim is released
      // (or its one transaction rolled back), so nothing is recorded and a later attempt may act.
      const withhold = (what: W) => new Withheld(what);
      const settle = (r: CallToolResult | Withheld<W>): CallToolResult => {
        if (r instanceof Withheld) throw r;
        return r;
      };
      const run: Effect = (tx) => {
        const r = effect(withhold, tx as never);
        return r instanceof Promise ? r.then(settle) : settle(r);
      };
      try {
        const result =
          sealed || runsAtomically(rt.committer.store, opts)
            ? recorded(
                questions,
                await rt.committer.run(questions.contextId, tool.name, settings.locale, run, opts, signal, sealed),
              )
            : recorded(questions, sendable(await run(undefined as never), tool.name, settings.locale));
        return { done: true, result };
      } catch (error) {
        if (!(error instanceof Withheld)) throw error;
        questions.reopen();
        return { done: false, withheld: error.what as W };
      }
    },
    contextId: questions.contextId,
    user,
    revision: peer.revision,
    can: peer.can,
    locale: settings.locale,
    signal,
    mcp: ctx,
  };
}

/**
 * What a commit's effect answered. A `done` one (or one without a status) took effect, as did one
 * whose recording failed: a ready-made result the call ends with later says so. One whose
 * outcome is not known (`unknown`, `running`), or that refused or left its work (`rejected`,
 * `pending`), tells of no effect. A result whose recording failed goes on the audit trail too.
 */
function recorded(questions: CallQuestions, result: CallToolResult): CallToolResult {
  const structured = result.structuredContent as { status?: unknown; outcome?: unknown; message?: unknown } | undefined;
  const unrecorded = structured?.outcome === 'unrecorded';
  if (unrecorded) questions.unrecorded(String(structured?.message ?? ''));
  if (unrecorded || (structured?.outcome === undefined && (structured?.status ?? 'done') === 'done'))
    questions.tookEffect();
  return result;
}

/** How a round ends: the handler's result, or `SUSPENDED` once it waits on a question this round cannot answer. */
interface RoundEnd {
  promise: Promise<CallToolResult | typeof SUSPENDED>;
  resolve: (result: CallToolResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Made here, not inline in `execute`: a closure written there holds `execute`'s whole scope (the
 * request's `ctx`, the server, the runtime), and stored on the channel it kept each request's
 * objects alive through young-generation collections until a full one — about 14 KB a call more
 * surviving than the raw SDK's (`young-survival.test.ts`; bench/README.md, issue 12 part N). The
 * channel's hook holds only the promise's own resolver.
 */
function roundEnd(channel: ReplayChannel): RoundEnd {
  let resolve!: RoundEnd['resolve'];
  let reject!: RoundEnd['reject'];
  const promise = new Promise<CallToolResult | typeof SUSPENDED>((res, rej) => {
    resolve = res;
    reject = rej;
    channel.onSuspend = () => res(SUSPENDED);
  });
  return { promise, resolve, reject };
}

function readState(rt: Runtime, ctx: ServerContext): CallState | undefined {
  const state = ctx.mcpReq.requestState();
  if (state === undefined) return undefined;
  // The state's check found the answers past their limit before any work on it: this says which.
  if (state === OVERSIZE_ANSWERS) checkAnswersSize(ctx.mcpReq.inputResponses);
  if (typeof state === 'string' && state.length > MAX_REQUEST_STATE_LENGTH) throw tooLargeState(state.length);
  // A state in the kit's own format that arrives as text was never opened: the server lacks the kit's check.
  if (typeof state === 'string' && rt.codec.formatOf(state) === 'mine') {
    throw new ElicitkitUsageError(
      'STATE_UNVERIFIED',
      'requestState arrived unverified: build the McpServer with kit.createServer() or kit.serverOptions().',
    );
  }
  // Any other text was left by the kit's check for a hand-written tool, or is not a state at all.
  if (!isCallState(state))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState is not an Elicitkit call state');
  return state;
}

const localized = new WeakMap<CallSettings, Map<Locale, CallSettings>>();

/**
 * The tool's settings in the language the request asks for (`_meta` `io.elicitkit/locale`, one of
 * `LOCALES`), or as they are: one copy per tool and language, made once.
 */
function inLocale(settings: CallSettings, ctx: ServerContext): CallSettings {
  const asked = ctx.mcpReq._meta?.[LOCALE_META_KEY];
  // Most requests name no language, or the server's own: nothing to look up.
  if (asked === undefined || asked === settings.locale || !LOCALES.some((l) => l === asked)) return settings;
  const locale = asked as Locale;
  let copies = localized.get(settings);
  if (!copies) {
    copies = new Map();
    localized.set(settings, copies);
  }
  let copy = copies.get(locale);
  if (!copy) {
    copy = { ...settings, locale };
    copies.set(locale, copy);
  }
  return copy;
}
