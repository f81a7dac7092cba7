/**
 * @deprecated `POST /api/session/close` is `POST /api/chat/close` (`app/api/chat/close/route.ts`):
 * kept for one release, for pages loaded before the rename. Remove after the next release.
 */
export { POST } from '../../chat/close/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
