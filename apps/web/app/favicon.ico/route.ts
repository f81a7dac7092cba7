/**
 * `/favicon.ico`, which browsers ask for on their own: the page's icon is `app/icon.svg` (Next
 * links it), so this answer sends them there instead of a 404. A relative `Location`, so it holds
 * behind any host name.
 */
export function GET(): Response {
  return new Response(null, {
    status: 308,
    headers: { location: '/icon.svg', 'cache-control': 'public, max-age=86400' },
  });
}
