import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { fromError, fromResult, outcomeLabel, succeeded } from './classify.js';

describe('call outcomes from types and codes, never from prose', () => {
  it('a timeout is the SDK RequestTimeout, whatever the message says', () => {
    expect(fromError(new SdkError(SdkErrorCode.RequestTimeout, 'whatever'), 12)).toEqual({
      kind: 'timeout',
      afterMs: 12,
    });
    expect(fromError(new Error('Request timed out'), 12)).toMatchObject({ kind: 'failed' });
    expect(fromError(new SdkError(SdkErrorCode.ConnectionClosed, 'timed out?'), 1)).toEqual({
      kind: 'failed',
      sdkCode: 'CONNECTION_CLOSED',
      message: 'timed out?',
    });
  });

  it('a JSON-RPC error keeps its code', () => {
    expect(fromError(new ProtocolError(ProtocolErrorCode.InternalError, 'x'), 1)).toEqual({
      kind: 'error',
      code: -32603,
      message: 'x',
    });
    expect(outcomeLabel(fromError(new ProtocolError(-32021, 'x'), 1))).toBe('error -32021');
  });

  it('success is structuredContent.status "done"; without a status, isError alone, marked ambiguous', () => {
    const text = [{ type: 'text' as const, text: 'Done! 完成' }];
    expect(succeeded(fromResult({ content: text, structuredContent: { status: 'done' } }))).toEqual({
      done: true,
      ambiguous: false,
    });
    expect(succeeded(fromResult({ content: text, structuredContent: { status: 'cancelled' } }))).toEqual({
      done: false,
      ambiguous: false,
    });
    const reason = 'the result has no structuredContent.status';
    expect(succeeded(fromResult({ content: text }))).toEqual({ done: true, ambiguous: true, reason });
    expect(succeeded(fromResult({ content: [{ type: 'text', text: 'cancelled, nothing done' }] }))).toEqual({
      done: true,
      ambiguous: true,
      reason,
    });
    expect(succeeded(fromResult({ content: text, isError: true }))).toEqual({ done: false, ambiguous: true, reason });
    expect(succeeded({ kind: 'timeout', afterMs: 1 })).toEqual({ done: false, ambiguous: false });
    expect(fromResult({ content: text, structuredContent: { status: 7 } })).toMatchObject({ kind: 'result' });
    expect('status' in fromResult({ content: text, structuredContent: { status: 7 } })).toBe(false);
  });

  it('a status doctor does not know is judged by isError, marked ambiguous with the reason; a known one is not', () => {
    const text = [{ type: 'text' as const, text: 'Deployed order-service to dev.' }];
    const reason = (status: string) => `its structuredContent.status "${status}" is none doctor knows`;
    expect(succeeded(fromResult({ content: text, structuredContent: { status: 'deployed' } }))).toEqual({
      done: true,
      ambiguous: true,
      reason: reason('deployed'),
    });
    expect(succeeded(fromResult({ content: text, structuredContent: { status: 'ok' }, isError: true }))).toEqual({
      done: false,
      ambiguous: true,
      reason: reason('ok'),
    });
    expect(succeeded(fromResult({ content: text }))).toMatchObject({
      reason: 'the result has no structuredContent.status',
    });
    for (const status of ['declined', 'pending', 'timeout', 'failed', 'error', 'canceled'])
      expect(succeeded(fromResult({ content: text, structuredContent: { status } })), status).toEqual({
        done: false,
        ambiguous: false,
      });
  });
});
