import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

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

describe('subpath entries', () => {
  it('the main entry reaches no SQLite code, and of the node: modules only buffer (and crypto’s types) from digest.ts, and async_hooks’ types from http/listen-context.ts', () => {
    // Node, Bun and Deno all provide node:crypto and node:buffer (the Bun and Deno checks in
    // test/runtimes run the handler on each); nothing else Node-specific is reached. node:crypto
    // itself is taken on first use (process.getBuiltinModule), never at import: loading it was a
    // fifth of what importing the library cost a server's start. node:async_hooks likewise (Bun and
    // Deno have AsyncLocalStorage): its types at import, the module taken when a 2026-07-28 listen
    // request follows resources (http/listen-context.ts).
    const modules = reachable('index.ts');
    expect([...modules.keys()]).toContain('claims/memory.ts');
    expect([...modules.keys()]).not.toContain('claims/sqlite.ts');
    expect([...modules.keys()]).not.toContain('claims/redis.ts');
    for (const [file, imports] of modules) {
      for (const specifier of imports) {
        const allowed =
          (file === 'digest.ts' && (specifier === 'node:crypto' || specifier === 'node:buffer')) ||
          (file === 'http/listen-context.ts' && specifier === 'node:async_hooks');
        if (!allowed) expect(specifier, `${file} imports ${specifier}`).not.toMatch(/^node:|sqlite|redis/);
      }
    }
    expect(modules.get('digest.ts')).toEqual(['node:buffer', 'node:crypto']);
    const digest = readFileSync(join(SRC, 'digest.ts'), 'utf8');
    expect(digest).toMatch(/^import type \{[^}]*\} from 'node:crypto';$/m);
    expect(digest).not.toMatch(/^import \{[^}]*\} from 'node:crypto';$/m);
    const listen = readFileSync(join(SRC, 'http/listen-context.ts'), 'utf8');
    expect(listen).toMatch(/^import type \{[^}]*\} from 'node:async_hooks';$/m);
    expect(listen).not.toMatch(/^import \{[^}]*\} from 'node:async_hooks';$/m);
  });

  it('@elicitkit/server/node is where the Node listener lives, and the main entry does not reach it', () => {
    expect([...reachable('node.ts').keys()]).toContain('http/node-listener.ts');
    expect([...reachable('index.ts').keys()]).not.toContain('http/node-listener.ts');
  });

  it('@elicitkit/server/sqlite is where the SQLite store lives', () => {
    expect([...reachable('sqlite.ts').keys()]).toContain('claims/sqlite.ts');
  });

  it('@elicitkit/server/redis is where the Redis store lives', () => {
    expect([...reachable('redis.ts').keys()]).toContain('claims/redis.ts');
  });
});
