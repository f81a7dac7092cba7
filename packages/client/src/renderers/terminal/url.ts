import type { Readable } from 'node:stream';
import { styleText } from 'node:util';
import { note } from '@clack/prompts';
import type { UrlAnswer, UrlPrompt } from '../../types.js';
import { say } from './draw.js';
import { clean, highlightedUrl } from './format.js';
import { drawHeader } from './header.js';
import { chooseKey, type Io } from './io.js';

/**
 * Consent to open a link: the full URL with the host standing out, every warning in plain words,
 * then Decline (Enter) / Open / Cancel. Enter declines, so opening always takes a deliberate key,
 * and only a key pressed once the link is on screen: keys typed ahead (an `o` meant for something
 * else, a paste, a key pressed while the server worked) were waiting in the input and would have
 * opened a link nobody had seen.
 */
export async function runConsent(io: Io, prompt: UrlPrompt): Promise<UrlAnswer> {
  drawHeader(io, prompt);
  const host = styleText(['bold', 'inverse'], ` ${clean(prompt.host)} `);
  // The registrable domain says who owns the page: accounts.example.com.evil.test is evil.test's.
  const site =
    prompt.site === undefined
      ? ''
      : `Site: ${styleText(['bold', 'inverse'], ` ${clean(prompt.site)} `)} (who owns the page)\n`;
  note(`${highlightedUrl(prompt)}\n\n${site}Host: ${host}`, 'Link', { output: io.output });
  for (const warning of prompt.warnings) {
    say(io.output, 'warn', `${styleText(['bold', 'yellow'], 'Careful:')} ${clean(warning.message)}`);
  }
  discardTypedAhead(io.input);
  const choice = await chooseKey(io, 'Open this link in your browser?', [
    { key: 'd', value: 'decline', label: 'Decline', hint: 'do not open it' },
    { key: 'o', value: 'open', label: 'Open in the browser' },
    { key: 'c', value: 'cancel', label: 'Cancel', hint: 'stop the whole operation' },
  ]);
  switch (choice) {
    case 'open':
      return { action: 'accept' };
    case 'decline':
      return { action: 'decline' };
    default:
      return { action: 'cancel' };
  }
}

/**
 * Drops what the input holds unread: keys that came before the question was drawn. (Reading a
 * paused stream hands them to its keypress decoder, and no prompt is listening yet.)
 */
function discardTypedAhead(input: Readable): void {
  if (input.readableFlowing === true) return;
  while (input.read() !== null) {
    // discarded
  }
}
