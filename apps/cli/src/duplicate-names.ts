import type { DuplicateName } from '@elicitkit/client';

/**
 * One line saying what is wrong with `duplicate` (for a warning, an error, doctor's report).
 *
 * @example
 * duplicateText({ name: 'deploy', count: 2, same: false }) // 'tools/list gives 2 different tools named "deploy": …'
 */
export function duplicateText(duplicate: DuplicateName, name: (text: string) => string = JSON.stringify): string {
  return duplicate.same
    ? `tools/list gives the tool ${name(duplicate.name)} ${duplicate.count} times (a tool name must be unique in the list)`
    : `tools/list gives ${duplicate.count} different tools named ${name(duplicate.name)}: a call of that name reaches whichever the server picks (a tool name must be unique in the list)`;
}
