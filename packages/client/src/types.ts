import type { FieldModel, Finding, FormContent, FormSchema, Issue } from '@elicitkit/form';
import type { Unanswerable } from './checks/unanswerable.js';

/**
 * Who is asking: the connected server's self-reported identity (the protocol asks clients to show which
 * server asks). Self-reported, so a renderer shows it; it never grants anything.
 *
 * @example
 * const who = prompt.server ? `${prompt.server.title ?? prompt.server.name} ${prompt.server.version}` : 'An unidentified server';
 */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
}

/**
 * The elicitation modes a renderer can honour; `attach` declares exactly these.
 *
 * @example
 * const modes: RendererModes = { form: true, url: false }; // declares { elicitation: { form: {} } }
 */
export interface RendererModes {
  form: boolean;
  url: boolean;
}

/** What every prompt carries, whatever its mode. */
interface PromptBase {
  message: string;
  /** `undefined` when the server did not identify itself (allowed on 2026-07-28). */
  server: ServerIdentity | undefined;
  /** Present on 2025-11-25 URL-mode requests; 2026-07-28 correlates through `requestState` instead. */
  elicitationId?: string;
  /**
   * When `attach` received the request (epoch ms, by its `now`). Questions are shown one at a
   * time: one shown after waiting its turn behind another has spent that wait of the server's own
   * deadline, which runs from when it asked (`createRegistryRenderer`'s `timeoutFrom`). Set by
   * `attach`; a prompt built by hand may lack it.
   */
  receivedAt?: number;
  /** Lint findings for the request (the rule catalogue), for renderers that show them. */
  findings: Finding[];
}

/**
 * A form question, ready to draw: the field model is the state, renderers only draw it.
 *
 * @example
 * for (const field of prompt.fields) draw(field, prompt.previous?.[field.name] ?? field.default);
 */
export interface FormPrompt extends PromptBase {
  mode: 'form';
  /** The request's schema, parsed and known to be inside the restricted subset. */
  schema: FormSchema;
  /** `describeFields(schema)`: what every renderer draws. */
  fields: FieldModel[];
  /** Fields that ask for a secret (rule EK09): renderers must warn prominently. */
  secretFields: string[];
  /**
   * Present when the question cannot be answered as sent (`checkFormRequest`): a field's name or a
   * choice holds half a character, which no answer can carry. A renderer shows the question with
   * why and offers only decline and cancel: an accept could never be sent.
   */
  unanswerable?: Unanswerable[];
  /** 1 on the first ask; higher when an earlier answer was invalid and the person is asked again. */
  attempt: number;
  /** Why the previous answer was refused (only when `attempt > 1`). */
  issues?: Issue[];
  /** The previous answer, so that an interactive renderer can pre-fill it. */
  previous?: FormContent;
}

/** Why a URL deserves a second look: look-alike host, plain http to a remote host, credentials, a token. */
export type UrlWarningCode = 'punycode' | 'insecure' | 'credentials' | 'token';

/**
 * Something about a URL a person should know before consenting to open it.
 *
 * @example
 * for (const w of prompt.warnings) banner(w.code === 'punycode' ? 'danger' : 'warning', w.message);
 */
export interface UrlWarning {
  code: UrlWarningCode;
  message: string;
}

/**
 * A URL-mode question: consent to open `url`.
 *
 * @example
 * const [before, after] = [prompt.url.slice(0, prompt.hostIndex), prompt.url.slice(prompt.hostIndex + prompt.host.length)];
 * show(`${before}<b>${prompt.host}</b>${after}`);
 */
export interface UrlPrompt extends PromptBase {
  mode: 'url';
  /** The full, normalized URL (a Unicode host is shown in its `xn--` form, which exposes look-alikes). */
  url: string;
  /** The host (with port), for highlighting. */
  host: string;
  /** Where `host` starts inside `url`. */
  hostIndex: number;
  /**
   * Who owns the page: the registrable domain of the host (eTLD+1 by the Public Suffix List,
   * private suffixes included), in the URL's `xn--` form; the host name itself for an IP address
   * or `localhost`; no trailing dot. `accounts.example.com.evil.test` → `evil.test`. Show it
   * prominently. Set by `attach`; a prompt built by hand may lack it (show `host` then).
   */
  site?: string;
  warnings: UrlWarning[];
}

/**
 * Any question, discriminated by `mode`.
 *
 * @example
 * publish: (id, prompt) => (prompt.mode === 'url' ? showConsent(id, prompt) : showForm(id, prompt))
 */
export type Prompt = FormPrompt | UrlPrompt;

/** The person refuses to share this information. */
type Declined = { action: 'decline' };
/** The person abandons the whole operation. */
type Cancelled = { action: 'cancel' };

/**
 * A renderer's answer to a form: submitted content, or decline, or cancel.
 *
 * @example
 * return { action: 'accept', content: { env: 'prod', ticket: 'REL-1001' } };
 */
export type FormAnswer = { action: 'accept'; content: FormContent } | Declined | Cancelled;

/**
 * A renderer's answer to a URL prompt: accept means consent to open the URL.
 *
 * @example
 * return consented ? { action: 'accept' } : { action: 'decline' };
 */
export type UrlAnswer = { action: 'accept' } | Declined | Cancelled;

/**
 * Any answer, as stored by a pending registry (content only for accepted forms).
 *
 * @example
 * await registry.resolve(id, chat.id, { action: 'accept', content: body.content });
 */
export type Answer = { action: 'accept'; content?: FormContent } | Declined | Cancelled;

/**
 * Opens a consented URL (the system browser, a new tab, …). Never called without consent.
 *
 * @example
 * attach(client, { renderer, opener: (url) => console.error(`Open ${url} to continue.`) });
 */
export type Opener = (url: string) => Promise<void> | void;

/**
 * Draws questions and returns the person's answers. Implementations: terminal, scripted, registry
 * (and React). Each method gets an `AbortSignal` that fires when the server withdraws the question
 * or the client's timeout passes: tear the UI down and answer `cancel`.
 *
 * @example
 * const alwaysDecline: Renderer = {
 *   modes: { form: true, url: true },
 *   interactive: false,
 *   renderForm: async () => ({ action: 'decline' }),
 *   renderUrl: async () => ({ action: 'decline' }),
 * };
 */
export interface Renderer {
  readonly modes: RendererModes;
  /** True when a person answers live, so an invalid answer can be asked again. */
  readonly interactive: boolean;
  /**
   * True when the person sees every default pre-filled and reviews the whole answer before it goes,
   * so a field the answer leaves out was emptied on purpose: `attach` then sends the content as it
   * is (validated: a required field left empty is refused). Default false: `attach` fills in the
   * defaults of the fields left out, for renderers whose answers may omit what nobody touched.
   */
  readonly prefillsDefaults?: boolean;
  /** How this renderer's environment opens URLs; `attach({ opener })` overrides it. */
  readonly opener?: Opener;
  renderForm(prompt: FormPrompt, signal: AbortSignal): Promise<FormAnswer>;
  renderUrl(prompt: UrlPrompt, signal: AbortSignal): Promise<UrlAnswer>;
  /**
   * The server says the person finished on the page of `prompt`, a URL question this renderer's
   * answer accepted (2025-11-25 `notifications/elicitation/complete`; told at most once, and
   * only for a question accepted on the connection it came on): end a "finish on the page" state.
   * Optional: it may never come, so such a state also needs a way out of its own.
   */
  urlCompleted?(prompt: UrlPrompt): void;
}
