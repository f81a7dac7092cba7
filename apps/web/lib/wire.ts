import type { Prompt } from '@elicitkit/client';
import type { ElicitAction } from '@elicitkit/form';
import type { UIMessage } from 'ai';

// What travels between the server (lib/, app/api/) and the page (components/). Types only, so
// the page bundles nothing from the server side.

/**
 * What a `data-elicitation` part of the chat stream carries: one question as the browser sees it,
 * sent again with a new status when it settles.
 */
export interface ElicitationData {
  id: string;
  server: string;
  /** `gone` is the page's own: a question restored from history that the server no longer holds. */
  status: 'open' | 'answered' | 'expired' | 'withdrawn' | 'gone';
  action?: ElicitAction;
  prompt: Prompt;
  /** Epoch ms the server handed the question to the page, and when it stops waiting. */
  publishedAt: number;
  expiresAt: number;
}

/**
 * What a `data-refusal` part carries: a question the chat declined for the person without showing
 * it (`reason`: the server asked more than `limit` allows, or the form asks for a secret the chat
 * does not take). The tool was told `decline`; the person never saw the question.
 */
export interface RefusalData {
  server: string;
  /** The question's message, as the server sent it (drawn through `plainText`). */
  message: string;
  reason: 'rate-limit' | 'secret-field';
  /** The chat's question budget per server, for `rate-limit`. */
  limit?: { max: number; perMs: number };
}

/** A message of the chat stream, with questions as `data-elicitation` parts and unseen declines as `data-refusal`. */
export type ChatMessage = UIMessage<never, { elicitation: ElicitationData; refusal: RefusalData }>;

/** `GET /api/session`: the chat's CSRF token and what the page needs to know about the setup. */
export interface ChatInfo {
  csrf: string;
  /**
   * This page's name in the chat, sent with its closing beacon: the chat ends when every page
   * showing it has said goodbye, each once. `''`: this page's goodbye is not counted (the chat has
   * too many pages; it ends at its idle time).
   */
  page: string;
  lang: 'en' | 'zh';
  /** The configured MCP servers, by name. */
  servers: string[];
  /** The model and its endpoint, or `null` when none is configured. */
  model: string | null;
  /** The demo identity picker (bundled opsdesk only): who the chat acts as (`null`: the local owner). */
  identity: { user: string | null; choices: string[] } | null;
}

/**
 * A tool as the chat lists it (`GET /api/tools`). With several servers its `name` is
 * `server__tool`; its input schema is the server's, as sent.
 */
export interface ToolInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: {
    /** `true` is a valid schema too: any JSON. */
    properties?: Record<string, ToolProperty | true>;
    required?: string[];
  };
}

/**
 * One argument of a listed tool, as far as the page reads it: only listings whose schema
 * `describeArguments` reads are sent (`listTools`), so `type` is a name or names and `enum` scalars.
 */
export interface ToolProperty {
  type?: string | string[];
  enum?: (string | number | boolean | null)[];
  description?: string;
}

/** A configured server whose tools could not be listed just now, and why (`GET /api/tools`). */
export interface UnavailableServer {
  server: string;
  message: string;
}

/** `GET /api/tools`: the tools of every server that answered, and the servers that did not. */
export interface ToolListing {
  tools: ToolInfo[];
  unavailable: UnavailableServer[];
}

/**
 * How a tool call ended: the `structuredContent.status` of a result from a tool built on
 * Elicitkit. It is the server's `Status` (`STATUSES` in `@elicitkit/server`), written out here
 * because the web app's layer may not import the server (the repository's `test/layering.test.ts`);
 * `apps/web/test/statuses.test.ts` fails, at type check and when run, while the two lists differ.
 */
export type Status = 'done' | 'declined' | 'cancelled' | 'unsupported' | 'invalid' | 'rejected' | 'timeout' | 'pending';

/** What a tool call gives the chat: the text of its result, its `structuredContent.status`, the rest. */
export interface ToolOutput {
  text: string;
  /** Usually a `Status`; another server's tool may send any word. */
  status?: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

/** `POST /api/model/check`: whether one tiny request to the model endpoint worked, and if not why. */
export type ModelCheck =
  | { ok: true; ms: number }
  | {
      ok: false;
      kind: import('./model-errors').ModelProblemKind | 'not-configured';
      variable?: import('./model-errors').ModelVariable;
      message: string;
    };

/**
 * The largest turn the chat route reads (`POST /api/chat`): the page sends the newest messages of
 * its conversation that fit in it (components/history.ts `fitForTurn`), so however much its results
 * add up to, the next message is taken.
 */
export const TURN_BODY_LIMIT = 2 * 1024 * 1024;
