import type { Locale, ToolContext } from '@elicitkit/server';
import type { Database } from './db/open.js';
import { findUser, type Identity } from './identity.js';
import type { ShopClient } from './shop/client.js';
import type { Workspace } from './sync/workspace.js';
import type { PasswordLinks } from './web/password-links.js';

/** What every opsdesk tool is built with. */
export interface Deps {
  db: Database;
  /** The demo shop, in its own file and on its own connection: execute_sql's only database. */
  shop: ShopClient;
  locale: Locale;
  workspace: Workspace;
  links: PasswordLinks;
  now: () => Date;
}

/** The caller, or undefined when opsdesk does not know them (a deleted user, a stale token): tools then refuse with a status. */
export function findCaller(db: Database, ctx: Pick<ToolContext, 'user'>): Identity | undefined {
  return ctx.user === undefined ? undefined : findUser(db, ctx.user);
}
