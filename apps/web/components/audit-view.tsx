'use client';

import type { AuditTrail } from '@elicitkit/opsdesk';
import { plainText } from '@elicitkit/react';
import Link from 'next/link';
import type { Locale } from '../lib/locale';
import { wholeText } from '../lib/whole-text';

/** The audit page's words, one table per locale. */
interface AuditTexts {
  title: string;
  back: string;
  unreadable: (why: string) => string;
  empty: string;
  columns: [when: string, what: string, user: string, asked: string, outcome: string, validation: string];
  notSent: (reason: string) => string;
  /** A call refused without a question: what the "Asked" cell says. */
  refused: (message: string) => string;
  /** Shown instead of the trail when the browser has no open chat. */
  noChat: string;
  /** Whose records are shown. */
  scope: (viewer: string, everyone: boolean) => string;
}
const TEXTS = {
  en: {
    title: 'Audit trail',
    back: '← Back to the chat',
    unreadable: (why) => `The audit trail could not be read: ${why}`,
    empty: 'No elicitations yet.',
    columns: ['When', 'Tool / question', 'User', 'Asked', 'Outcome', 'Validation'],
    notSent: (reason) => ` (not sent: ${reason})`,
    refused: (message) => `Nothing asked — refused: ${message}`,
    noChat: 'Open the chat first: this page shows the records the chat’s user may see.',
    scope: (viewer, everyone) =>
      everyone
        ? `Everyone’s records: the chat acts as ${viewer}, an owner.`
        : `The records of ${viewer}’s own calls: the chat acts as ${viewer}.`,
  },
  zh: {
    title: '审计记录',
    back: '← 返回对话',
    unreadable: (why) => `无法读取审计记录：${why}`,
    empty: '还没有任何询问。',
    columns: ['时间', '工具 / 问题', '用户', '询问内容', '结果', '校验'],
    notSent: (reason) => `（未发送：${reason}）`,
    refused: (message) => `未询问——已拒绝：${message}`,
    noChat: '请先打开对话：本页只显示对话所用身份可以查看的记录。',
    scope: (viewer, everyone) =>
      everyone
        ? `所有人的记录：对话以 ${viewer}（所有者）的身份进行。`
        : `${viewer} 本人调用的记录：对话以 ${viewer} 的身份进行。`,
  },
} as const satisfies Record<Locale, AuditTexts>;

type Row = Record<string, unknown>;

/**
 * The audit trail as a table: every question opsdesk asked, what the person did, and what the
 * server made of it. Every text in it came from a server or a person (a message, an answer, a
 * username, a validation's words) and is drawn through `plainText`: a bidi override in an answer
 * must not make the trail read otherwise than what was recorded. A client component, as every user
 * of @elicitkit/react is here; the page hands it the trail as read.
 */
export function AuditView({
  trail,
  failure,
  scope,
  locale,
}: {
  trail: AuditTrail | undefined;
  /** Why the trail could not be read, if it could not. */
  failure?: string;
  /** Whose records `trail` holds (`auditFor`; said above it), or that the browser has no chat to show them to. */
  scope?: { viewer: string; everyone: boolean } | 'no-chat';
  locale: Locale;
}) {
  const t: AuditTexts = TEXTS[locale];
  const problem = failure !== undefined ? t.unreadable(failure) : scope === 'no-chat' ? t.noChat : undefined;
  type Entry = { request?: Row; responses: Row[]; validations: Row[]; refusal?: Row };
  const calls = new Map<string, Entry[]>();
  const byQuestion = new Map<string, Entry>();
  const entry = (r: Row) => {
    const key = `${r.context_id}|${r.question}`;
    let e = byQuestion.get(key);
    if (!e) {
      e = { responses: [], validations: [] };
      byQuestion.set(key, e);
      const list = calls.get(String(r.context_id)) ?? [];
      list.push(e);
      calls.set(String(r.context_id), list);
    }
    return e;
  };
  for (const r of trail?.requests ?? []) entry(r).request = r;
  for (const r of trail?.responses ?? []) entry(r).responses.push(r);
  for (const r of trail?.validations ?? []) entry(r).validations.push(r);
  // A refused call asked nothing: its refusal is its only row.
  for (const r of trail?.refusals ?? []) entry(r).refusal = r;
  const first = (e: Entry) => String((e.request ?? e.refusal ?? e.responses[0] ?? e.validations[0])?.at ?? '');
  const rows = [...byQuestion.values()].sort((a, b) => first(b).localeCompare(first(a)));
  return (
    <main className="audit" lang={locale === 'zh' ? 'zh-CN' : 'en'}>
      <header className="topbar">
        <h1>{t.title}</h1>
        <Link href="/">{t.back}</Link>
      </header>
      {trail && scope && scope !== 'no-chat' ? (
        <p className="muted">{plainText(t.scope(scope.viewer, scope.everyone))}</p>
      ) : null}
      {problem ? (
        <p className="error" role="alert">
          {text(problem)}
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">{t.empty}</p>
      ) : (
        <table className="audit-table">
          <thead>
            <tr>
              {t.columns.map((c, i) => (
                <th key={c} className={i === 0 ? 'when' : undefined}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const r = e.request ?? e.refusal ?? e.responses[0] ?? e.validations[0] ?? {};
              const response = e.responses.at(-1);
              const validation = e.validations.at(-1);
              return (
                <tr key={`${String(r.context_id)}|${String(r.question)}`} data-tool={text(r.tool)}>
                  <td className="when">{text(r.at).replace('T', ' ').slice(0, 19)}</td>
                  <td>
                    <code>{text(r.tool)}</code>
                    {e.refusal ? '' : ` / ${text(r.question)}`}
                  </td>
                  <td>{text(r.username)}</td>
                  <td>
                    {e.request
                      ? `${text(e.request.message)}${e.request.delivered ? '' : t.notSent(text(e.request.reason))}`
                      : e.refusal
                        ? t.refused(text(e.refusal.message))
                        : ''}
                  </td>
                  <td className={`outcome outcome-${e.refusal ? 'rejected' : text(response?.action ?? 'none')}`}>
                    {e.refusal
                      ? 'rejected'
                      : response
                        ? `${text(response.action)}${response.content ? ` ${text(JSON.stringify(response.content))}` : ''}`
                        : '—'}
                  </td>
                  <td>{validation ? (validation.ok ? 'ok' : issuesOf(validation)) : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </main>
  );
}

/**
 * A recorded value as text to draw: server or person's words, bidi overrides and controls removed,
 * half a character (a lone surrogate: a JSON column keeps one as `\ud800`) as U+FFFD — drawn the
 * same on the server and in the browser, so the page hydrates as it was sent.
 */
function text(value: unknown): string {
  return wholeText(plainText(value === undefined || value === null ? '' : String(value))).text;
}

/** A failed validation's words, whatever shape its record holds. */
function issuesOf(validation: Row): string {
  const issues = Array.isArray(validation.issues) ? (validation.issues as { message?: unknown }[]) : [];
  return issues.map((issue) => text(issue?.message)).join(' ');
}
