/**
 * @deprecated `POST /api/session/identity` is `POST /api/chat/identity`
 * (`app/api/chat/identity/route.ts`): kept for one release, for pages loaded before the rename.
 * Remove after the next release.
 */
export { POST } from '../../chat/identity/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
