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
  return {
    label: target.label,
    throwAway: false,
    transport: () => transportFor(target),
    close: async () => {},
  };
}
