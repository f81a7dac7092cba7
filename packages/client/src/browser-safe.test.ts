import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
/** What a browser host (the web app, React) uses: none of it may reach Node-only code. */
const BROWSER_ENTRIES = [
  'index.ts',
  'typed-json.ts',
  'schema-validator.ts',
  'attach/index.ts',
  'checks/form.ts',
  'checks/url.ts',
  'policy/index.ts',
  'registry/memory.ts',
  'renderers/registry/index.ts',
  'renderers/scripted/index.ts',
  'renderers/scripted/answers.ts',
];

/** Every module reachable from `entry`, with the bare imports each makes. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const source = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map(
      (m) => m[1] as string,
    );
    seen.set(
      file,
      specifiers.filter((s) => !s.startsWith('.')),
    );
    for (const s of specifiers.filter((s) => s.startsWith('.'))) {
      visit(relative(SRC, join(SRC, dirname(file), s.replace(/\.js$/, '.ts'))));
    }
  };
  visit(entry);
  return seen;
}

describe('browser-safe modules', () => {
  it.each(BROWSER_ENTRIES)('%s reaches no Node-only module and no terminal code', (entry) => {
    const modules = reachable(entry);
    expect(modules.size).toBeGreaterThan(0);
    for (const [file, imports] of modules) {
      expect(file, `${entry} reaches ${file}`).not.toMatch(/renderers\/terminal\//);
      for (const specifier of imports) {
        expect(specifier, `${file} imports ${specifier}`).not.toMatch(/^node:|^@clack\//);
      }
    }
  });

  it('loads the Public Suffix List only when a URL question comes (bench/cold-start.ts counts imports)', () => {
    for (const entry of ['index.ts', 'terminal.ts']) {
      for (const [file, imports] of reachable(entry)) expect(imports, `${file} imports tldts`).not.toContain('tldts');
    }
    expect(readFileSync(join(SRC, 'checks/site.ts'), 'utf8')).toContain("import('tldts')");
  });

  it('sees through re-exports (the check would catch the terminal renderer)', () => {
    const modules = reachable('terminal.ts');
    expect([...modules.keys()]).toContain('renderers/terminal/open.ts');
    expect(modules.get('renderers/terminal/open.ts')).toContain('node:child_process');
  });
});
