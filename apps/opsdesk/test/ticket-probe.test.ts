/**
 * "A service someone may not see answers exactly like one that does not exist, so nobody
 * can probe for names" (docs/opsdesk.md, Who may do what). bob may deploy search-service only; on
 * its production confirmation he types another service's ticket number. The answer must not name
 * the service that ticket belongs to (order-service, which bob may not see): a ticket of a service
 * he cannot see reads like a ticket that does not exist (it named order-service: ticket numbers
 * are sequential, so a client could list every hidden service). One who may see it is still told
 * whose it is. Real SDK client over loopback HTTP.
 */
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { httpClient, httpOpsdeskForSuite, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();

describe.each(['2025-11-25', '2026-07-28'] as const)(
  'deploy_service (%s): ticket numbers do not probe hidden services',
  (revision) => {
    it("bob's prod deploy of search-service with order-service's ticket does not name order-service", async () => {
      const c = await httpClient(served.server.url, tokenOf(served.server, 'bob'), { revision });
      try {
        // REL-1001 is order-service's approved ticket; REL-9999 does not exist.
        c.script.push({ action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } });
        const other = await callTool(c.client, 'deploy_service', { service: 'search-service', env: 'prod' });
        c.script.push({ action: 'accept', content: { confirmed: true, ticket: 'REL-9999' } });
        const missing = await callTool(c.client, 'deploy_service', { service: 'search-service', env: 'prod' });
        expect(other.status).toBe('invalid');
        expect(missing.status).toBe('invalid');
        // The hidden service's name must not appear anywhere in what bob is shown.
        expect(JSON.stringify(other.result)).not.toContain('order-service');
        // And the two refusals read alike apart from the number typed.
        expect(other.text.replaceAll('REL-1001', 'X')).toBe(missing.text.replaceAll('REL-9999', 'X'));
      } finally {
        await c.close();
      }
    });

    it("alice, who may see order-service, is told the ticket is order-service's", async () => {
      const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision });
      try {
        c.script.push({ action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } });
        const other = await callTool(c.client, 'deploy_service', { service: 'search-service', env: 'prod' });
        expect(other.status).toBe('invalid');
        expect(other.text).toContain('belongs to order-service');
      } finally {
        await c.close();
      }
    });
  },
);
