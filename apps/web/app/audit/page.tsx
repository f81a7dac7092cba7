import { cookies, headers } from 'next/headers';
import { AuditView } from '../../components/audit-view';
import { auditFor } from '../../lib/audit';
import { overHttps } from '../../lib/hosts';
import { isLocale, LOCALE_COOKIE, localeFromHeader, SECURE_LOCALE_COOKIE } from '../../lib/locale';

export const dynamic = 'force-dynamic';

/**
 * What opsdesk asked, what the person did, and what the server made of it — as much of it as the
 * person the browser's chat acts as may see (`auditFor`): the request is rebuilt from the page's
 * headers so the chat cookie is read as the routes read it.
 */
export default async function AuditPage() {
  const head = await headers();
  const request = new Request(`http://${head.get('host') ?? 'localhost'}/audit`, { headers: head });
  // The page's saved language (a cookie the chat page sets), else the browser's.
  const saved = (await cookies()).get(overHttps(request) ? SECURE_LOCALE_COOKIE : LOCALE_COOKIE)?.value;
  const locale = isLocale(saved) ? saved : localeFromHeader(head.get('accept-language'));
  try {
    const audit = await auditFor(request);
    if (audit.viewer === undefined) return <AuditView trail={undefined} scope="no-chat" locale={locale} />;
    return <AuditView trail={audit.trail} scope={audit} locale={locale} />;
  } catch (error) {
    // A bad configuration or an unreadable database: say so instead of a bare error page.
    return (
      <AuditView trail={undefined} failure={error instanceof Error ? error.message : String(error)} locale={locale} />
    );
  }
}
