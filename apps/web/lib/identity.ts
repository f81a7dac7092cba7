/**
 * The demo identities of the bundled opsdesk (its seed users, `docs/opsdesk.md`, "Seed data"): `null` is the
 * local owner (the OS user, who sees every project). A demo switch so the permission model is
 * visible in the chat — not authentication.
 */
export const DEMO_USERS = ['alice', 'bob'] as const;
export type DemoUser = (typeof DEMO_USERS)[number];

export function isDemoUser(value: unknown): value is DemoUser {
  return typeof value === 'string' && (DEMO_USERS as readonly string[]).includes(value);
}
