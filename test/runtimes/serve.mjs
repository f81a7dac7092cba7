// The server library's HTTP handler on Bun or Deno (`createHttpHandler().fetch` handed to the
// runtime's own server), with one tool that asks and then acts. Prints the endpoint's URL.
// Run by runtimes.test.ts from the built packages, as a user of the published package would.
import { field, form } from '@elicitkit/form';
import { createElicitkit, createHttpHandler, defineTool, done, outcomeSchema } from '@elicitkit/server';
import * as z from 'zod/v4';

let deployed = 0;
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service; asks for the environment.',
  inputSchema: z.object({ service: z.string() }),
  outputSchema: outcomeSchema({ env: z.string(), deployed: z.number() }),
  forms: {
    env: form({
      env: field.select(
        [
          { value: 'dev', title: 'Development' },
          { value: 'prod', title: 'Production' },
        ],
        { title: 'Environment' },
      ),
    }),
  },
  async run({ service }, { ask, commit }) {
    const answer = await ask('env', { message: `Which environment should ${service} go to?` });
    if (answer.action !== 'accept') return answer.result();
    const { env } = answer.value;
    return commit(async () => {
      deployed += 1;
      return done(`Deployed ${service} to ${env}.`, { env, deployed });
    });
  },
});

const kit = createElicitkit({ secret: 'a runtime check secret, at least 32 bytes long' });
const http = createHttpHandler(() => kit.createServer({ name: 'runtime-check', version: '1.0.0' }, [deploy]));
const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
let port;
if (runtime === 'bun') port = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: http.fetch }).port;
else if (runtime === 'deno') {
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, http.fetch);
  port = server.addr.port;
} else throw new Error('run me with bun or deno');
console.log(`${runtime} listening http://127.0.0.1:${port}/mcp`);
