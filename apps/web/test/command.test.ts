/**
 * The chat's `/tool …` commands: quoted values stay one value, `{json}` and bare `k=v` still work,
 * and a mistake (an unclosed quote, JSON that does not parse) is a sentence for the person in the
 * chat's terms — never the CLI's `--args` — in their language.
 */
import { describe, expect, it } from 'vitest';
import { CommandError, commandArguments, commandWords, MAX_ARGUMENT_DEPTH, splitCommand } from '../lib/command';

const SQL = {
  type: 'object',
  properties: { sql: { type: 'string' }, limit: { type: 'integer' }, dry: { type: 'boolean' } },
};

describe('commandWords', () => {
  it('splits bare key=value words on whitespace', () => {
    expect(commandWords('service=order-service  replicas=3')).toEqual(['service=order-service', 'replicas=3']);
    expect(commandWords('   ')).toEqual([]);
  });

  it('keeps a double- or single-quoted value whole, quotes removed', () => {
    expect(commandWords('sql="SELECT COUNT(*) FROM orders" limit=5')).toEqual([
      'sql=SELECT COUNT(*) FROM orders',
      'limit=5',
    ]);
    expect(commandWords("sql='SELECT  name FROM t'")).toEqual(['sql=SELECT  name FROM t']);
    expect(commandWords('"note=two words"')).toEqual(['note=two words']);
    expect(commandWords('sql="" x=1')).toEqual(['sql=', 'x=1']);
  });

  it('takes the character after a backslash inside quotes as it is', () => {
    expect(commandWords(String.raw`sql="SELECT \"a b\" FROM t"`)).toEqual(['sql=SELECT "a b" FROM t']);
    expect(commandWords(String.raw`sql='it\'s'`)).toEqual(["sql=it's"]);
    expect(commandWords(String.raw`path="C:\\dir"`)).toEqual([String.raw`path=C:\dir`]);
    expect(commandWords(`sql="it's"`)).toEqual(["sql=it's"]);
  });

  it('leaves a quote inside a bare value, and a backslash outside quotes, as ordinary characters', () => {
    expect(commandWords("name=O'Brien")).toEqual(["name=O'Brien"]);
    expect(commandWords(String.raw`path=C:\dir`)).toEqual([String.raw`path=C:\dir`]);
  });

  it('refuses an unterminated quote, saying which and where', () => {
    expect(() => commandWords('sql="SELECT 1')).toThrow(CommandError);
    try {
      commandWords("a=1 sql='SELECT \\'");
    } catch (error) {
      expect((error as CommandError).problem).toEqual({ kind: 'unterminated-quote', quote: "'", at: 8 });
    }
  });
});

describe('splitCommand', () => {
  it('takes the tool name and keeps the rest as written', () => {
    expect(splitCommand('/execute_sql sql="SELECT  1"')).toEqual({ tool: 'execute_sql', rest: 'sql="SELECT  1"' });
    expect(splitCommand('/list_deployments')).toEqual({ tool: 'list_deployments', rest: '' });
  });
});

describe('commandArguments', () => {
  it('passes a whole quoted string as one argument, coerced by the schema', () => {
    expect(commandArguments('execute_sql', SQL, 'sql="SELECT COUNT(*) FROM orders" limit=5 dry=yes', 'en')).toEqual({
      args: { sql: 'SELECT COUNT(*) FROM orders', limit: 5, dry: true },
    });
  });

  it('keeps /tool {json} and bare key=value working', () => {
    expect(commandArguments('execute_sql', SQL, '{"sql": "SELECT 1", "limit": 2}', 'en')).toEqual({
      args: { sql: 'SELECT 1', limit: 2 },
    });
    expect(commandArguments('deploy_service', undefined, 'service=order-service', 'en')).toEqual({
      args: { service: 'order-service' },
    });
  });

  it('says an unterminated quote is not closed, in English and in Chinese', () => {
    const en = commandArguments('execute_sql', SQL, 'sql="SELECT COUNT(*) FROM orders', 'en');
    expect(en).toEqual({ message: expect.stringContaining('Cannot call execute_sql: the " at character 5') });
    expect(JSON.stringify(en)).toContain('never closed');
    const zh = commandArguments('execute_sql', SQL, 'sql="SELECT COUNT(*) FROM orders', 'zh');
    expect(zh).toEqual({ message: expect.stringContaining('无法调用 execute_sql：参数第 5 个字符处的 " 没有闭合') });
  });

  it('says JSON that does not parse is not valid JSON, for the chat, without --args', () => {
    const en = commandArguments('execute_sql', SQL, '{bad json', 'en');
    expect('message' in en && en.message).toMatch(
      /^Cannot call execute_sql: the arguments are not valid JSON \(.+\)\./,
    );
    expect('message' in en && en.message).toContain('/execute_sql {"name": "value"}');
    expect(JSON.stringify(en)).not.toContain('--args');
    const zh = commandArguments('execute_sql', SQL, '{bad json', 'zh');
    expect('message' in zh && zh.message).toMatch(/^无法调用 execute_sql：参数不是有效的 JSON/);
    expect(JSON.stringify(zh)).not.toContain('--args');
  });

  it('takes text after the JSON object as a JSON mistake too, without --args', () => {
    for (const rest of ['{"sql":"SELECT 1"} limit=2', '{}[]']) {
      const out = commandArguments('execute_sql', SQL, rest, 'en');
      expect('message' in out && out.message).toMatch(/the arguments are not valid JSON/);
      expect(JSON.stringify(out)).not.toContain('--args');
    }
  });

  it('still reports a value the schema cannot take', () => {
    expect(commandArguments('execute_sql', SQL, 'limit=many', 'en')).toEqual({
      message: 'Cannot call execute_sql: limit=many: expected a number',
    });
  });

  it('refuses arguments nested deeper than the chat can write, given whole or as one value, in each language', () => {
    const schema = { type: 'object', properties: { ids: { type: 'array' }, filter: { type: 'object' } } };
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    for (const rest of [`{"ids": ${deep(101)}}`, `ids=${deep(101)}`, `filter={"a":${deep(20_000)}}`]) {
      expect(commandArguments('find', schema, rest, 'en'), rest.slice(0, 20)).toEqual({
        message: `Cannot call find: the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep; no tool takes that. Nothing was sent.`,
      });
      expect(commandArguments('find', schema, rest, 'zh')).toEqual({
        message: `无法调用 find：参数嵌套超过 ${MAX_ARGUMENT_DEPTH} 层，没有工具接受这样的参数。未发送任何请求。`,
      });
    }
    expect(commandArguments('find', schema, `ids=${deep(99)}`, 'en')).toHaveProperty('args');
  });
});
