import { type Query, run, value } from './query.js';

/** The deterministic seed documented in `docs/opsdesk.md` ("Seed data") and relied on by tests and demos. */
const SERVICES = [
  { name: 'order-service', latest: 'v2.3.1', description: 'Takes and tracks customer orders' },
  { name: 'payment-service', latest: 'v1.8.0', description: 'Charges and refunds' },
  { name: 'user-service', latest: 'v3.0.2', description: 'Accounts and profiles' },
  { name: 'search-service', latest: 'v0.9.4', description: 'Product search' },
] as const;

const TICKETS = [
  { id: 'REL-1001', service: 'order-service', status: 'approved', title: 'Order history pagination' },
  { id: 'REL-1002', service: 'order-service', status: 'pending', title: 'Bulk order export' },
  { id: 'REL-2001', service: 'payment-service', status: 'approved', title: 'Refund retries' },
  { id: 'REL-3001', service: 'user-service', status: 'rejected', title: 'Drop legacy login' },
] as const;

const SEED_USERS = [
  { username: 'alice', email: 'alice@opsdesk.example', projects: ['*'] },
  { username: 'bob', email: 'bob@opsdesk.example', projects: ['search-service'] },
] as const;

/** A few past deployments, so weekly reports have something to say. */
const HISTORY = [
  ['order-service', 'dev', 'v2.3.0', null, 'alice', '2026-11-02T09:15:00Z'],
  ['order-service', 'staging', 'v2.3.0', null, 'alice', '2026-11-03T14:40:00Z'],
  ['order-service', 'prod', 'v2.3.0', 'REL-1001', 'alice', '2026-11-05T10:05:00Z'],
  ['search-service', 'dev', 'v0.9.4', null, 'bob', '2026-11-09T16:20:00Z'],
  ['payment-service', 'staging', 'v1.8.0', null, 'alice', '2026-11-12T11:00:00Z'],
  ['payment-service', 'prod', 'v1.8.0', 'REL-2001', 'alice', '2026-11-13T08:30:00Z'],
] as const;

/** The whole first-start seed: operations and the two demo users. */
export function* seed(now: string): Query<void> {
  // The users first: the seeded history names their accounts.
  for (const u of SEED_USERS) yield* addUser(u.username, u.email, 'member', u.projects, now);
  yield* seedOperations();
}

/** Services, release tickets and the deployment history: what the demo reset puts back. */
export function* seedOperations(): Query<void> {
  for (const s of SERVICES)
    yield* run(
      'INSERT INTO services (name, latest_version, description) VALUES (?, ?, ?)',
      s.name,
      s.latest,
      s.description,
    );
  for (const t of TICKETS)
    yield* run(
      'INSERT INTO release_tickets (id, service, status, title) VALUES (?, ?, ?, ?)',
      t.id,
      t.service,
      t.status,
      t.title,
    );
  // Each by the account holding the name now (after a reset: whoever holds it then), none if nobody does.
  for (const row of HISTORY)
    yield* run(
      'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at, deployed_by_id) VALUES (?, ?, ?, ?, ?, ?, (SELECT id FROM users WHERE username = ?))',
      ...row,
      row[4],
    );
}

/** A user with the projects they may act on (`*`: every one); its account id. */
export function* addUser(
  username: string,
  email: string | null,
  role: 'owner' | 'member',
  projects: readonly string[],
  now: string,
): Query<number> {
  const id = Number(
    yield* value<number | string>(
      'INSERT INTO users (username, email, role, created_at) VALUES (?, ?, ?, ?) RETURNING id',
      username,
      email,
      role,
      now,
    ),
  );
  // By the account, never the name: a grant is the new account's alone (schema.ts, v8).
  for (const p of projects)
    yield* run('INSERT INTO permissions (user_id, project) VALUES (?, ?) ON CONFLICT DO NOTHING', id, p);
  return id;
}
