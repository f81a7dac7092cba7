/**
 * The web app's `Status` (`lib/wire.ts`) is the server's `Status`: the web layer may not import
 * `@elicitkit/server`, so this test pins the copy — the types both ways when the tests are type
 * checked (`tsc -p apps/web/tsconfig.test.json`), and every locale's labels against `STATUSES` when run.
 */
import { type Status as ServerStatus, STATUSES } from '@elicitkit/server';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { PAGE_TEXTS, questionState, questionStatusText, resultStatusText } from '../components/texts';
import { LOCALES } from '../lib/locale';
import type { Status } from '../lib/wire';

describe('result statuses', () => {
  it("are the server's, and every locale labels each of them", () => {
    expectTypeOf<Status>().toEqualTypeOf<ServerStatus>();
    for (const locale of LOCALES) {
      expect(Object.keys(PAGE_TEXTS[locale].resultStatus).sort()).toEqual([...STATUSES].sort());
      for (const status of STATUSES) expect(resultStatusText(PAGE_TEXTS[locale], status)).not.toBe('');
    }
    expect(resultStatusText(PAGE_TEXTS.en, 'timeout')).toBe('timed out');
    expect(resultStatusText(PAGE_TEXTS.zh, 'declined')).toBe('已拒绝');
  });

  it("shows another server's status as sent, even one named like an object property", () => {
    expect(resultStatusText(PAGE_TEXTS.en, 'queued')).toBe('queued');
    expect(resultStatusText(PAGE_TEXTS.en, 'constructor')).toBe('constructor');
  });
});

describe("a question's line", () => {
  it('says how it stands, and once answered what the person did', () => {
    expect(questionState({ status: 'open' })).toBe('open');
    expect(questionState({ status: 'expired', action: 'cancel' })).toBe('expired');
    expect(questionState({ status: 'withdrawn', action: 'cancel' })).toBe('withdrawn');
    expect(questionState({ status: 'gone' })).toBe('gone');
    expect(questionState({ status: 'answered', action: 'accept' })).toBe('answered');
    expect(questionState({ status: 'answered', action: 'decline' })).toBe('declined');
    expect(questionState({ status: 'answered', action: 'cancel' })).toBe('cancelled');
    expect(questionState({ status: 'answered' })).toBe('cancelled');
    expect(questionStatusText(PAGE_TEXTS.en, { status: 'answered', action: 'accept' })).toBe('answered');
    expect(questionStatusText(PAGE_TEXTS.zh, { status: 'expired', action: 'cancel' })).toBe(
      '未在时限内回答：已告知工具超时',
    );
  });
});
