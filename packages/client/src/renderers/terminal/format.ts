import { styleText } from 'node:util';
import type { ServerIdentity, UrlPrompt } from '../../types.js';

/**
 * Server-supplied text is printed to a terminal: control characters (cursor movement, colours,
 * OSC links) and bidi overrides could redraw the screen or disguise a URL, so they are removed.
 */
export function clean(text: string): string {
  return (
    text
      .replace(/\t/g, '  ')
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
  );
}

export function serverLine(server: ServerIdentity | undefined): string {
  if (!server) return `${styleText('bold', 'An unidentified server')} asks:`;
  const name = clean(server.title ?? server.name);
  const also = server.title && server.title !== server.name ? ` (${clean(server.name)})` : '';
  return `${styleText('bold', name)}${also} ${styleText('dim', `v${clean(server.version)}`)} asks:`;
}

/** The URL with its host standing out, so `https://paypal.com@evil.example/` reads for what it is. */
export function highlightedUrl(prompt: UrlPrompt): string {
  const before = prompt.url.slice(0, prompt.hostIndex);
  const after = prompt.url.slice(prompt.hostIndex + prompt.host.length);
  return `${styleText('dim', before)}${styleText(['bold', 'underline'], prompt.host)}${styleText('dim', after)}`;
}
