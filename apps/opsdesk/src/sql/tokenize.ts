/**
 * A lexer for SQLite's SQL, following its tokenizer (tokenize.c): comments, string literals with
 * doubled quotes, the four identifier quotings ("x", `x`, [x]) and blobs. It only counts statements,
 * for a friendly "one at a time" message: what a statement does and whether it may run is decided
 * by SQLite itself (see shop/inspect.ts), never by these tokens.
 */
export type TokenKind = 'word' | 'identifier' | 'string' | 'number' | 'blob' | 'parameter' | 'punct' | 'semicolon';

export interface Token {
  kind: TokenKind;
  /** For words: upper-cased. For identifiers: unquoted. Otherwise: the source text. */
  value: string;
  /** Offset in the source. */
  at: number;
}

export class SqlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlSyntaxError';
  }
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2; // SQLite accepts an unterminated comment at the end
    } else if (c === "'") {
      const [text, end] = quoted(sql, i, "'");
      tokens.push({ kind: 'string', value: text, at: i });
      i = end;
    } else if (c === '"' || c === '`') {
      const [text, end] = quoted(sql, i, c);
      tokens.push({ kind: 'identifier', value: text, at: i });
      i = end;
    } else if (c === '[') {
      const end = sql.indexOf(']', i + 1);
      if (end === -1) throw new SqlSyntaxError(`unterminated [identifier] at offset ${i}`);
      tokens.push({ kind: 'identifier', value: sql.slice(i + 1, end), at: i });
      i = end + 1;
    } else if ((c === 'x' || c === 'X') && next === "'") {
      const [text, end] = quoted(sql, i + 1, "'");
      tokens.push({ kind: 'blob', value: text, at: i });
      i = end;
    } else if (/[0-9]/.test(c) || (c === '.' && next !== undefined && /[0-9]/.test(next))) {
      const match = /^(0x[0-9a-fA-F_]+|[0-9_]*\.?[0-9_]*([eE][+-]?[0-9_]+)?)/.exec(sql.slice(i));
      const text = match?.[0] || c;
      tokens.push({ kind: 'number', value: text, at: i });
      i += text.length;
    } else if (c === '?' || c === ':' || c === '@' || c === '$') {
      const match = /^[?:@$][A-Za-z0-9_]*/.exec(sql.slice(i));
      const text = match?.[0] ?? c;
      tokens.push({ kind: 'parameter', value: text, at: i });
      i += text.length;
    } else if (WORD_START.test(c)) {
      let end = i + 1;
      while (end < sql.length && WORD_PART.test(sql[end] as string)) end++;
      tokens.push({ kind: 'word', value: sql.slice(i, end).toUpperCase(), at: i });
      i = end;
    } else if (c === ';') {
      tokens.push({ kind: 'semicolon', value: ';', at: i });
      i++;
    } else {
      const two = sql.slice(i, i + 2);
      const text = ['<=', '>=', '<>', '!=', '==', '||', '<<', '>>', '->'].includes(two) ? two : c;
      tokens.push({ kind: 'punct', value: text, at: i });
      i += text.length;
    }
  }
  return tokens;
}

/** Reads a quoted run where the quote is escaped by doubling it. Returns [content, end offset]. */
function quoted(sql: string, start: number, quote: string): [string, number] {
  let out = '';
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        out += quote;
        i += 2;
        continue;
      }
      return [out, i + 1];
    }
    out += sql[i];
    i++;
  }
  throw new SqlSyntaxError(`unterminated ${quote === "'" ? 'string' : 'quoted identifier'} at offset ${start}`);
}

/**
 * Where SQLite itself ends a statement (`sqlite3_complete`, complete.c): at a semicolon, except
 * inside `CREATE [TEMP] TRIGGER … BEGIN … END`, which only a `; END ;` ends — a `CASE … END` in a
 * trigger's body does not, and neither do the words TRIGGER and BEGIN anywhere else.
 */
type Complete = 'start' | 'normal' | 'explain' | 'create' | 'trigger' | 'semi' | 'end';
type Sort = 'semi' | 'other' | 'explain' | 'create' | 'temp' | 'trigger' | 'end';

/** Every sort of token to `state`: each row of complete.c's table below differs from one only where it says. */
function every(state: Complete): Record<Sort, Complete> {
  return { semi: state, other: state, explain: state, create: state, temp: state, trigger: state, end: state };
}

/** complete.c's transitions: the state after a token of each sort. */
const NEXT: Record<Complete, Record<Sort, Complete>> = {
  start: { ...every('normal'), semi: 'start', explain: 'explain', create: 'create' },
  normal: { ...every('normal'), semi: 'start' },
  explain: { ...every('normal'), semi: 'start', other: 'explain', create: 'create' },
  create: { ...every('normal'), semi: 'start', temp: 'create', trigger: 'trigger' },
  // Inside a trigger's body: only `; END ;` ends the statement.
  trigger: { ...every('trigger'), semi: 'semi' },
  semi: { ...every('trigger'), semi: 'semi', end: 'end' },
  end: { ...every('trigger'), semi: 'start' },
};

/** A token as complete.c sorts it: only bare words are keywords (a quoted "TRIGGER" is a name). */
function sortOf(t: Token): Sort {
  if (t.kind === 'semicolon') return 'semi';
  if (t.kind !== 'word') return 'other';
  switch (t.value) {
    case 'EXPLAIN':
      return 'explain';
    case 'CREATE':
      return 'create';
    case 'TEMP':
    case 'TEMPORARY':
      return 'temp';
    case 'TRIGGER':
      return 'trigger';
    case 'END':
      return 'end';
    default:
      return 'other';
  }
}

/** Splits where SQLite ends statements, dropping empty ones (`;;`, a trailing `;`). */
export function statements(tokens: readonly Token[]): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  let state: Complete = 'start';
  for (const t of tokens) {
    state = NEXT[state][sortOf(t)];
    if (t.kind === 'semicolon' && state === 'start') {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    current.push(t);
  }
  if (current.length > 0) out.push(current);
  return out;
}
