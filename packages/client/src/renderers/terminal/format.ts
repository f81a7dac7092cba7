import { styleText } from 'node:util';
import type { ContentValue, FieldModel } from '@elicitkit/form';
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

/** The prompt line for a field: its label, whether it may be left empty, its help and limits. */
export function fieldMessage(field: FieldModel): string {
  const optional = field.required ? '' : styleText('dim', ' (optional)');
  const limits = limitsOf(field);
  const lines = [`${clean(field.label)}${optional}${limits ? ` ${styleText('dim', `[${limits}]`)}` : ''}`];
  if (field.help) lines.push(styleText('dim', clean(field.help)));
  return lines.join('\n');
}

function limitsOf(field: FieldModel): string {
  switch (field.kind) {
    case 'text':
      return range(field.minLength, field.maxLength, 'characters');
    case 'email':
      return 'email address';
    case 'uri':
      return 'full URL';
    case 'date':
      return 'YYYY-MM-DD';
    case 'date-time':
      return 'date and time with zone, e.g. 2026-03-01T09:30:00Z';
    case 'number':
    case 'integer':
      return [field.kind === 'integer' ? 'whole number' : 'number', range(field.minimum, field.maximum, '')]
        .filter((s) => s !== '')
        .join(', ');
    case 'multiselect':
      return ['space to toggle', range(field.minItems, field.maxItems, 'choices')].filter((s) => s !== '').join(', ');
    case 'boolean':
    case 'select':
      return '';
  }
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  const suffix = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return `${min}–${max}${suffix}`;
  if (min !== undefined) return `at least ${min}${suffix}`;
  if (max !== undefined) return `at most ${max}${suffix}`;
  return '';
}

/** How an answer reads in the review step. Secrets are never echoed back. */
export function showValue(field: FieldModel, value: ContentValue | undefined, secret: boolean): string {
  if (value === undefined) return styleText('dim', '(empty)');
  if (secret) return '••••••';
  switch (field.kind) {
    case 'boolean':
      return value === true ? 'Yes' : 'No';
    case 'select':
      return clean(field.options.find((o) => o.value === value)?.label ?? String(value));
    case 'multiselect': {
      const chosen = Array.isArray(value) ? value : [];
      if (chosen.length === 0) return styleText('dim', '(none)');
      return chosen.map((v) => clean(field.options.find((o) => o.value === v)?.label ?? v)).join(', ');
    }
    default:
      return clean(String(value));
  }
}

/** The URL with its host standing out, so `https://paypal.com@evil.example/` reads for what it is. */
export function highlightedUrl(prompt: UrlPrompt): string {
  const before = prompt.url.slice(0, prompt.hostIndex);
  const after = prompt.url.slice(prompt.hostIndex + prompt.host.length);
  return `${styleText('dim', before)}${styleText(['bold', 'underline'], prompt.host)}${styleText('dim', after)}`;
}
