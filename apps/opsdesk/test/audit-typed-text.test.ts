/**
 * The trail masks what a person typed (default redaction), in the response record and in the
 * validation record's issues. opsdesk's checks quote typed text reshaped by `oneLine` —
 * execute_sql cuts a wrong typed table name to 80 characters, deploy_service folds a run of
 * spaces in an unknown ticket — and the mask, which looked for the text only as typed, missed it:
 * the typed text was stored in clear in `audit_validations`. Real SDK client over loopback HTTP;
 * the trail read from opsdesk.db.
 */
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { httpClient, httpOpsdeskForSuite, peek, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();

const trail = (dir: string) =>
  JSON.stringify([peek(dir, 'SELECT content FROM audit_responses'), peek(dir, 'SELECT issues FROM audit_validations')]);

describe('typed text stays out of the audit trail', () => {
  it('deploy_service: a ticket typed with a run of spaces is not stored in clear', async () => {
    const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    try {
      // Pasted into the ticket box by mistake; oneLine folds the run of spaces in the refusal.
      c.script.push({ action: 'accept', content: { confirmed: true, ticket: 'Hunter2  Secret77' } });
      const r = await callTool(c.client, 'deploy_service', { service: 'order-service', env: 'prod' });
      expect(r.status).toBe('invalid');
      expect(trail(served.dataDir)).not.toContain('Hunter2');
    } finally {
      await c.close();
    }
  });

  it('execute_sql: a long wrong table name typed in the confirmation is not stored in clear', async () => {
    const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    try {
      const typed = `PrivateNote${'x'.repeat(100)}`;
      c.script.push({ action: 'accept', content: { understood: true, typedTableName: typed } });
      const r = await callTool(c.client, 'execute_sql', { sql: 'DELETE FROM order_items' });
      expect(r.status).toBe('invalid');
      expect(trail(served.dataDir)).not.toContain('PrivateNote');
    } finally {
      await c.close();
    }
  });
});
