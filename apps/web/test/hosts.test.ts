import { describe, expect, it } from 'vitest';
import { allowedHosts, foreignRequest, hostName } from '../lib/hosts';
import { proxy } from '../proxy';

const request = (host: string | undefined, init: { method?: string; origin?: string } = {}) =>
  new Request('http://127.0.0.1:3000/api/chat', {
    method: init.method ?? 'GET',
    headers: { ...(host === undefined ? {} : { host }), ...(init.origin ? { origin: init.origin } : {}) },
  });

describe('host and origin checks', () => {
  it('serves the loopback names on any port', () => {
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST', '127.0.0.1']) {
      expect(foreignRequest(request(host))).toBeUndefined();
    }
  });

  it('refuses other host names, as a rebinding page would send them, and a missing or malformed Host', () => {
    expect(foreignRequest(request('attacker.example:3000'))).toMatch(/attacker\.example:3000.*ELICITKIT_ALLOWED_HOSTS/);
    expect(foreignRequest(request('localhost.attacker.example'))).toBeDefined();
    expect(foreignRequest(request(undefined))).toBeDefined();
    expect(hostName('local host')).toBeUndefined();
    expect(hostName('127.0.0.1:3000/x')).toBeUndefined();
  });

  it('lets another site link to the page, never reach the API (not even a GET from an <img>)', () => {
    const fetched = (path: string, site: string, mode: string) =>
      foreignRequest(
        new Request(`http://127.0.0.1:3000${path}`, {
          headers: { host: '127.0.0.1:3000', 'sec-fetch-site': site, 'sec-fetch-mode': mode },
        }),
      );
    expect(fetched('/api/chat/info', 'cross-site', 'no-cors')).toBe('Requests from another site are not accepted.');
    expect(fetched('/api/tools', 'cross-site', 'cors')).toBeDefined();
    expect(fetched('/api/chat/info', 'cross-site', 'navigate')).toBeDefined();
    expect(fetched('/', 'cross-site', 'navigate')).toBeUndefined();
    expect(fetched('/api/chat/info', 'same-origin', 'cors')).toBeUndefined();
    // Another port of the same host is the same site, not our origin: it may link, not reach the API.
    expect(fetched('/api/chat/info', 'same-site', 'cors')).toBe('Requests from another origin are not accepted.');
    expect(fetched('/api/tools', 'same-site', 'no-cors')).toBeDefined();
    expect(fetched('/', 'same-site', 'navigate')).toBeUndefined();
    expect(fetched('/api/chat/info', 'none', 'navigate')).toBeUndefined();
  });

  it('adds hosts from ELICITKIT_ALLOWED_HOSTS', () => {
    const allowed = allowedHosts({ ELICITKIT_ALLOWED_HOSTS: ' Chat.Internal.example , ,ops.example' });
    expect(foreignRequest(request('chat.internal.example'), allowed)).toBeUndefined();
    expect(foreignRequest(request('ops.example:8443'), allowed)).toBeUndefined();
    expect(foreignRequest(request('other.example'), allowed)).toBeDefined();
  });

  it('refuses writes whose Origin is another host, and accepts same-origin ones', () => {
    expect(foreignRequest(request('localhost:3000', { method: 'POST', origin: 'http://localhost:3000' }))).toBe(
      undefined,
    );
    expect(foreignRequest(request('localhost:3000', { method: 'POST', origin: 'http://localhost:4000' }))).toMatch(
      /not accepted/,
    );
    expect(foreignRequest(request('localhost:3000', { method: 'POST', origin: 'null' }))).toMatch(/not accepted/);
    // Reads carry no Origin check (a navigation from elsewhere is fine; it cannot read the answer).
    expect(foreignRequest(request('localhost:3000', { origin: 'https://elsewhere.example' }))).toBeUndefined();
  });

  it('over https, refuses a write whose Origin is the same host over plain http', () => {
    const allowed = allowedHosts({ ELICITKIT_ALLOWED_HOSTS: 'chat.example.com' });
    const write = (url: string, origin: string, headers: Record<string, string> = {}) =>
      foreignRequest(
        new Request(url, { method: 'POST', headers: { host: 'chat.example.com', origin, ...headers } }),
        allowed,
      );
    const proxied = { 'x-forwarded-proto': 'https' };
    expect(write('https://chat.example.com/api/chat', 'http://chat.example.com')).toMatch(/not accepted/);
    expect(write('http://chat.example.com/api/chat', 'http://chat.example.com', proxied)).toMatch(/not accepted/);
    expect(write('https://chat.example.com/api/chat', 'https://chat.example.com')).toBeUndefined();
    expect(write('http://chat.example.com/api/chat', 'https://chat.example.com', proxied)).toBeUndefined();
    // Plain http says nothing of the page's scheme (a proxy may not say it terminated TLS): both pass.
    expect(write('http://chat.example.com/api/chat', 'http://chat.example.com')).toBeUndefined();
    expect(write('http://chat.example.com/api/chat', 'https://chat.example.com')).toBeUndefined();
  });

  it('the proxy answers 403 with the reason, and lets ours through', async () => {
    const refused = proxy(request('attacker.example'));
    expect(refused?.status).toBe(403);
    expect(await refused?.text()).toContain('attacker.example');
    expect(proxy(request('localhost:3000'))).toBeUndefined();
  });

  it("a refusal a person reads is in their browser's language, sent as UTF-8", async () => {
    const zh = (host: string, headers: Record<string, string>, method = 'GET') =>
      new Request('http://127.0.0.1:3000/api/chat', {
        method,
        headers: { host, 'accept-language': 'zh-CN,zh;q=0.9', ...headers },
      });
    // A host typed in the address bar (a LAN address): the page it gets.
    const refused = proxy(zh('192.168.1.5:3000', {}));
    expect(refused?.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await refused?.text()).toBe('这里不提供主机“192.168.1.5:3000”；要加入它，请设置 ELICITKIT_ALLOWED_HOSTS。');
    expect(foreignRequest(zh('localhost:3000', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }))).toBe(
      '不接受来自其他站点的请求。',
    );
    expect(foreignRequest(zh('localhost:3000', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' }))).toBe(
      '不接受来自其他源的请求。',
    );
    expect(foreignRequest(zh('localhost:3000', { origin: 'http://evil.example' }, 'POST'))).toBe(
      '不接受来自 http://evil.example 的请求。',
    );
  });
});
