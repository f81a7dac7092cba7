import type { Database } from './db/open.js';
import { plucked, prepared } from './db/statements.js';

/** What a person can do with a service. One grant covers all three (SPEC §4: bob sees, deploys and reports on search-service). */
export type Access = 'see' | 'deploy' | 'report';

/** The services one person may act on, and the one question every tool asks of it. */
export interface Permissions {
  username: string;
  /** Services this person may see, deploy and report on, sorted. */
  services: readonly string[];
  /** Whether `service` exists *and* this person may `access` it; an invisible service answers like a missing one. */
  may(access: Access, service: string): boolean;
}

/**
 * The one permission model: owners (the local stdio user) act on every service; anyone else on the
 * services granted in `permissions` (`*` grants all). Every tool asks this, never the tables.
 *
 * @example
 * const p = permissionsFor(db, 'bob');
 * p.services;                          // ['search-service']
 * p.may('deploy', 'order-service');    // false — and the same for a service that does not exist
 */
export function permissionsFor(db: Database, username: string): Permissions {
  const user = prepared(db, 'SELECT role FROM users WHERE username = ?').get(username) as { role: string } | undefined;
  const grants = plucked(db, 'SELECT project FROM permissions WHERE username = ?').all(username) as string[];
  const all = plucked(db, 'SELECT name FROM services ORDER BY name').all() as string[];
  const services = !user
    ? []
    : user.role === 'owner' || grants.includes('*')
      ? all
      : all.filter((s) => grants.includes(s));
  return {
    username,
    services,
    may: (_access, service) => services.includes(service),
  };
}
