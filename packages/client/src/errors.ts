import { ElicitkitError } from '@elicitkit/form';
import type { ArgumentProblem } from './arguments.js';
import type { SchemaProblem } from './input-schema.js';

/**
 * `attach` was misused: called after `connect()` (`ALREADY_CONNECTED`), or given a policy that
 * cannot work (`BAD_POLICY`).
 *
 * @example
 * try { attach(client, { renderer, policy }); } catch (e) { if (ElicitkitError.is(e) && e.code === 'BAD_POLICY') usage(e.message); }
 */
export class AttachError extends ElicitkitError {
  constructor(code: 'ALREADY_CONNECTED' | 'BAD_POLICY', message: string) {
    super(code, message);
    this.name = 'AttachError';
  }
}

/**
 * A scripted renderer could not answer: it ran out of answers (`ANSWERS_EXHAUSTED`), or the next
 * answer does not fit the question (`ANSWER_MISMATCH`, form content for a URL prompt). `attach`
 * answers `cancel` and reports it as a `renderer-failed` event.
 *
 * @example
 * onEvent: (e) => { if (e.type === 'renderer-failed' && e.error instanceof ScriptError) console.error(e.error.message); }
 */
export class ScriptError extends ElicitkitError {
  /** The position (0-based) of the elicitation in the script. */
  readonly index: number;

  constructor(code: 'ANSWERS_EXHAUSTED' | 'ANSWER_MISMATCH', index: number, message: string) {
    super(code, message);
    this.name = 'ScriptError';
    this.index = index;
  }
}

/**
 * A pending registry was asked for something it cannot do (`BAD_TIMEOUT`): a question with a
 * timeout that is not a positive number of milliseconds up to `Number.MAX_SAFE_INTEGER`, or a
 * `retainMs` outside 0 (1,000 for Redis) to that.
 *
 * @example
 * await registry.open({ owner, timeoutMs: 0 }); // rejects with RegistryError { code: 'BAD_TIMEOUT' }
 */
export class RegistryError extends ElicitkitError {
  constructor(code: 'BAD_TIMEOUT', message: string) {
    super(code, message);
    this.name = 'RegistryError';
  }
}

/**
 * A tool argument that does not fit the tool's input schema (`toolArguments`, code `BAD_ARGUMENT`):
 * an unknown key, a value the property cannot take, `--args` that is not a JSON object.
 *
 * @example
 * try { toolArguments(tool.inputSchema, ['replicas=many'], undefined); }
 * catch (e) { if (e instanceof ArgumentError) usage(e.message); } // "replicas=many: expected a number"
 */
export class ArgumentError extends ElicitkitError {
  /** What is wrong, as data (`toolArguments` sets it): for a reader that says it in its own words. */
  readonly problem: ArgumentProblem | undefined;

  constructor(message: string, problem?: ArgumentProblem) {
    super('BAD_ARGUMENT', message);
    this.name = 'ArgumentError';
    this.problem = problem;
  }
}

/**
 * A server sent a tool `inputSchema` that Elicitkit cannot read (`BAD_TOOL_SCHEMA`): a non-list
 * `enum`, properties that are not objects, and the like. `server` and `tool` say whose it is.
 *
 * @example
 * try { describeArguments(tool.inputSchema, { server: 'x', tool: tool.name }); }
 * catch (e) { if (e instanceof ToolSchemaError) warn(e.message); }
 */
export class ToolSchemaError extends ElicitkitError {
  readonly server: string | undefined;
  readonly tool: string | undefined;
  /**
   * What is wrong where, as data (`readInputSchema` sets it): for a reader that says it in its own
   * language rather than the message's English.
   */
  readonly problem: SchemaProblem | undefined;

  constructor(
    source: { server?: string | undefined; tool?: string | undefined },
    problem: string,
    data?: SchemaProblem,
  ) {
    const who = `${source.tool ? `tool "${source.tool}"` : 'a tool'}${source.server ? ` of server "${source.server}"` : ''}`;
    super('BAD_TOOL_SCHEMA', `${who} has an input schema elicitkit cannot use: ${problem}`);
    this.name = 'ToolSchemaError';
    this.server = source.server;
    this.tool = source.tool;
    this.problem = data;
  }
}

/**
 * `connectWithin` reached its deadline before the server answered (`CONNECT_TIMEOUT`); the
 * transport is closed and a stdio server it started is stopped. `timeoutMs` is the deadline.
 *
 * @example
 * try { await connectWithin(client, transport, { revision: 'auto', timeoutMs }); }
 * catch (e) { if (e instanceof ConnectTimeoutError) warn(`no answer within ${e.timeoutMs} ms`); }
 */
export class ConnectTimeoutError extends ElicitkitError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('CONNECT_TIMEOUT', `the server did not answer within ${timeoutMs} ms`);
    this.name = 'ConnectTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
