/**
 * Whether a URL is a web page (https or http), the only links the dialogs open. `@elicitkit/client`
 * refuses every other scheme before a prompt is built; a prompt a host built by hand may not have
 * been checked, and a `javascript:` link would run script, a `data:` or `file:` one would show
 * content no server's page vouches for.
 *
 * @example
 * isWebUrl('https://example.com/reset') // true
 * isWebUrl('javascript:alert(1)')       // false
 */
export function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
