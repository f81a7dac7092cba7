import type { NextConfig } from 'next';

const config: NextConfig = {
  // Server-side code that spawns processes, opens SQLite or speaks MCP runs from node_modules as is.
  serverExternalPackages: [
    'better-sqlite3',
    '@modelcontextprotocol/client',
    '@modelcontextprotocol/server',
    '@elicitkit/client',
    '@elicitkit/opsdesk',
    '@elicitkit/server',
    'ioredis',
  ],
  reactStrictMode: true,
  poweredByHeader: false,
  devIndicators: false,
  // No page may frame the app: a frame from another port of the same host (the same site) carries
  // the SameSite=Strict chat cookie, so a page there could lay a decoy over the person's own chat
  // and have them click its Run and Submit; a frame from another site would open a chat against
  // their address on every load. Both headers: CSP for browsers that read it, the other for the rest.
  //
  // And on every response: no content-type sniffing (a JSON answer holding markup is never read as
  // a page), no Referer to another origin (`same-origin`; not `no-referrer`, which makes the
  // browser send `Origin: null` on the page's own POSTs, refused by proxy.ts), no <base> or plugin
  // content and no form posting elsewhere, another origin's window kept apart from ours (COOP) and
  // our responses not embeddable by another origin (CORP). Pages and routes holding a chat's
  // questions, answers or the audit trail are never stored by a cache (`no-store`).
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          {
            key: 'Content-Security-Policy',
            value: "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'",
          },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
          { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
        ],
      },
      { source: '/api/:path*', headers: [{ key: 'Cache-Control', value: 'no-store' }] },
      { source: '/audit', headers: [{ key: 'Cache-Control', value: 'no-store' }] },
    ];
  },
};

export default config;
