/** A broken environment: the chat endpoint (`GET /api/chat/info`) says exactly what is wrong instead of failing blind. */
import { afterAll, expect, it } from 'vitest';

process.env.ELICITKIT_SERVERS = '[{"name":"x"}]';
const { GET } = await import('../app/api/chat/info/route');
afterAll(() => {
  delete process.env.ELICITKIT_SERVERS;
});

it('answers 500 with the configuration problem, and creates no chat', async () => {
  const response = await GET(new Request('http://localhost/api/chat/info'));
  expect(response.status).toBe(500);
  expect(response.headers.get('set-cookie')).toBeNull();
  expect(await response.json()).toEqual({
    error:
      'The configuration is invalid: ELICITKIT_SERVERS[0] needs "url" (a string) or "command" (a non-empty array of strings)',
  });
});
