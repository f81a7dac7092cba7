import {
  type AnyForm,
  type Finding,
  type Form,
  type FormContent,
  type Infer,
  lintForm,
  type Revision,
} from '@elicitkit/form';
import type {
  CallToolResult,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { AskOptions, AskUrlOptions } from './ask-options.js';
import type { Attempt, AttemptEffect, CommitOptions, Effect } from './commit.js';
import { count } from './durations.js';
import { FormLintError, isProduction } from './errors.js';
import type { Locale } from './messages.js';
import type { Outcome, UrlOutcome } from './outcome.js';

/** The fixed forms a tool may ask, by ask key. */
export type Forms = Record<string, AnyForm>;

type ArgsOf<I> = I extends StandardSchemaWithJSON ? StandardSchemaWithJSON.InferOutput<I> : Record<string, never>;

/** `ask` is typed by the forms a tool declares; a form built on the spot can be passed instead. */
export interface AskFn<F extends Forms> {
  <K extends keyof F & string>(key: K, options: AskOptions<Infer<F[K]>>): Promise<Outcome<Infer<F[K]>>>;
  <T extends FormContent>(key: string, options: AskOptions<T> & { form: Form<T> }): Promise<Outcome<T>>;
}

/** What a handler gets besides its arguments. */
export interface ToolContext<F extends Forms = Forms> {
  /**
   * Asks the person, through the client, for the values in a form. Resolves with an `Outcome`:
   * only `accept` carries the (validated) value.
   *
   * On 2026-07-28 clients the handler is re-run from the top once per answer (the answers so far
   * travel in a signed `requestState`), so **code before an ask must have no side effects**: read,
   * compute and validate freely; write, deploy and send only after the last ask.
   */
  ask: AskFn<F>;
  /**
   * Sends the person to a page (URL mode) for what must never pass through the client: passwords,
   * keys, payments. `accept` means the flow finished (`isComplete()` said so); `pending` means the
   * person consented but has not finished yet.
   */
  askUrl(key: string, options: AskUrlOptions): Promise<UrlOutcome>;
  /**
   * Runs the call's side effect — after the last ask — **at most once**, and returns its result:
   * a retried, replayed or concurrently duplicated final round (the same sealed `requestState`
   * and answers sent again) gets the first attempt's recorded result back, byte for byte, and
   * the effect does not run again. Claims live in the kit's `claims` store for as long as the
   * call's state could come back.
   *
   * The effect must be one transaction: if it throws, nothing happened, its claim is released and
   * a later attempt may run it. If the process dies mid-effect, later attempts are told the outcome
   * is unknown and to check, rather than run it again. With `{ atomic: true }` and a claim store in
   * the database the effect writes to, claim, writes and result commit in one transaction: exactly
   * once, even across a crash. On Postgres (`createPostgresClaimStore`) the effect is handed that
   * transaction's client (`tx`) and may be async; on SQLite it is synchronous and writes through
   * the store's own connection. Effects outside that transaction (files, HTTP calls) need their
   * own idempotency.
   *
   * No question may follow it, and it refuses to run after the person cancelled — or once the
   * client has cancelled the call (`notifications/cancelled`) or its request has gone away: then
   * it returns a `cancelled` result without running the effect (return it as it is).
   *
   * @example
   * return ctx.commit(() => {
   *   const id = insertDeployment(service, env);
   *   return done(`Deployed ${service} to ${env} (#${id}).`, { deployment: { id } });
   * }, { atomic: true });
   *
   * @example
   * // Postgres: the tool's own table, written in the claim's transaction.
   * return ctx.commit(async (tx: PoolClient) => {
   *   const { rows } = await tx.query('INSERT INTO deployments (service, env) VALUES ($1, $2) RETURNING id', [service, env]);
   *   return done(`Deployed ${service} to ${env} (#${rows[0].id}).`);
   * }, { atomic: true });
   */
  commit(effect: Effect, options?: CommitOptions): Promise<CallToolResult>;
  /**
   * Runs the side effect as `commit` does — claimed, at most once — but lets it decide, from what
   * it actually did, that the person must be asked first. Such an effect does its work inside its
   * own transaction, measures it, and either keeps it (returns the tool's result: `{ done: true }`)
   * or rolls it back and returns `withhold(what)`: then nothing happened, the claim is released,
   * and the handler may ask — showing `what`, the very execution it judged — and `commit` after.
   * What is judged is what runs: no trial run that a second run could differ from.
   *
   * `{ done: true }` also carries the `cancelled` result when the call was abandoned before the
   * effect started (return it as it is).
   *
   * @example
   * const first = await ctx.attempt((withhold) => shop.run(sql, { unasked: true }, withhold));
   * if (first.done) return first.result;
   * const answer = await ctx.ask('confirm', { message: describe(first.withheld) });
   * if (answer.action !== 'accept') return answer.result();
   * return ctx.commit(() => shop.run(sql, { within: first.withheld }));
   */
  attempt<W>(effect: AttemptEffect<W>, options?: CommitOptions): Promise<Attempt<W>>;
  /** One id per tool call, shared by every round and audit record. */
  contextId: string;
  /** Who started the call (the kit's `identify`), bound to every question asked for it. */
  user: string | undefined;
  /**
   * The protocol revision whose rules this call follows (a negotiated version between or after the
   * known ones reads as the newest known revision not after it; see `revisionOf`).
   */
  revision: Revision;
  /**
   * What the client can be asked: a form, a page (URL mode). A question in a mode it lacks ends as
   * `unsupported` without reaching it, so a tool never has to check; read it to choose between
   * asking and a fallback of its own.
   *
   * @example
   * if (!ctx.can.url) return rejected('Open the registration page yourself: https://…');
   */
  can: { readonly form: boolean; readonly url: boolean };
  locale: Locale;
  signal: AbortSignal;
  /** The SDK's own handler context, for anything else. */
  mcp: ServerContext;
}

/**
 * What `defineTool` takes: the tool as `tools/list` shows it, the forms it may ask, and its handler.
 * Its `inputSchema` is listed as it is and applied by the kit: arguments it refuses end the call
 * with the `invalid` result before `run` is called.
 */
export interface ToolSpec<I extends StandardSchemaWithJSON | undefined, F extends Forms> {
  name: string;
  title?: string;
  description: string;
  inputSchema?: I;
  outputSchema?: StandardSchemaWithJSON;
  annotations?: ToolAnnotations;
  /** Every fixed form the tool may ask, by ask key: linted when the tool is defined. */
  forms?: F;
  /** Questions allowed per call, a whole number from 1 (default: the kit's, 2). */
  maxAsks?: number;
  run(args: ArgsOf<I>, ctx: ToolContext<F>): CallToolResult | Promise<CallToolResult>;
}

/** A defined tool: its spec plus the warnings its forms drew. */
export interface ElicitingTool<
  I extends StandardSchemaWithJSON | undefined = StandardSchemaWithJSON | undefined,
  F extends Forms = Forms,
> extends ToolSpec<I, F> {
  /** Warning-level lint findings of the declared forms (errors throw outside production). */
  readonly findings: readonly Finding[];
}

/** A defined tool of any arguments and forms: what `createServer` and `register` take. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument and form type.
export type AnyTool = ElicitingTool<any, any>;

/**
 * Defines a tool that asks. Declared forms are linted now, against every rule a form can break on
 * its own: outside production an error (a password field, a `default: true` confirmation, a nested
 * object) throws here, so it fails in the first test that imports the tool.
 *
 * @example
 * export const deploy = defineTool({
 *   name: 'deploy_service',
 *   description: 'Deploy a service; asks for the environment when it is missing.',
 *   inputSchema: z.object({ service: z.string(), env: z.enum(['dev', 'staging', 'prod']).optional() }),
 *   forms: { env: form({ env: field.select(ENVIRONMENTS, { title: 'Environment' }) }) },
 *   async run({ service, env }, { ask }) {
 *     if (!env) {
 *       const answer = await ask('env', { message: `Which environment should ${service} be deployed to?` });
 *       if (answer.action !== 'accept') return answer.result();
 *       env = answer.value.env;
 *     }
 *     return done(`Deployed ${service} to ${env}.`);
 *   },
 * });
 */
export function defineTool<
  I extends StandardSchemaWithJSON | undefined = undefined,
  F extends Forms = Record<never, never>,
>(spec: ToolSpec<I, F>): ElicitingTool<I, F> {
  count(`${spec.name}: maxAsks`, spec.maxAsks, 2);
  const findings: Finding[] = [];
  for (const [key, form] of Object.entries(spec.forms ?? {})) {
    // EK11 judges a message against the call's own words; neither exists before an ask.
    const found = lintForm(form.schema);
    const errors = found.filter((f) => f.severity === 'error');
    if (errors.length > 0 && !isProduction()) throw new FormLintError(`${spec.name}: form "${key}"`, errors);
    findings.push(...found.map((f) => ({ ...f, message: `form "${key}": ${f.message}` })));
  }
  return { ...spec, findings };
}
