import { openSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { WriteStream } from 'node:tty';
import { parseArgs } from 'node:util';
import {
  ArgumentError,
  type Attachment,
  attach,
  createScriptedRenderer,
  type ElicitationEvent,
  formatAnswerProblems,
  jsonText,
  listToolsSafely,
  notAsTyped,
  parseAnswers,
  type Renderer,
  revisionOptions,
  ScriptError,
  serverDeadline,
  toolArguments,
} from '@elicitkit/client';
import { SchemaValidator } from '@elicitkit/client/schema-validator';
import { createTerminalRenderer } from '@elicitkit/client/terminal';
import { Client, type Transport } from '@modelcontextprotocol/client';
import { cancelEndsCall } from '../cancel-ends-call.js';
import { duplicateText } from '../duplicate-names.js';
import type { Io } from '../io.js';
import { connectTimeoutFrom, revisionFrom, TARGET_OPTIONS, targetFrom } from '../options.js';
import { inLine, joinLines, shownIo } from '../shown.js';
import { stopSignals } from '../signals.js';
import { connectionLost, connectTo, splitCommand, type Target } from '../target.js';
import { EXIT, refuseEmptyValues, UsageError, wholeNumber } from '../usage.js';

/**
 * How long the server may work on a call (`--timeout-ms`), not counting the time its questions wait
 * for the person: two questions that each take most of their ten minutes must not time the call out
 * after the person answered them.
 */
const CALL_TIMEOUT_MS = 15 * 60_000;
/** The SDK's own timeout, left to ours: setTimeout's largest delay (a larger one fires at once). */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/**
 * `elicitkit call <target> <tool> [k=v …] [--args JSON] [--answers FILE] [--secrets decline|warn] [--revision …|--era …] [--json]`.
 * Exit 0 done, 1 tool error, 2 usage, 3 declined or cancelled, 129 / 130 / 143 stopped by SIGHUP / SIGINT / SIGTERM.
 */
export async function call(argv: string[], io: Io): Promise<number> {
  const { before, command } = splitCommand(argv);
  const { values, positionals } = parseArgs({
    args: before,
    allowPositionals: true,
    options: {
      ...TARGET_OPTIONS,
      args: { type: 'string' },
      answers: { type: 'string' },
      secrets: { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
  });
  refuseEmptyValues(values);
  const [targetWord, toolName, ...words]: (string | undefined)[] =
    command === undefined ? positionals : [undefined, ...positionals];
  if (!toolName) throw new UsageError('missing <tool>: elicitkit call <target> <tool> [k=v …]');
  const target = targetFrom(targetWord, command, values);
  const revision = revisionFrom(values, io);
  const secrets = values.secrets ?? 'warn';
  if (secrets !== 'warn' && secrets !== 'decline')
    throw new UsageError(`--secrets must be decline or warn, not "${secrets}"`);
  const timeoutMs = wholeNumber('--timeout-ms', values['timeout-ms'], CALL_TIMEOUT_MS, 100, 24 * 3_600_000);
  const { renderer, done, cancelled } = pickRenderer(values.answers, io);
  // Counted from the first request after the connection is made (the connect has its own deadline).
  let deadline: ReturnType<typeof serverDeadline> | undefined;

  // A tool's result is checked against its output schema by a validator whose patterns run in
  // linear time: a hostile server's `pattern` cannot stall the terminal (or its Ctrl+C).
  const client = new Client(
    { name: 'elicitkit', version: '0.1.0' },
    { ...revisionOptions(revision), jsonSchemaValidator: new SchemaValidator() },
  );
  const refusals: string[] = [];
  const attachment = attach(client, {
    renderer,
    // --secrets decline: a form that asks for a password, token or key (EK09) is declined unseen.
    policy: { secrets },
    onEvent: (event) => {
      // The clock stops while a question waits for the person (a malformed one is not asked).
      if (event.type === 'request') deadline?.asking(event.id);
      if (event.type === 'answered' || event.type === 'rejected') deadline?.answered(event.id);
      describeEvent(event, shownIo(io));
      if (event.type === 'answered' && (event.action === 'decline' || event.action === 'cancel'))
        refusals.push(event.action);
      if (event.type === 'auto-declined' || event.type === 'timed-out' || event.type === 'invalid-answer')
        refusals.push('cancel');
    },
  });
  // Ctrl+C outside a question (inside one it cancels the question) or SIGTERM (a CI job's timeout):
  // the call is cancelled and the connection closed, so a stdio server this started stops too.
  const stop = stopSignals();
  let transport: Transport | undefined;
  try {
    transport = await connectTo(client, target, {
      revision,
      io,
      timeoutMs: connectTimeoutFrom(process.env),
      signal: stop.signal,
    });
    deadline = serverDeadline(timeoutMs);
    const signal = AbortSignal.any([stop.signal, deadline.signal]);
    const plan: CallPlan = {
      target,
      toolName,
      words: words as string[],
      values,
      refusals,
      cancelled,
      io,
      urlRequired: attachment.urlRequired,
      // 0 is no question's number: attach numbers them from 1.
      personBusy: (busy) => (busy ? deadline?.asking(0) : deadline?.answered(0)),
    };
    return await callOnce(client, plan, signal);
  } catch (error) {
    if (deadline?.signal.aborted && !stop.signal.aborted) {
      io.err(
        `elicitkit: the server worked on the call for more than ${timeoutMs} ms (not counting time a question waited for you); the call was cancelled. Give it longer with --timeout-ms.`,
      );
      return EXIT.toolError;
    }
    if (!stop.signal.aborted)
      throw transport
        ? connectionLost(transport, error, 'during the call, which may or may not have been done')
        : error;
    io.err(`elicitkit: stopped by ${String(stop.signal.reason)}; the call was cancelled and the server closed.`);
    return stop.exitCode();
  } finally {
    deadline?.stop();
    stop.dispose();
    // For a stdio server: its stdin ended, then SIGTERM, then SIGKILL (the SDK's close).
    await client.close().catch(() => {});
    done();
  }
}

/** What one call needs beyond the client: the command line as read, the refusals `attach` reports, where to print. */
interface CallPlan {
  target: Target;
  toolName: string;
  words: string[];
  values: { args?: string | undefined; json?: boolean | undefined };
  refusals: string[];
  /** Whether the person cancelled a question of the call (at the terminal: `cancelEndsCall`). */
  cancelled: () => boolean;
  io: Io;
  /** Puts the URL questions of a -32042 error to the person (`Attachment.urlRequired`). */
  urlRequired: Attachment['urlRequired'];
  /** The person is (or no longer is) busy with pages the server sent them to: the server's clock stops meanwhile. */
  personBusy(busy: boolean): void;
}

/** Finds the tool, builds its arguments, calls it and prints the result; resolves with the exit code. */
async function callOnce(client: Client, plan: CallPlan, signal: AbortSignal): Promise<number> {
  const { target, toolName, values, io } = plan;
  const { tools, skipped, fallback, duplicates } = await listToolsSafely(client, { signal });
  const duplicate = duplicates.find((d) => d.name === toolName);
  // Two different tools of this name: which one the call reaches is the server's pick, not ours.
  if (duplicate && !duplicate.same)
    throw new Error(
      `server "${inLine(client.getServerVersion()?.name ?? target.label)}": ${duplicateText(duplicate, (n) => `"${inLine(n)}"`)}; nothing was called`,
    );
  if (duplicate)
    shownIo(io).err(
      `elicitkit: warning: server "${inLine(client.getServerVersion()?.name ?? target.label)}": ${duplicateText(duplicate, (n) => `"${inLine(n)}"`)}`,
    );
  const tool = tools.find((t) => t.name === toolName);
  if (!tool && skipped.includes(toolName))
    throw new Error(
      `tool "${toolName}" of server "${inLine(client.getServerVersion()?.name ?? target.label)}" is not a tool as MCP defines one; it cannot be called`,
    );
  if (!tool)
    throw new UsageError(
      `${target.label} has no tool "${toolName}" (${tools.length > 0 ? `tools: ${someNames(tools)}` : 'it lists no tools'})`,
    );
  const server = client.getServerVersion();
  let args: Record<string, unknown>;
  try {
    args = toolArguments(tool.inputSchema, plan.words, values.args, {
      server: inLine(server?.name ?? target.label),
      tool: toolName,
    });
  } catch (error) {
    // A broken schema is the server's fault (exit 1, said plainly); a bad argument is the caller's.
    throw error instanceof ArgumentError ? new UsageError(error.message) : error;
  }
  shownIo(io).err(
    `Calling ${toolName} on ${inLine(server?.name ?? target.label)} (${client.getNegotiatedProtocolVersion?.() ?? 'unknown revision'})… the server may ask you questions.`,
  );
  // A list read tool by tool (one of them too deep for the SDK) left the SDK no definition of its own.
  const send = () =>
    client.callTool(
      { name: toolName, arguments: args },
      { timeout: NO_SDK_TIMEOUT, signal, ...(fallback ? { toolDefinition: tool } : {}) },
    );
  let result: Awaited<ReturnType<typeof send>>;
  try {
    result = await send();
  } catch (error) {
    // -32042: the server needs the person on a page of its own first (2025-11-25 URL mode).
    plan.personBusy(true);
    const pages = await plan.urlRequired(error, signal).finally(() => plan.personBusy(false));
    if (!pages) throw error;
    const human = shownIo(io);
    if (pages.action === 'rejected') {
      human.err(
        `elicitkit: the server asked for a page that cannot be shown: ${inLine(pages.message, 300)}; nothing was called`,
      );
      return EXIT.toolError;
    }
    if (pages.action !== 'accept') {
      human.err(
        `elicitkit: ${pages.action === 'decline' ? 'declined' : 'cancelled'} the page the server asked for first; ${toolName} was not called`,
      );
      return EXIT.refused;
    }
    if (!pages.finished) {
      human.err(
        `elicitkit: the server has not said the page is done; finish it, then run the call again (${toolName} was not called)`,
      );
      return EXIT.toolError;
    }
    // Once, not in a loop: a server that asks again is answered as any error.
    human.err(`The page is done; calling ${toolName} again…`);
    result = await send();
  }
  const status = (result.structuredContent as { status?: unknown } | undefined)?.status;
  if (values.json) {
    // At any depth: a result JSON.parse read, JSON.stringify may not write (it recurses).
    io.out(
      jsonText(
        { server: server ?? null, revision: client.getNegotiatedProtocolVersion?.() ?? null, result },
        { space: 2 },
      ) ?? 'null',
    );
  } else {
    // What the server says, printed for a person: nothing in it may drive the terminal.
    const human = shownIo(io);
    for (const block of (result.content ?? []) as { type: string; text?: string }[])
      human.out(block.type === 'text' ? (block.text ?? '') : `[${block.type}]`);
    if (typeof status === 'string') human.err(`status: ${inLine(status)}`);
  }
  if (status === 'declined' || status === 'cancelled') return EXIT.refused;
  if (result.isError) return plan.refusals.length > 0 && status === undefined ? EXIT.refused : EXIT.toolError;
  if (plan.cancelled()) {
    // Rule EK05: a success after the person's cancel is work that went on without them.
    shownIo(io).err(
      `elicitkit: warning: you cancelled, and ${toolName} went on to return a result (rule EK05: work continues after cancel); check what it did`,
    );
    return EXIT.refused;
  }
  return EXIT.ok;
}

/** The most tool names a message quotes: a server may list thousands. */
const NAMES_QUOTED = 20;

/** The first tools' names, each on the message's one line, and how many more there are. */
function someNames(tools: readonly { name: string }[]): string {
  const names = tools.slice(0, NAMES_QUOTED).map((t) => inLine(t.name, 100));
  return tools.length > NAMES_QUOTED ? `${names.join(', ')} and ${tools.length - NAMES_QUOTED} more` : names.join(', ');
}

/** What answers the server's questions, what to release when the call is over, and whether the person cancelled. */
interface Answerer {
  renderer: Renderer;
  done: () => void;
  cancelled: () => boolean;
}

const NOBODY_CANCELLED = () => false;

/** An answers file, else the terminal when there is one, else nothing (servers then fall back). */
function pickRenderer(answersFile: string | undefined, io: Io): Answerer {
  if (answersFile !== undefined) {
    let raw: unknown;
    let text: string;
    try {
      text = readFileSync(answersFile, 'utf8');
      raw = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--answers ${answersFile}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Typed by a person, as --args is: what JSON.parse would change (-0, 1e400, a key given twice) is
    // refused. An answer's whole number past ±2^53-1 read exactly is its form's to judge, as typed.
    const wrong = notAsTyped(text, { answer: true });
    if (wrong) throw new UsageError(`--answers ${answersFile}: ${wrong.path} ${wrong.why}; nothing was sent`);
    const parsed = parseAnswers(raw);
    if (!parsed.ok) throw new UsageError(`--answers ${answersFile}:\n${formatAnswerProblems(parsed.problems)}`);
    // No opener: a URL consented to from the file is reported (describeEvent), not opened.
    return { renderer: createScriptedRenderer(parsed.answers), done: () => {}, cancelled: NOBODY_CANCELLED };
  }
  const screen = process.stdin.isTTY ? questionScreen() : undefined;
  if (!screen) return { renderer: NO_ONE_TO_ASK, done: () => {}, cancelled: NOBODY_CANCELLED };
  // The person's cancel ends the call: a question asked after it is answered cancel, unseen.
  const renderer = cancelEndsCall(createTerminalRenderer({ input: process.stdin, output: screen.output }), (prompt) =>
    shownIo(io).err(
      `elicitkit: the server asked again after you cancelled (rule EK05: work continues after cancel); answered cancel without showing it: ${inLine(prompt.message, 200)}`,
    ),
  );
  return { renderer, done: screen.close, cancelled: renderer.cancelled };
}

/**
 * Where questions are drawn: where the person is, never stdout, which carries the result alone
 * (`> result.txt`, a pipe, `--json`). stderr when it is the terminal, else the terminal itself
 * (`2> log`); undefined when there is none to draw on.
 */
function questionScreen(): { output: Writable; close: () => void } | undefined {
  if (process.stderr.isTTY) return { output: process.stderr, close: () => {} };
  try {
    const tty = new WriteStream(openSync('/dev/tty', 'w'));
    return { output: tty, close: () => tty.destroy() };
  } catch {
    // No controlling terminal (or no /dev/tty, as on Windows).
    return undefined;
  }
}

/** Nobody can be asked (no terminal to read keys from or to draw on): no elicitation capability. */
const NO_ONE_TO_ASK: Renderer = {
  modes: { form: false, url: false },
  interactive: false,
  renderForm: () => Promise.reject(new Error('there is no terminal to ask in')),
  renderUrl: () => Promise.reject(new Error('there is no terminal to ask in')),
};

/**
 * One stderr line (or a few) per thing the person should know about a question. `io` is the
 * cleaning one (`shownIo`): titles, field names, issues and URLs here are the server's text.
 */
function describeEvent(event: ElicitationEvent, io: Io): void {
  switch (event.type) {
    case 'rejected':
      io.err(`elicitkit: refused a malformed question from the server: ${joinLines(event.message)}`);
      break;
    case 'auto-declined':
      io.err(
        `elicitkit: declined a question automatically (${event.reason === 'secret-field' ? 'it asked for a secret' : 'too many questions'})`,
      );
      break;
    case 'invalid-answer':
      io.err(
        `elicitkit: the scripted answer did not fit the form, so the question was cancelled:\n${event.issues.map((i) => `  - ${joinLines(i.message)}`).join('\n')}`,
      );
      break;
    case 'renderer-failed':
      io.err(
        event.error instanceof ScriptError
          ? `elicitkit: the answers file could not answer a question, so it was cancelled: ${event.error.message}`
          : `elicitkit: the question could not be asked, so it was cancelled: ${event.error instanceof Error ? event.error.message : String(event.error)}`,
      );
      break;
    case 'url-consented':
      io.err(urlConsented(event));
      break;
    case 'timed-out':
      io.err('elicitkit: no answer in time; the question was cancelled.');
      break;
    default:
      break;
  }
}

/** The consented page and what became of it: one no opener opened (an answers file) must still be visitable. */
function urlConsented(event: Extract<ElicitationEvent, { type: 'url-consented' }>): string {
  if (event.opened === 'yes') return `elicitkit: opened ${event.url}`;
  if (event.opened === 'no-opener') return `elicitkit: consented to ${event.url} (not opened here): open it yourself.`;
  const why = event.error instanceof Error ? ` (${event.error.message})` : '';
  return `elicitkit: could not open ${event.url}${why}: open it yourself.`;
}
