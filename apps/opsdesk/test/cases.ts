/**
 * One scenario per opsdesk tool that asks, with the answers that make each outcome happen and a
 * view of the state that must not move unless the answer was a valid accept.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Step } from '../../../test/support/mcp.js';
import { count, peek, peekShop } from './harness.js';

export interface ToolCase {
  tool: string;
  /** Prepares the data directory for one call (e.g. a fresh sync conflict) and returns the arguments. */
  arrange(dataDir: string, tag: string): Record<string, unknown>;
  /** The state a call may change only on a valid accept. */
  state(dataDir: string, tag: string): unknown;
  valid: (dataDir: string) => Step[];
  invalid: Step[];
  /** What the invalid answer's reasons must mention. */
  invalidReason: RegExp;
}

const accept = (content: Record<string, unknown>): Step => ({ action: 'accept', content });

/** Acts as the person's browser on the password page: loads it, then submits the form. */
export async function setPasswordOnPage(url: string, password = 'correct horse battery'): Promise<Response> {
  const page = await fetch(url);
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: new URL(url).origin },
    body: new URLSearchParams({ csrf, password, confirm: password }),
  });
}

function conflict(dataDir: string, tag: string): string {
  const path = `notes/${tag}.md`;
  for (const side of ['local', 'remote']) {
    const file = join(dataDir, 'workspace', side, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${side} edit of ${tag}\n`);
  }
  return path;
}

const both = (dataDir: string, tag: string) =>
  ['local', 'remote'].map((side) => readFileSync(join(dataDir, 'workspace', side, `notes/${tag}.md`), 'utf8'));

export const CASES: ToolCase[] = [
  {
    tool: 'deploy_service',
    arrange: () => ({ service: 'order-service', env: 'prod' }),
    state: (d) => count(d, 'deployments'),
    valid: () => [accept({ confirmed: true, ticket: 'REL-1001' })],
    invalid: [accept({ confirmed: true, ticket: 'REL-1002' })],
    invalidReason: /REL-1002 is pending, not approved/,
  },
  {
    tool: 'execute_sql',
    // Every row of a table, so it asks on every run (the table never empties).
    arrange: () => ({ sql: 'UPDATE products SET stock = stock + 1' }),
    state: (d) => peekShop(d, 'SELECT SUM(stock) AS s FROM products'),
    valid: () => [accept({ understood: true, typedTableName: 'products' })],
    invalid: [accept({ understood: true, typedTableName: 'orders' })],
    invalidReason: /"orders" is not the table this statement changes \(products\)/,
  },
  {
    tool: 'sync_file',
    arrange: (d, tag) => ({ path: conflict(d, tag) }),
    state: both,
    valid: () => [accept({ resolution: 'keep_local' })],
    invalid: [accept({ resolution: 'merge_magic' })],
    invalidReason: /must be one of the offered options/,
  },
  {
    tool: 'weekly_report',
    arrange: () => ({}),
    // Read-only: nothing may change, whatever the answer.
    state: (d) => [count(d, 'deployments'), count(d, 'users')],
    valid: () => [accept({ project: 'order-service', from: '2026-11-01', to: '2026-11-07' })],
    invalid: [accept({ project: 'order-service', from: '2026-02-30', to: '2026-03-02' })],
    invalidReason: /real calendar date/,
  },
  {
    tool: 'register_user',
    arrange: () => ({}),
    state: (d) => peek(d, 'SELECT username, password_hash IS NOT NULL AS has_password FROM users ORDER BY id'),
    valid: () => [
      accept({ username: `user${Math.floor(Math.random() * 1e6)}`, email: 'new@opsdesk.example', newsletter: true }),
      async (params) => {
        const response = await setPasswordOnPage(String(params.url));
        if (response.status !== 200) throw new Error(`password page answered ${response.status}`);
        return { action: 'accept' };
      },
    ],
    invalid: [accept({ username: 'alice', email: 'alice2@opsdesk.example', newsletter: false })],
    invalidReason: /username "alice" is taken/,
  },
];
