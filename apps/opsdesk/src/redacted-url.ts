/**
 * A service URL as a log line or an error may show it: its password, if any, hidden.
 *
 * @example
 * redactedUrl('postgres://ops:s3cret@db:5432/opsdesk') // 'postgres://ops:***@db:5432/opsdesk'
 */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}
