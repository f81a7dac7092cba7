import type { Transport } from '@modelcontextprotocol/client';
import { type Target, transportFor } from '../target.js';
import type { Preparation } from './fixtures.js';
import type { Profile } from './profiles.js';

/**
 * The server doctor examines, as its profiles reach it: a fresh transport per connection, and
 * for a throw-away server doctor started itself, a way to prepare its data before a call.
 */
export interface Endpoint {
  label: string;
  /** True only for a server doctor started itself on data it deletes afterwards. */
  throwAway: boolean;
  /** A new transport for one connection of `profile` (stdio targets start a new process). */
  transport(profile: Profile): Transport | Promise<Transport>;
  /** Writes a case's files into the server's data; absent where doctor must not touch the data. */
  prepare?(preparation: Preparation, stamp: string): void;
  /** Stops what doctor started and removes what it created. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Someone else's server: an http(s) URL or a command after `--`. Never throw-away, whatever it
 * is: doctor cannot know what its data is worth.
 *
 * @example
 * const endpoint = endpointFor(parseTarget(undefined, ['node', 'server.js']));
 */
export function endpointFor(target: Target): Endpoint {
  // Every transport handed out, so closing the endpoint (Ctrl+C, SIGTERM) stops each server a
  // profile started: one that does not end with its stdin would otherwise outlive doctor.
  const handedOut = new Set<Transport>();
  let closed = false;
  const stopping = () => new Error(`doctor is stopping: no new connection to ${target.label}`);
  return {
    label: target.label,
    throwAway: false,
    transport: () => {
      if (closed) throw stopping();
      const transport = closedForGood(transportFor(target), stopping);
      handedOut.add(transport);
      return transport;
    },
    close: async () => {
      closed = true;
      // Each transport, once closed, never starts: one handed out before this and started after
      // it (a profile's connect under way) is refused, so no server outlives doctor.
      await Promise.all([...handedOut].map((t) => t.close().catch(() => {})));
    },
  };
}

/**
 * `transport`, closed for good by its first `close()`: a `start()` after it is refused (nothing
 * started), and a `close()` during a `start()` waits for it to finish, then stops what it started.
 */
function closedForGood(transport: Transport, refusal: () => Error): Transport {
  const start = transport.start.bind(transport);
  const close = transport.close.bind(transport);
  let closeCalled = false;
  let starting: Promise<void> | undefined;
  transport.start = () => {
    if (closeCalled) return Promise.reject(refusal());
    starting = start();
    return starting;
  };
  transport.close = async () => {
    closeCalled = true;
    await starting?.catch(() => {});
    await close();
  };
  return transport;
}
