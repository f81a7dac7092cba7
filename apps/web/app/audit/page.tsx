import { cookies, headers } from 'next/headers';
import Link from 'next/link';
import { auditTrail } from '../../lib/audit';
import { isLocale, type Locale, localeFromHeader } from '../../lib/locale';

/** The audit page's words, one table per locale. */
interface AuditTexts {
  title: string;
  back: string;
  unreadable: (why: string) => string;
  empty: string;
  columns: [when: string, what: string, user: string, asked: string, outcome: string, validation: string];
  notSent: (reason: string) => string;
}
const TEXTS = {
  en: {
    title: 'Audit trail',
    back: '← Back to the chat',
    unreadable: (why) => `The audit trail could not be read: ${why}`,
    empty: 'No elicitations yet.',
    columns: ['When', 'Tool / question', 'User', 'Asked', 'Outcome', 'Validation'],
    notSent: (reason) => ` (not sent: ${reason})`,
  },
  zh: {
    title: '审计记录',
    back: '← 返回对话',
    unreadable: (why) => `无法读取审计记录：${why}`,
    empty: '还没有任何询问。',
    columns: ['时间', '工具 / 问题', '用户', '询问内容', '结果', '校验'],
    notSent: (reason) => `（未发送：${reason}）`,
  },
} as const satisfies Record<Locale, AuditTexts>;

export const dynamic = 'force-dynamic';

type Row = Record<string, unknown>;

/** Every question opsdesk asked, what the person did, and what the server made of it. */
export default async function AuditPage() {
  // The page's saved language (a cookie the chat page sets), else the browser's.
  const saved = (await cookies()).get('elicitkit_locale')?.value;
  const locale = isLocale(saved) ? saved : localeFromHeader((await headers()).get('accept-language'));
  const t: AuditTexts = TEXTS[locale];
  let trail: ReturnType<typeof auditTrail>;
  let problem: string | undefined;
  try {
    trail = auditTrail();
  } catch (error) {
    // A bad configuration or an unreadable database: say so instead of a bare error page.
    problem = t.unreadable(error instanceof Error ? error.message : String(error));
  }
  const calls = new Map<string, { request?: Row; responses: Row[]; validations: Row[] }[]>();
  const byQuestion = new Map<string, { request?: Row; responses: Row[]; validations: Row[] }>();
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
  const rows = [...byQuestion.values()].reverse();
  return (
    <main className="audit" lang={locale === 'zh' ? 'zh-CN' : 'en'}>
      <header className="topbar">
        <h1>{t.title}</h1>
        <Link href="/">{t.back}</Link>
      </header>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">{t.empty}</p>
      ) : (
        <table className="audit-table">
          <thead>
            <tr>
              {t.columns.map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const r = e.request ?? e.responses[0] ?? e.validations[0] ?? {};
              const response = e.responses.at(-1);
              const validation = e.validations.at(-1);
              return (
                <tr key={`${String(r.context_id)}|${String(r.question)}`} data-tool={String(r.tool)}>
                  <td>
                    {String(r.at ?? '')
                      .replace('T', ' ')
                      .slice(0, 19)}
                  </td>
                  <td>
                    <code>{String(r.tool)}</code> / {String(r.question)}
                  </td>
                  <td>{String(r.username ?? '')}</td>
                  <td>
                    {e.request
                      ? `${String(e.request.message)}${e.request.delivered ? '' : t.notSent(String(e.request.reason))}`
                      : ''}
                  </td>
                  <td className={`outcome outcome-${String(response?.action ?? 'none')}`}>
                    {response
                      ? `${String(response.action)}${response.content ? ` ${JSON.stringify(response.content)}` : ''}`
                      : '—'}
                  </td>
                  <td>
                    {validation
                      ? validation.ok
                        ? 'ok'
                        : (validation.issues as { message: string }[]).map((i) => i.message).join(' ')
                      : '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </main>
  );
}
