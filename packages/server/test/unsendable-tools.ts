/**
 * Tools whose result JSON cannot hold, none of them through `commit`'s own checks: a BigInt (a row
 * id better-sqlite3 reads with safe integers), a cycle, a `toJSON` that throws, a cancel carrying a
 * BigInt, and a result `commit` handed back that the tool then changed. `acted` counts what the
 * last one's effect did.
 */
import { field, form } from '@elicitkit/form';
import { done } from '../src/results.js';
import { defineTool } from '../src/tool.js';

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

export function unsendableTools(acted: string[] = []) {
  const asked = (name: string, made: () => ReturnType<typeof done>) =>
    defineTool({
      name,
      description: 'Asks where, then answers with what JSON cannot hold.',
      forms: { env: envForm },
      async run(_args, ctx) {
        const answer = await ctx.ask('env', { message: 'Which environment?' });
        if (answer.action !== 'accept') {
          const refused = answer.result();
          return { ...refused, structuredContent: { ...(refused.structuredContent as object), at: 1n } } as never;
        }
        return made();
      },
    });
  return [
    defineTool({
      name: 'count_rows',
      description: 'Counts rows, as a BigInt.',
      async run() {
        return done('Counted.', { count: 42n as never });
      },
    }),
    asked('count_cycle', () => {
      const row: Record<string, unknown> = { id: 1 };
      row.self = row;
      return done('Counted.', { row });
    }),
    asked('count_tojson', () =>
      done('Counted.', {
        when: {
          toJSON: () => {
            throw new Error('no');
          },
        },
      }),
    ),
    defineTool({
      name: 'deploy_then_widen',
      description: 'Deploys, then adds a BigInt to the result commit handed back.',
      forms: { env: envForm },
      async run(_args, ctx) {
        const answer = await ctx.ask('env', { message: 'Which environment?' });
        if (answer.action !== 'accept') return answer.result();
        const result = await ctx.commit(() => {
          acted.push(answer.value.env);
          return done(`Deployed to ${answer.value.env}.`, { env: answer.value.env });
        });
        return {
          ...result,
          structuredContent: { ...(result.structuredContent as object), id: BigInt(acted.length) },
        } as never;
      },
    }),
  ];
}
