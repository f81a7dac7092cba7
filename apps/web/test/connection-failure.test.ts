/**
 * The classification that decides whether a chat drops its connection to a server: by error type
 * and cause, from real failures where they can be made (a refused fetch, a reset stream), and the
 * SDK's own error classes for the rest. Nothing a working server answers counts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/service.js';
import { connectionFailure, watchedFetch } from '../lib/connection-failure';

describe('connectionFailure', () => {
  it('a refused fetch is refused: its TypeError carries ECONNREFUSED as the cause', async () => {
    const error = await fetch(`http://127.0.0.1:${await freePort()}/mcp`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(connectionFailure(error)).toBe('refused');
  });

  it('a response stream cut by the server is lost, and watchedFetch reports it', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n', () => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reported: string[] = [];
    const seen = new Promise<void>((resolve) => {
      const fetchWatched = watchedFetch({
        failed: (kind) => {
          reported.push(kind);
          resolve();
        },
        answered: () => {},
      });
      void (async () => {
        const response = await fetchWatched(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        const error = await response.text().catch((e: unknown) => e);
        expect(connectionFailure(error)).toBe('lost');
      })();
    });
    await seen;
    expect(reported).toEqual(['lost']);
    server.close();
  });

  it('HTTP 404 (unknown session) and the SDK’s ConnectionClosed', () => {
    expect(connectionFailure(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 404 }))).toBe(
      'session-unknown',
    );
    expect(connectionFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'))).toBe('lost');
  });

  it('localhost tried on several addresses is refused only when every one was', () => {
    const refused = Object.assign(new Error('a'), { code: 'ECONNREFUSED' });
    const reset = Object.assign(new Error('b'), { code: 'ECONNRESET' });
    expect(connectionFailure(new TypeError('fetch failed', { cause: new AggregateError([refused, refused]) }))).toBe(
      'refused',
    );
    expect(connectionFailure(new AggregateError([refused, reset]))).toBe('lost');
  });

  it('what a working server answers, timeouts, aborts and other HTTP statuses are not connection failures', () => {
    expect(connectionFailure(new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown tool'))).toBeUndefined();
    expect(connectionFailure(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'))).toBeUndefined();
    expect(
      connectionFailure(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 500 })),
    ).toBeUndefined();
    expect(connectionFailure(new DOMException('aborted', 'AbortError'))).toBeUndefined();
    expect(connectionFailure(new Error('ECONNREFUSED in the text only'))).toBeUndefined();
    expect(connectionFailure('ECONNRESET')).toBeUndefined();
    // A cause chain that loops ends.
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(connectionFailure(a)).toBeUndefined();
  });
});
