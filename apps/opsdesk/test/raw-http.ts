import { connect } from 'node:net';

/**
 * One HTTP request written by hand on a fresh socket (`head`: the request line and headers, each
 * ending in CRLF); resolves with the status line, the headers (lower-cased) and the body once the
 * server closes. For what no HTTP client sends: a Host no URL can hold, a foreign Host.
 */
export function rawRequest(port: number, head: string): Promise<{ status: string; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}Connection: close\r\n\r\n`));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      out += d;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [top = '', body = ''] = out.split('\r\n\r\n');
      const [status = '', ...headers] = top.split('\r\n');
      resolve({ status, headers: headers.join('\n').toLowerCase(), body });
    });
  });
}

/**
 * The status opsdesk answers a 2025 `initialize` carrying `token` as its bearer with: 200 for a
 * token that names an account, 401 for one that names nobody (lapsed, removed, never issued).
 */
export async function initializeStatus(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'token-check', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}
