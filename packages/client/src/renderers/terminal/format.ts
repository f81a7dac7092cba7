import { styleText } from 'node:util';
import type { ServerIdentity, UrlPrompt } from '../../types.js';

/**
 * Text a server (or a caller through one) chose, made fit for a terminal: control characters
 * (cursor movement, colours, OSC links, clearing the screen, writing the clipboard, overwriting a
 * line) and bidi overrides could redraw the screen or disguise a URL, so they are removed; tabs
 * become two spaces, line breaks stay (`\r\n` and `\r` become `\n`). The terminal renderer runs
 * every server text through it; print anything else a server sent through it too.
 *
 * @example
 * clean('done\u001b[2J') // 'done[2J'
 */
export function clean(text: string): string {
  return (
    text
      .replace(/\t/g, '  ')
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
  );
}

/**
 * The most of a server's name, title or version shown. Self-reported, they say who asks and no
 * more: a megabyte of name took seconds to wrap before every question.
 */
const IDENTITY_SHOWN = 200;

/** One of the server's names on one line, cut after IDENTITY_SHOWN characters. */
function identityText(text: string): string {
  const shown = clean(text.slice(0, IDENTITY_SHOWN)).replace(/\n/g, ' ');
  return text.length > IDENTITY_SHOWN ? `${shown}…` : shown;
}

export function serverLine(server: ServerIdentity | undefined): string {
  if (!server) return `${styleText('bold', 'An unidentified server')} asks:`;
  const name = identityText(server.title ?? server.name);
  const also = server.title && server.title !== server.name ? ` (${identityText(server.name)})` : '';
  return `${styleText('bold', name)}${also} ${styleText('dim', `v${identityText(server.version)}`)} asks:`;
}

/** The URL with its host standing out, so `https://paypal.com@evil.example/` reads for what it is. */
export function highlightedUrl(prompt: UrlPrompt): string {
  // A parsed URL holds no control characters; cleaned all the same, as every server text is.
  const before = clean(prompt.url.slice(0, prompt.hostIndex));
  const after = clean(prompt.url.slice(prompt.hostIndex + prompt.host.length));
  return `${styleText('dim', before)}${styleText(['bold', 'underline'], clean(prompt.host))}${styleText('dim', after)}`;
}
