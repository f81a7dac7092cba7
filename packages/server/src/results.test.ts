import { describe, expect, it } from 'vitest';
import { MESSAGES } from './messages.js';
import { declinedResult, invalid, type ResultContext, unsupportedResult } from './results.js';

const text = (r: { content: unknown }) => (r.content as { text: string }[])[0]?.text ?? '';
const fields = (labels: string[], locale: 'en' | 'zh' = 'en'): ResultContext => ({
  tool: 'deploy_service',
  locale,
  question: 'prod',
  subject: { kind: 'fields', labels },
});

describe('result texts', () => {
  it('lists read as a sentence in both languages', () => {
    expect(MESSAGES.en.list(['A'])).toBe('A');
    expect(MESSAGES.en.list(['Environment', 'Release ticket'])).toBe('Environment and Release ticket');
    expect(MESSAGES.en.list(['A', 'B', 'C'])).toBe('A, B and C');
    expect(MESSAGES.zh.list(['项目', '开始日期', '结束日期'])).toBe('项目、开始日期和结束日期');
    expect(MESSAGES.zh.list(['项目', '开始日期'])).toBe('项目和开始日期');
  });

  it('a decline of several fields names them as a sentence', () => {
    expect(text(declinedResult(fields(['Confirmation', 'Release ticket'])))).toBe(
      'The user declined to provide Confirmation and Release ticket, so deploy_service did nothing. Do not ask again unless the user brings it up.',
    );
    expect(text(declinedResult(fields(['项目', '开始日期', '结束日期'], 'zh')))).toContain(
      '用户拒绝提供项目、开始日期和结束日期',
    );
  });

  it('a URL-mode decline names the page by its host, not the message', () => {
    const page: ResultContext = {
      tool: 'register_user',
      locale: 'en',
      question: 'password',
      subject: { kind: 'page', host: '127.0.0.1:7777' },
    };
    expect(text(declinedResult(page))).toBe(
      'The user declined to open the page on 127.0.0.1:7777, so register_user did nothing. Do not ask again unless the user brings it up.',
    );
    expect(text(declinedResult({ ...page, locale: 'zh' }))).toContain('用户拒绝打开 127.0.0.1:7777 上的页面');
  });

  it('an option label that already names its value is not doubled', () => {
    const r = unsupportedResult(
      fields(['Environment']),
      [
        {
          name: 'env',
          label: 'Environment',
          required: true,
          allowed: [
            { value: 'dev', label: 'Development (dev)' },
            { value: 'staging', label: '预发（staging）' },
            { value: 'prod', label: 'prod' },
            { value: 'qa', label: 'Quality' },
          ],
        },
      ],
      'no capability',
    );
    expect(text(r)).toContain(
      '- env (Environment, required): one of dev (Development), staging (预发), prod, qa (Quality)',
    );
  });

  it('invalid() says the arguments were refused before anything was asked', () => {
    const r = invalid(['From is not a date.', { field: 'to', message: 'To is before From.' }], { locale: 'en' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({
      status: 'invalid',
      message:
        'The arguments of this call were not accepted, so nothing was asked and nothing was done:\n- From is not a date.\n- To is before From.',
      issues: [
        { field: '', code: 'custom', message: 'From is not a date.' },
        { field: 'to', code: 'custom', message: 'To is before From.' },
      ],
    });
    expect(text(invalid('坏日期', { locale: 'zh' }))).toBe(
      '本次调用的参数未通过校验，没有提问，也没有执行任何操作：\n- 坏日期',
    );
  });
});
