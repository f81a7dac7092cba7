import { EXIT } from './usage.js';

/**
 * What stops a command that talks to a server: Ctrl+C (SIGINT), a CI job's timeout (SIGTERM), or
 * its terminal closing (SIGHUP: the window closed, the SSH connection dropped).
 */
export interface StopSignals {
  /** Aborts, with the signal's name as its reason, when the process receives SIGHUP, SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** The exit code for the signal received: 129 for SIGHUP, 130 for SIGINT, 143 for SIGTERM. */
  exitCode(): number;
  /** Gives the signals back to Node's default (the process dies of them again). */
  dispose(): void;
}

/**
 * Takes SIGHUP, SIGINT and SIGTERM for the length of a command, so it can close what it started (a
 * stdio server ends only when told: its stdin ended, then SIGTERM, then SIGKILL) and give the
 * terminal back as it found it (a question on screen holds it raw, its cursor hidden) before it
 * exits, instead of dying at once and leaving that server running, orphaned.
 *
 * @example
 * const stop = stopSignals();
 * try { await connectTo(client, target, { revision, io, signal: stop.signal }); } finally { stop.dispose(); }
 */
const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

export function stopSignals(): StopSignals {
  const stopped = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => stopped.abort(signal);
  for (const name of SIGNALS) process.once(name, onSignal);
  return {
    signal: stopped.signal,
    exitCode: () =>
      stopped.signal.reason === 'SIGINT'
        ? EXIT.interrupted
        : stopped.signal.reason === 'SIGHUP'
          ? EXIT.hungUp
          : EXIT.terminated,
    dispose() {
      for (const name of SIGNALS) process.removeListener(name, onSignal);
    },
  };
}
