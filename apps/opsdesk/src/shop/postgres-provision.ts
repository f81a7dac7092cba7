import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { SHOP_TABLES, shopRows } from './seed.js';

/** How the shop's own role reaches the database: execute_sql's only way in. */
export interface ShopAccess {
  /** The opsdesk URL with the shop role's name and password. */
  url: string;
  role: string;
  /**
   * The roles the shop's connections log in as, one per connection, each starting as `role`
   * (`SET role`): Postgres lets a role stop (`pg_terminate_backend`, `pg_cancel_backend`) and read
   * the statements of its own connections only, so no statement can stop or read another
   * statement running beside it. Just `[role]` where opsdesk's user may not create roles.
   */
  logins: string[];
  /** The opsdesk URL with `login`'s name and the shop's password. */
  urlFor(login: string): string;
}

/** Temporary files one shop connection may have at a time (`temp_file_limit`). */
const SHOP_TEMP_FILES = '256MB';
/** Memory a sort or hash of the shop role takes before it spills to temporary files (`work_mem`). */
const SHOP_WORK_MEM = '4MB';

/** The advisory lock provisioning holds, so replicas starting together set the shop up once: "shop". */
const SHOP_LOCK = 0x73686f70;

/**
 * The demo shop on Postgres: schema `shop`, owned by a login role of its own that has no rights on
 * opsdesk's schema (`opsdesk`) — isolation by GRANT, whatever SQL the role is given. Made on first
 * use (role, password kept in `opsdesk.meta`, schema, seed) by opsdesk's own user, which needs the
 * right to create roles (CREATEROLE) that first time; later starts find it and check the grants.
 * The role is per database (`opsdesk_shop_<database>`), so several opsdesk databases can share a
 * server.
 *
 * @example
 * const access = await provisionShop(store.pool, url); // new pg.Pool({ connectionString: access.url })
 */
export async function provisionShop(pool: Pool, url: string, connections = 1): Promise<ShopAccess> {
  const client = await pool.connect();
  let role: string;
  let password: string;
  let logins: string[];
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${SHOP_LOCK})`);
    const database = (await client.query('SELECT current_database() AS name')).rows[0].name as string;
    role = roleFor(database);
    password = await storedPassword(client);
    const quoted = client.escapeIdentifier(role);
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
    // NOINHERIT and no membership: the role is only ever itself. Its password is set each start,
    // so the one in meta is the one that works.
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${quoted} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(password)}`,
    );
    // opsdesk's own user made the role and acts for it (the schema is created for it, reset drops
    // it): a membership that way round only; the shop role is never a member of anything.
    await client.query(`GRANT ${quoted} TO CURRENT_USER`);
    await client.query(`
      REVOKE ALL ON SCHEMA opsdesk FROM PUBLIC;
      REVOKE CREATE ON SCHEMA public FROM PUBLIC;
      CREATE SCHEMA IF NOT EXISTS shop AUTHORIZATION ${quoted};
      REVOKE ALL ON SCHEMA shop FROM PUBLIC;
      ALTER ROLE ${quoted} SET search_path = shop;
    `);
    await boundServerSide(client, quoted);
    logins = await loginsFor(client, role, password, connections);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  return {
    url: withUser(url, role, password),
    role,
    logins,
    urlFor: (login) => withUser(url, login, password),
  };
}

/**
 * `connections` login roles for the shop's connections (`<role>_1`…): each a member of the shop's
 * role and nothing else, NOINHERIT (it has no rights of its own: every session starts as the shop's
 * role), with the shop role's bounds and password. Where opsdesk's user may not create roles, the
 * shop role alone (as before there were any).
 */
async function loginsFor(client: PoolClient, role: string, password: string, connections: number): Promise<string[]> {
  const logins: string[] = [];
  await client.query('SAVEPOINT ek_logins');
  try {
    for (let i = 1; i <= connections; i++) {
      const login = `${role.slice(0, 63 - String(i).length - 1)}_${i}`;
      const quoted = client.escapeIdentifier(login);
      const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [login])).rowCount === 1;
      await client.query(
        `${exists ? 'ALTER' : 'CREATE'} ROLE ${quoted} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(password)}`,
      );
      await client.query(`GRANT ${client.escapeIdentifier(role)} TO ${quoted}`);
      await client.query(`ALTER ROLE ${quoted} SET role = ${client.escapeLiteral(role)}`);
      await client.query(`ALTER ROLE ${quoted} SET search_path = shop`);
      await boundServerSide(client, quoted);
      logins.push(login);
    }
    await client.query('RELEASE SAVEPOINT ek_logins');
    return logins;
  } catch (error) {
    // 42501: opsdesk's user may not create roles (it could once, to make the shop's own).
    if ((error as { code?: string }).code !== '42501') throw error;
    await client.query('ROLLBACK TO SAVEPOINT ek_logins');
    return [role];
  }
}

