/**
 * @deprecated `GET /api/session` is `GET /api/chat/info` (`app/api/chat/info/route.ts`): kept for
 * one release, for pages loaded before the rename (and `bench/`, which loads this file). Remove
 * with `session/close` and `session/identity` after the next release.
 */
export { GET } from '../chat/info/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
