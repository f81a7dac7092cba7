import type { Revision } from '@elicitkit/form';
import type { KnownClient } from '@elicitkit/form/clients';
import type { ClientCapabilities } from '@modelcontextprotocol/client';

/** One way a client can show up: a protocol revision and the elicitation modes it declares. */
export interface Profile {
  id: string;
  /** The revision the client speaks (`revisionOptions`). */
  revision: Revision;
  modes: { form: boolean; url: boolean };
  capabilities: ClientCapabilities;
  /** The known client this profile plays (`--clients`): it announces that client's `clientInfo.name`. */
  client?: KnownClient;
}

const both = { elicitation: { form: {}, url: {} } };
const formOnly = { elicitation: { form: {} } };
/** A client that opens pages but draws no forms (legal since 2025-11-25): a form sent to it is EK01. */
const urlOnly = { elicitation: { url: {} } };

/** Every client shape doctor plays: each revision, with and without the capability, form-only, url-only and form+url. */
export const PROFILES: readonly Profile[] = [
  {
    id: '2025-11-25 form+url',
    revision: '2025-11-25',
    modes: { form: true, url: true },
    capabilities: both,
  },
  {
    id: '2025-11-25 form',
    revision: '2025-11-25',
    modes: { form: true, url: false },
    capabilities: formOnly,
  },
  {
    id: '2025-11-25 url',
    revision: '2025-11-25',
    modes: { form: false, url: true },
    capabilities: urlOnly,
  },
  {
    id: '2025-06-18 elicitation:{}',
    revision: '2025-06-18',
    modes: { form: true, url: false },
    capabilities: { elicitation: {} },
  },
  {
    id: '2025-11-25 no elicitation',
    revision: '2025-11-25',
    modes: { form: false, url: false },
    capabilities: {},
  },
  {
    id: '2026-07-28 form+url',
    revision: '2026-07-28',
    modes: { form: true, url: true },
    capabilities: both,
  },
  {
    id: '2026-07-28 form',
    revision: '2026-07-28',
    modes: { form: true, url: false },
    capabilities: formOnly,
  },
  {
    id: '2026-07-28 url',
    revision: '2026-07-28',
    modes: { form: false, url: true },
    capabilities: urlOnly,
  },
  {
    id: '2026-07-28 no elicitation',
    revision: '2026-07-28',
    modes: { form: false, url: false },
    capabilities: {},
  },
];

/**
 * How doctor answers every question of one call (`none`: the client cannot be asked). `explore`
 * is accept-defaults with answers changed along a path: a call of the tree walk (`explore.ts`).
 */
export type Strategy = 'accept-defaults' | 'accept-empty' | 'decline' | 'cancel' | 'explore' | 'none';

/** Every strategy, in the order doctor tries them and reports show them. */
export const STRATEGIES: readonly Strategy[] = [
  'accept-defaults',
  'accept-empty',
  'decline',
  'cancel',
  'explore',
  'none',
];

/** True for the strategies that accept: the ones a destructive tool is spared unless allowed. */
export function accepts(strategy: Strategy): boolean {
  return strategy === 'accept-defaults' || strategy === 'accept-empty' || strategy === 'explore';
}

/** True when the profile declares any elicitation mode. */
export function canElicit(profile: Profile): boolean {
  return profile.modes.form || profile.modes.url;
}

/** How doctor answers: every answer in turn where the client can ask; a single call where it cannot. */
export function strategiesFor(profile: Profile): Strategy[] {
  return canElicit(profile) ? ['accept-defaults', 'accept-empty', 'decline', 'cancel'] : ['none'];
}