/**
 * What one statement of the shop role may use on the server. Temporary files (a sort, a hash, a
 * RETURNING kept for fetching) at most SHOP_TEMP_FILES per connection: past it PostgreSQL stops the
 * statement — no statement fills the disk. Memory for a sort or hash before it spills, a default
 * the role starts with whatever the server's own: work_mem is anyone's to raise within a statement
 * (a function's SET), so this bounds the ordinary statement, and the time limit the rest.
 * temp_file_limit is a superuser's setting: a server where opsdesk's user may not set it
 * (`GRANT SET ON PARAMETER temp_file_limit TO <opsdesk's user>` allows it) keeps its own, shown by
 * the shop's settings.
 */
async function boundServerSide(client: PoolClient, role: string): Promise<void> {
  await client.query(`ALTER ROLE ${role} SET work_mem = '${SHOP_WORK_MEM}'`);
  await client.query('SAVEPOINT ek_temp_limit');
  try {
    await client.query(`ALTER ROLE ${role} SET temp_file_limit = '${SHOP_TEMP_FILES}'`);
    await client.query('RELEASE SAVEPOINT ek_temp_limit');
  } catch (error) {
    // 42501: not allowed to set it.
    if ((error as { code?: string }).code !== '42501') throw error;
    await client.query('ROLLBACK TO SAVEPOINT ek_temp_limit');
  }
}

/** `opsdesk_shop_<database>`, within Postgres's 63-character names. */
function roleFor(database: string): string {
  return `opsdesk_shop_${database.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

async function storedPassword(client: PoolClient): Promise<string> {
  const fresh = randomBytes(24).toString('base64url');
  await client.query("INSERT INTO opsdesk.meta (key, value) VALUES ('shop_password', $1) ON CONFLICT DO NOTHING", [
    fresh,
  ]);
  return (await client.query("SELECT value FROM opsdesk.meta WHERE key = 'shop_password'")).rows[0].value as string;
}

function withUser(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/**
 * Creates and fills the shop's tables through the shop's own connection (so it owns them), when
 * the schema has none: a fresh shop, or one reset.
 */
export async function seedShopIfEmpty(client: PoolClient): Promise<void> {
  await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${SHOP_LOCK})`);
  try {
    const tables = await client.query("SELECT 1 FROM pg_tables WHERE schemaname = 'shop' LIMIT 1");
    if (tables.rowCount === 0) {
      await client.query(SHOP_SCHEMA_POSTGRES);
      const rows = shopRows();
      for (const table of SHOP_TABLES) {
        const list = rows[table];
        const columns = Object.keys(list[0] ?? {});
        // One statement per table: the values as JSON, unpacked by Postgres.
        await client.query(
          `INSERT INTO shop.${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::shop.${table}, $1)`,
          [JSON.stringify(list)],
        );
      }
      // Ids were given: the counters continue after them.
      for (const table of SHOP_TABLES)
        await client.query(
          `SELECT setval(pg_get_serial_sequence('shop.${table}', 'id'), (SELECT max(id) FROM shop.${table}))`,
        );
    }
    // A sequence gives out values only through inserts (nextval: USAGE). Setting one (setval) is
    // not undone by a rollback, so a statement measured and rolled back before it is asked about
    // would already have done it: the role may not, on any of its sequences. Granting itself the
    // right again is a change to the sequence (its grants are part of it), asked about as one.
    await client.query('REVOKE UPDATE ON ALL SEQUENCES IN SCHEMA shop FROM CURRENT_USER');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** The shop's tables as on SQLite (`seed.ts`), in Postgres's types. */
const SHOP_SCHEMA_POSTGRES = `
CREATE TABLE shop.customers (
  id SERIAL PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE shop.products (
  id SERIAL PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL
);
CREATE TABLE shop.orders (
  id SERIAL PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES shop.customers(id), status TEXT NOT NULL,
  total_cents INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE shop.order_items (
  id SERIAL PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES shop.orders(id), product_id INTEGER NOT NULL REFERENCES shop.products(id),
  quantity INTEGER NOT NULL, price_cents INTEGER NOT NULL
);
`;
