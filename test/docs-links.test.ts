/**
 * Every relative link in README.md and docs/*.md points at a file or directory that exists, and
 * every `#anchor` at a heading of its target (GitHub's slugs), so moving a section or a file
 * cannot leave a link behind.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, with inline code spans emptied. */
function prose(markdown: string): string {
  return markdown
    .split(/^```.*$[\s\S]*?^```$/m)
    .join('\n')
    .replace(/(`+)[^`]*?\1/g, '``');
}

/** GitHub's anchor for each heading of a file, duplicates numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.split(/^```.*$[\s\S]*?^```$/m).join('\n');
  for (const [, heading = ''] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every `[text](target)` and `![alt](target)` of a file that is not a URL. */
function relativeLinks(markdown: string): string[] {
  const links = [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  return links.map((m) => m[1] ?? '').filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function broken(file: string): string[] {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  const problems: string[] = [];
  for (const link of relativeLinks(markdown)) {
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) {
      problems.push(`${link}: ${relative(ROOT, target)} does not exist`);
      continue;
    }
    if (anchor === undefined || !target.endsWith('.md') || statSync(target).isDirectory()) continue;
    if (!anchors(readFileSync(target, 'utf8')).has(anchor))
      problems.push(`${link}: ${relative(ROOT, target)} has no heading #${anchor}`);
  }
  return problems;
}

describe('relative links in the documentation', () => {
  it('finds the documents and their links', () => {
    expect(DOCS).toContain('docs/ARCHITECTURE.md');
    expect(relativeLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(5);
  });

  it.each(DOCS)('%s: every relative link and anchor resolves', (file) => {
    expect(broken(file)).toEqual([]);
  });

  it('reads links and anchors as GitHub does', () => {
    const doc = '# A `b` (c)\n\n## A `b` (c)\n\n```\n[x](nowhere.md)\n```\n\nSee [`y`](z.md#q) and `[w](v.md)`.\n';
    expect([...anchors(doc)]).toEqual(['a-b-c', 'a-b-c-1']);
    expect(relativeLinks(doc)).toEqual(['z.md#q']);
  });
});
