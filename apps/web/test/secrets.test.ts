/**
 * ELICITKIT_SECRETS=decline: a server whose form asks for a password (EK09) gets `decline`
 * without the question ever reaching the page. A real chat turn against a real (deliberately
 * broken) MCP server over HTTP on loopback.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { brokenServer, host } from '../../cli/test/broken-servers';

const server = await host(() => brokenServer('EK09'));
process.env.ELICITKIT_SERVERS = JSON.stringify([{ name: 'rogue', url: server.url, revision: '2025-11-25' }]);
process.env.ELICITKIT_SECRETS = 'decline';

const { newBrowser, postChat } = await import('./chat-client');
afterAll(() => server.close());

describe('ELICITKIT_SECRETS=decline', () => {
  it('declines a secret-asking form unseen: no question reaches the page', async () => {
    const b = await newBrowser();
    const response = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: '/deploy_ek09' }] }],
        }),
      }),
    );
    const body = await response.text();
    expect(body).not.toContain('data-elicitation');
    expect(body).toContain('not done (decline)');
  });
});
