import { EXIT } from './usage.js';

/** What stops a command that talks to a server: Ctrl+C (SIGINT) or a CI job's timeout (SIGTERM). */
export interface StopSignals {
  /** Aborts, with the signal's name as its reason, when the process receives SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** The exit code for the signal received: 130 for SIGINT, 143 for SIGTERM. */
  exitCode(): number;
  /** Gives the signals back to Node's default (the process dies of them again). */
  dispose(): void;
}

/**
 * Takes SIGINT and SIGTERM for the length of a command, so it can close what it started (a stdio
 * server ends only when told: its stdin ended, then SIGTERM, then SIGKILL) before it exits, instead
 * of dying at once and leaving that server running, orphaned.
 *
 * @example
 * const stop = stopSignals();
 * try { await connectTo(client, target, { revision, io, signal: stop.signal }); } finally { stop.dispose(); }
 */
export function stopSignals(): StopSignals {
  const stopped = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => stopped.abort(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: stopped.signal,
    exitCode: () => (stopped.signal.reason === 'SIGINT' ? EXIT.interrupted : EXIT.terminated),
    dispose() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}
