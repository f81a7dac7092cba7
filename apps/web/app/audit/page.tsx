import Link from 'next/link';
import { auditTrail } from '../../lib/audit';

export const dynamic = 'force-dynamic';

type Row = Record<string, unknown>;

/** Every question opsdesk asked, what the person did, and what the server made of it. */
export default function AuditPage() {
  let trail: ReturnType<typeof auditTrail>;
  let problem: string | undefined;
  try {
    trail = auditTrail();
  } catch (error) {
    // A bad configuration or an unreadable database: say so instead of a bare error page.
    problem = `The audit trail could not be read: ${error instanceof Error ? error.message : String(error)}`;
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
    <main className="audit">
      <header className="topbar">
        <h1>Audit trail</h1>
        <Link href="/">← Back to the chat</Link>
      </header>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">No elicitations yet.</p>
      ) : (
        <table className="audit-table">
          <thead>
            <tr>
              <th>When</th>
              <th>Tool / question</th>
              <th>User</th>
              <th>Asked</th>
              <th>Outcome</th>
              <th>Validation</th>
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
                      ? `${String(e.request.message)}${e.request.delivered ? '' : ` (not sent: ${String(e.request.reason)})`}`
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
