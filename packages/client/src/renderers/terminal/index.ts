import type { Readable, Writable } from 'node:stream';
import type { ElicitAction } from '@elicitkit/form';
import type { Opener, Renderer } from '../../types.js';
import { say } from './draw.js';
import { runForm } from './form.js';
import { clean } from './format.js';
import type { Io } from './io.js';
import { createSystemOpener } from './open.js';
import { inTurn } from './turns.js';
import { runConsent } from './url.js';

/**
 * Streams and opener of the terminal renderer.
 *
 * @example
 * createTerminalRenderer({ input: process.stdin, output: process.stderr });
 */
export interface TerminalRendererOptions {
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`; pass `process.stderr` when stdout carries results (`--json`). */
  output?: Writable;
  /** Default: the system browser. */
  opener?: Opener;
}

/**
 * Asks in the terminal with clack: the asking server and its message, warnings, then one prompt
 * per field (arrow keys for choices, space to toggle, y/N, one-line text with inline validation,
 * defaults pre-filled) and a review step (Submit / Edit / Decline / Cancel); what the review shows is
 * what is sent, so a default the person cleared stays empty. Esc or Ctrl+C at any
 * point cancels; the cancelled prompt then reads "cancelled", never a value the person did not
 * choose. Help and warnings wrap between words to the terminal's width (80 columns when it is not
 * a terminal), every line behind the gutter. URL mode shows the full URL with its host highlighted
 * and asks before opening; once the server says the person finished on the page (2025-11-25), it
 * says so. One question at a time per input stream, whichever renderer or client
 * it comes from: a key press is never taken by two questions.
 * It can honour both modes only when stdin is a terminal or streams were given; otherwise its
 * `modes` are both false and `attach` declares no elicitation capability.
 *
 * @example
 * attach(client, { renderer: createTerminalRenderer({ output: process.stderr }) });
 */
export function createTerminalRenderer(options: TerminalRendererOptions = {}): Renderer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const usable = options.input !== undefined || options.output !== undefined || process.stdin.isTTY === true;
  return {
    modes: { form: usable, url: usable },
    interactive: true,
    // Every default is pre-filled and the review shows what is left empty: send that, as reviewed.
    prefillsDefaults: true,
    opener: options.opener ?? createSystemOpener(),
    renderForm: (prompt, signal) =>
      inTurn(input, signal, CANCELLED, () =>
        finish({ input, output, signal }, 'Answered.', runForm({ input, output, signal }, prompt)),
      ),
    renderUrl: (prompt, signal) =>
      inTurn(input, signal, CANCELLED, () =>
        finish(
          { input, output, signal },
          'Consent given: finish on the page in your browser.',
          runConsent({ input, output, signal }, prompt),
        ),
      ),
    // The server told the page is done: the person need not look for it any more.
    urlCompleted: (prompt) => say(output, 'success', `Finished on the page at ${clean(prompt.host)}.`),
  };
}

const CANCELLED = { action: 'cancel' } as const;

/** Says on screen how the question ended, so the person knows what the server was told. */
async function finish<A extends { action: ElicitAction }>(io: Io, accepted: string, answering: Promise<A>): Promise<A> {
  const answer = await answering;
  if (io.signal.aborted) say(io.output, 'warn', 'Stopped: the question was withdrawn or no answer came in time.');
  else if (answer.action === 'accept') say(io.output, 'success', accepted);
  else if (answer.action === 'decline') say(io.output, 'info', 'Declined: nothing was shared.');
  else say(io.output, 'warn', 'Cancelled: the operation stops here.');
  return answer;
}

export { createSystemOpener, type Spawn, type SystemOpenerOptions } from './open.js';
