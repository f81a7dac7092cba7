import { AttachError } from '../errors.js';

/**
 * What the client does on its own, before and around the person.
 *
 * @example
 * const strict: Policy = { secrets: 'decline', rateLimit: { max: 3, perMs: 60_000 }, timeoutMs: 5 * 60_000 };
 */
export interface Policy {
  /**
   * Form fields that ask for a secret (rule EK09): `'warn'` shows the form with a prominent
   * warning; `'decline'` answers `decline` without showing anything. Default `'warn'`.
   */
  secrets?: 'warn' | 'decline';
  /**
   * At most `max` questions from one server every `perMs` milliseconds reach the person; the rest
   * are declined automatically. `false` turns the limit off. Default 5 per minute.
   */
  rateLimit?: { max: number; perMs: number } | false;
  /**
   * How long a person has to answer a question, from when it is shown (one waiting its turn behind
   * another has its whole time once shown), before the client answers `cancel`. Default 10 minutes.
   */
  timeoutMs?: number;
  /** How often an interactive renderer is asked again after an invalid answer. Default 3 attempts. */
  maxAttempts?: number;
}

export type ResolvedPolicy = Required<Policy>;

/**
 * The defaults: warn on secrets, 5 questions per server per minute, 10 minutes to answer, 3 attempts.
 *
 * @example
 * console.error(`Answer within ${DEFAULT_POLICY.timeoutMs / 60_000} minutes.`);
 */
export const DEFAULT_POLICY: Readonly<ResolvedPolicy> = Object.freeze({
  secrets: 'warn',
  rateLimit: Object.freeze({ max: 5, perMs: 60_000 }),
  timeoutMs: 10 * 60_000,
  maxAttempts: 3,
});

/** Fills in the defaults and refuses settings that cannot work, so a typo fails at `attach`, not mid-question. */
export function resolvePolicy(policy: Policy = {}): ResolvedPolicy {
  const resolved: ResolvedPolicy = { ...DEFAULT_POLICY, ...dropUndefined(policy) };
  if (resolved.secrets !== 'warn' && resolved.secrets !== 'decline') {
    throw new AttachError('BAD_POLICY', `policy.secrets must be 'warn' or 'decline', not ${String(resolved.secrets)}.`);
  }
  if (resolved.rateLimit !== false) {
    positive('policy.rateLimit.max', resolved.rateLimit.max, true);
    positive('policy.rateLimit.perMs', resolved.rateLimit.perMs, false);
  }
  positive('policy.timeoutMs', resolved.timeoutMs, false);
  positive('policy.maxAttempts', resolved.maxAttempts, true);
  return resolved;
}

function positive(name: string, value: number, integer: boolean): void {
  const ok = integer ? Number.isSafeInteger(value) && value >= 1 : Number.isFinite(value) && value > 0;
  if (!ok) {
    throw new AttachError(
      'BAD_POLICY',
      `${name} must be a positive ${integer ? 'whole number' : 'number'}, not ${value}.`,
    );
  }
}

function dropUndefined(policy: Policy): Policy {
  return Object.fromEntries(Object.entries(policy).filter(([, v]) => v !== undefined)) as Policy;
}
