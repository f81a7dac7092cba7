import { describe, expect, it } from 'vitest';
import { publicApi } from '../../../packages/client/test/public-api.js';

// What the CLI, the web app and the bench use of opsdesk, on purpose: its tools, tables and
// permission model stay inside.
describe('the public API of @elicitkit/opsdesk', () => {
  const VALUES = [
    'KEPT_BY_RESET',
    'accountIdentityOf',
    'createOpsdesk',
    'defaultDataDir',
    'issueToken',
    'localeFrom',
    'openStore',
    'readAudit',
    'redactedUrl',
    'resetDemo',
    'serveHttp',
    'serveStdioOpsdesk',
  ];
  const TYPES = [
    'AuditTrail',
    'Database',
    'HttpServing',
    'Opsdesk',
    'OpsdeskOptions',
    'ResetOptions',
    'ResetReport',
    'ServeHttpOptions',
    'ServeStdioOptions',
    'StdioServing',
    'Store',
  ];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(new URL('./index.ts', import.meta.url))).toEqual({
      values: VALUES,
      types: TYPES,
      undocumented: [],
    });
  });
});
