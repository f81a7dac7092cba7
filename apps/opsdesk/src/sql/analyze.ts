import type { Token } from './tokenize.js';

/** What one statement does, read off its tokens. */
export type Analysis =
  | { kind: 'read' }
  | { kind: 'write'; verb: 'insert' | 'replace' | 'update' | 'delete'; table: string; hasWhere: boolean }
  | { kind: 'schema'; verb: 'create' | 'drop' | 'alter'; object: string; name: string }
  | { kind: 'other'; verb: string };

/**
 * A structural parse of the statement head: skips a WITH clause (CTEs), reads the verb and the
 * target, and looks for a WHERE at parenthesis depth zero (one inside a subquery does not count).
 */
export function analyze(tokens: readonly Token[]): Analysis {
  const r = new Reader(tokens);
  if (r.is('WITH')) skipWith(r);
  const verb = r.word();
  switch (verb) {
    case 'SELECT':
    case 'VALUES':
    case 'EXPLAIN':
      return { kind: 'read' };
    case 'INSERT':
    case 'REPLACE': {
      if (r.is('OR')) r.skip(2);
      r.expect('INTO');
      return { kind: 'write', verb: verb === 'INSERT' ? 'insert' : 'replace', table: r.name(), hasWhere: false };
    }
    case 'UPDATE': {
      if (r.is('OR')) r.skip(2);
      const table = r.name();
      return { kind: 'write', verb: 'update', table, hasWhere: r.hasTopLevel('WHERE') };
    }
    case 'DELETE': {
      r.expect('FROM');
      const table = r.name();
      return { kind: 'write', verb: 'delete', table, hasWhere: r.hasTopLevel('WHERE') };
    }
    case 'DROP': {
      const object = r.word().toLowerCase();
      if (r.is('IF')) r.skip(2);
      return { kind: 'schema', verb: 'drop', object, name: r.name() };
    }
    case 'ALTER': {
      r.expect('TABLE');
      return { kind: 'schema', verb: 'alter', object: 'table', name: r.name() };
    }
    case 'CREATE': {
      while (['TEMP', 'TEMPORARY', 'UNIQUE', 'VIRTUAL'].includes(r.peekWord())) r.skip(1);
      const object = r.word().toLowerCase();
      if (r.is('IF')) r.skip(3);
      return { kind: 'schema', verb: 'create', object, name: r.name() };
    }
    default:
      return { kind: 'other', verb: verb.toLowerCase() };
  }
}

/** WITH [RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (select) [, ...] */
function skipWith(r: Reader): void {
  r.skip(1);
  if (r.is('RECURSIVE')) r.skip(1);
  for (;;) {
    r.name();
    if (r.isPunct('(')) r.skipGroup();
    r.expect('AS');
    if (r.is('NOT')) r.skip(1);
    if (r.is('MATERIALIZED')) r.skip(1);
    r.skipGroup();
    if (!r.isPunct(',')) return;
    r.skip(1);
  }
}

class Reader {
  private i = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private get current(): Token | undefined {
    return this.tokens[this.i];
  }

  peekWord(): string {
    return this.current?.kind === 'word' ? this.current.value : '';
  }

  is(word: string): boolean {
    return this.peekWord() === word;
  }

  isPunct(value: string): boolean {
    return this.current?.kind === 'punct' && this.current.value === value;
  }

  skip(n: number): void {
    this.i += n;
  }

  word(): string {
    const t = this.current;
    if (t?.kind !== 'word')
      throw new Error(`expected a keyword${t ? ` near "${t.value}"` : ' but the statement ended'}`);
    this.i++;
    return t.value;
  }

  expect(word: string): void {
    if (!this.is(word)) throw new Error(`expected ${word}${this.current ? ` near "${this.current.value}"` : ''}`);
    this.i++;
  }

  /** A possibly schema-qualified name; returns the object part, as SQLite compares it (case-folded). */
  name(): string {
    const t = this.current;
    if (!t || (t.kind !== 'word' && t.kind !== 'identifier' && t.kind !== 'string')) {
      throw new Error(`expected a name${t ? ` near "${t.value}"` : ''}`);
    }
    this.i++;
    let name = t.kind === 'word' ? t.value : t.value;
    if (this.isPunct('.')) {
      this.i++;
      const part = this.current;
      if (!part || (part.kind !== 'word' && part.kind !== 'identifier')) throw new Error('expected a name after "."');
      this.i++;
      name = part.value;
    }
    return name.toLowerCase();
  }

  /** Skips a balanced ( ... ) group starting at the current token. */
  skipGroup(): void {
    if (!this.isPunct('(')) throw new Error(`expected "("${this.current ? ` near "${this.current.value}"` : ''}`);
    let depth = 0;
    do {
      const t = this.current;
      if (!t) throw new Error('unbalanced parentheses');
      if (t.kind === 'punct' && t.value === '(') depth++;
      if (t.kind === 'punct' && t.value === ')') depth--;
      this.i++;
    } while (depth > 0);
  }

  /** Whether `word` appears outside any parentheses from here on. */
  hasTopLevel(word: string): boolean {
    let depth = 0;
    for (let j = this.i; j < this.tokens.length; j++) {
      const t = this.tokens[j] as Token;
      if (t.kind === 'punct' && t.value === '(') depth++;
      else if (t.kind === 'punct' && t.value === ')') depth--;
      else if (depth === 0 && t.kind === 'word' && t.value === word) return true;
    }
    return false;
  }
}

/** Every name the statement mentions (words and quoted identifiers), lower-cased. */
export function mentionedNames(tokens: readonly Token[]): Set<string> {
  return new Set(tokens.filter((t) => t.kind === 'word' || t.kind === 'identifier').map((t) => t.value.toLowerCase()));
}
