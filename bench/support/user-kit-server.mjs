// A user's own server on Elicitkit, not bundled: @elicitkit/server and @elicitkit/form imported
// from their built packages, one tool that asks which environment. Its raw-SDK twin is
// user-raw-server.mjs: the same tool, the same form, written with the SDK alone.
import { field, form } from '@elicitkit/form';
import { createElicitkit, defineTool, done } from '@elicitkit/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const kit = createElicitkit();
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  inputSchema: z.object({ service: z.string() }),
  forms: {
    env: form({
      env: field.select(
        ['dev', 'staging', 'prod'].map((value) => ({ value, title: value.toUpperCase() })),
        { title: 'Environment' },
      ),
    }),
  },
  async run({ service }, { ask }) {
    const answer = await ask('env', { message: `Which environment should ${service} be deployed to?` });
    if (answer.action !== 'accept') return answer.result();
    return done(`Deployed ${service} to ${answer.value.env}`);
  },
});
serveStdio(() => kit.createServer({ name: 'mine', version: '1' }, [deploy]));
