import { get, type Query, remember, values } from './db/query.js';
import { type Identity, identityOf } from './identity.js';

/** What a person can do with a service. One grant covers all three (bob sees, deploys and reports on search-service). */
export type Access = 'see' | 'deploy' | 'report';

/** The services one person may act on, and the one question every tool asks of it. */
export interface Permissions {
  /** The account (`Identity.id`). */
  account: number;
  /** Services this person may see, deploy and report on, sorted. */
  services: readonly string[];
  /** Whether `service` exists *and* this person may `access` it; an invisible service answers like a missing one. */
  may(access: Access, service: string): boolean;
}

/** Whether a person may act on a service: owners on every one, anyone else where `permissions` grants it (`*` grants all). */
const GRANTED = `(u.role = 'owner' OR EXISTS (SELECT 1 FROM permissions p WHERE p.user_id = u.id AND p.project IN ('*', s.name)))`;

/**
 * The one permission model: owners (the local stdio user) act on every service; anyone else on the
 * services granted in `permissions` (`*` grants all). Every tool asks this (or `accessTo`), never
 * the tables. One statement, run on every call: nothing is cached, so a grant revoked or a user
 * removed applies from the next call (`accessTo`, the hot path, remembers its answer only until
 * the tables it reads change).
 *
 * @example
 * const p = await store.run(permissionsFor(bob.id));
 * p.services;                          // ['search-service']
 * p.may('deploy', 'order-service');    // false — and the same for a service that does not exist
 */
export function* permissionsFor(account: number): Query<Permissions> {
  const services = yield* values<string>(
    `SELECT s.name FROM users u JOIN services s ON ${GRANTED} WHERE u.id = ? ORDER BY s.name`,
    account,
  );
  return {
    account,
    services,
    may: (_access, service) => services.includes(service),
  };
}

/** What `accessTo` found: the caller, and the service's latest version if they may act on it. */
export interface ServiceAccess {
  caller: Identity;
  /** Undefined when the service does not exist or this person may not act on it (the two read alike). */
  latestVersion: string | undefined;
}

/**
 * The caller and their access to one service in one statement — the hot path of a tool that acts
 * on a service (each call of deploy_service asks it). Undefined when `account` is not an account
 * (removed: its id is never anyone else's).
 * Remembered (`remembered`) only until users, permissions or services change, by this process or
 * any other: a revoked grant applies from the next call.
 *
 * @example
 * const access = await store.run(accessTo(bob.id, 'deploy', 'order-service'));
 * access?.latestVersion; // undefined: bob may deploy search-service only
 */
export function* accessTo(account: number, _access: Access, service: string): Query<ServiceAccess | undefined> {
  return yield* remember(`access\0${account}\0${service}`, function* () {
    const row = yield* get<{
      id: number | string;
      username: string;
      role: Identity['role'];
      latest_version: string | null;
    }>(
      `SELECT u.id, u.username, u.role, s.latest_version FROM users u LEFT JOIN services s ON s.name = ? AND ${GRANTED} WHERE u.id = ?`,
      service,
      account,
    );
    if (!row) return undefined;
    return {
      caller: identityOf(row),
      latestVersion: row.latest_version ?? undefined,
    };
  });
}
