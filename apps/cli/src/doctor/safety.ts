import { createInterface } from 'node:readline/promises';
import type { Tool } from '@modelcontextprotocol/client';

/**
 * Whether a tool may destroy something, by its annotations. The MCP defaults apply when a hint
 * is absent: `readOnlyHint` false and `destructiveHint` true, so a tool that says nothing about
 * itself counts as destructive.
 *
 * @example
 * isDestructive({ name: 'drop', inputSchema: { type: 'object' } }) // → true (no annotations)
 * isDestructive({ name: 'list', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }) // → false
 */
export function isDestructive(tool: Pick<Tool, 'annotations'>): boolean {
  const a = tool.annotations;
  return a?.readOnlyHint !== true && a?.destructiveHint !== false;
}

/** What doctor says before it calls the tools of a server it did not start. */
export function liveServerWarning(label: string, allowDestructive: boolean): string {
  return [
    `elicitkit doctor: warning: about to call the tools of ${label}, which doctor did not start.`,
    '  Every tool is called under each client profile with sample arguments (or --fixtures).',
    allowDestructive
      ? '  --allow-destructive: questions of destructive tools and confirmations will be ACCEPTED.'
      : '  Destructive tools (by their annotations; no annotations counts as destructive) and confirmation\n' +
        '  questions are answered with decline and cancel only (--allow-destructive to accept them).',
    '  A tool that acts without asking still acts: choose tools with --tools/--skip, and point doctor',
    '  at a test instance, not at production.',
  ].join('\n');
}

/**
 * Asks a person at a terminal whether to go on (default no). Without a terminal there is nobody
 * to ask: doctor goes on with its safe defaults, having printed the warning.
 */
export async function confirmToProceed(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
): Promise<boolean> {
  if (input.isTTY !== true) return true;
  const rl = createInterface({ input, output });
  try {
    return /^y(es)?$/i.test((await rl.question('Continue? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}
