import type { FieldModel, Finding, FormContent, FormSchema, Issue } from '@elicitkit/form';

/** Who is asking: the connected server's self-reported identity (SPEC §1: clients show which server asks). */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
}

/** The elicitation modes a renderer can honour; `attach` declares exactly these. */
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
  /** Lint findings for the request (SPEC §5), for renderers that show them. */
  findings: Finding[];
}

/** A form question, ready to draw: the field model is the state, renderers only draw it. */
export interface FormPrompt extends PromptBase {
  mode: 'form';
  /** The request's schema, parsed and known to be inside the restricted subset. */
  schema: FormSchema;
  /** `describeFields(schema)`: what every renderer draws. */
  fields: FieldModel[];
  /** Fields that ask for a secret (rule EK09): renderers must warn prominently. */
  secretFields: string[];
  /** 1 on the first ask; higher when an earlier answer was invalid and the person is asked again. */
  attempt: number;
  /** Why the previous answer was refused (only when `attempt > 1`). */
  issues?: Issue[];
  /** The previous answer, so that an interactive renderer can pre-fill it. */
  previous?: FormContent;
}

export type UrlWarningCode = 'punycode' | 'insecure' | 'credentials' | 'token';

/** Something about a URL a person should know before consenting to open it. */
export interface UrlWarning {
  code: UrlWarningCode;
  message: string;
}

/** A URL-mode question: consent to open `url`. */
export interface UrlPrompt extends PromptBase {
  mode: 'url';
  /** The full, normalized URL (a Unicode host is shown in its `xn--` form, which exposes look-alikes). */
  url: string;
  /** The host (with port), for highlighting. */
  host: string;
  /** Where `host` starts inside `url`. */
  hostIndex: number;
  warnings: UrlWarning[];
}

export type Prompt = FormPrompt | UrlPrompt;

export type Declined = { action: 'decline' };
export type Cancelled = { action: 'cancel' };

/** A renderer's answer to a form: submitted content, or decline, or cancel. */
export type FormAnswer = { action: 'accept'; content: FormContent } | Declined | Cancelled;

/** A renderer's answer to a URL prompt: accept means consent to open the URL. */
export type UrlAnswer = { action: 'accept' } | Declined | Cancelled;

/** Any answer, as stored by a pending registry. */
export type Answer = { action: 'accept'; content?: FormContent } | Declined | Cancelled;

/** Opens a consented URL (the system browser, a new tab, …). Never called without consent. */
export type Opener = (url: string) => Promise<void> | void;

/**
 * Draws questions and returns the person's answers. Implementations: terminal, scripted, registry
 * (and React). Each method gets an `AbortSignal` that fires when the server withdraws the question
 * or the client's timeout passes: tear the UI down and answer `cancel`.
 */
export interface Renderer {
  readonly modes: RendererModes;
  /** True when a person answers live, so an invalid answer can be asked again. */
  readonly interactive: boolean;
  /** How this renderer's environment opens URLs; `attach({ opener })` overrides it. */
  readonly opener?: Opener;
  renderForm(prompt: FormPrompt, signal: AbortSignal): Promise<FormAnswer>;
  renderUrl(prompt: UrlPrompt, signal: AbortSignal): Promise<UrlAnswer>;
}
