import { cookies, headers } from 'next/headers';
import { AuditView } from '../../components/audit-view';
import { auditTrail } from '../../lib/audit';
import { isLocale, localeFromHeader } from '../../lib/locale';

export const dynamic = 'force-dynamic';

/** Every question opsdesk asked, what the person did, and what the server made of it. */
export default async function AuditPage() {
  // The page's saved language (a cookie the chat page sets), else the browser's.
  const saved = (await cookies()).get('elicitkit_locale')?.value;
  const locale = isLocale(saved) ? saved : localeFromHeader((await headers()).get('accept-language'));
  try {
    return <AuditView trail={await auditTrail()} locale={locale} />;
  } catch (error) {
    // A bad configuration or an unreadable database: say so instead of a bare error page.
    return (
      <AuditView trail={undefined} failure={error instanceof Error ? error.message : String(error)} locale={locale} />
    );
  }
}
