import type { Locale, ToolContext } from '@elicitkit/server';
import type { Query } from './db/query.js';
import type { Store } from './db/store.js';
import { accountOf, findAccount, type Identity } from './identity.js';
import type { ShopClient } from './shop/client.js';
import type { Workspace } from './sync/workspace.js';
import type { PasswordLinks } from './web/password-links.js';

/** What every opsdesk tool is built with. */
export interface Deps {
  /** opsdesk's own state: SQLite by default, Postgres for replicas on several hosts. */
  store: Store;
  /** The demo shop, in its own file and on its own connection: execute_sql's only database. */
  shop: ShopClient;
  locale: Locale;
  workspace: Workspace;
  links: PasswordLinks;
  now: () => Date;
}

/**
 * The caller: the account the kit's identity names (`accountIdentity`), under its name now; or
 * undefined when opsdesk does not know them (a removed account, however its name is used since;
 * no identity): tools then refuse with a status.
 */
export function* findCaller(ctx: Pick<ToolContext, 'user'>): Query<Identity | undefined> {
  const account = accountOf(ctx.user);
  return account === undefined ? undefined : yield* findAccount(account);
}
