// The server library's HTTP handler on Bun or Deno (`createHttpHandler().fetch` handed to the
// runtime's own server), with one tool that asks and then acts. Prints the endpoint's URL.
// Run by runtimes.test.ts from the built packages, as a user of the published package would.
// ELICITKIT_RUNTIME_IDLE_S sets Bun.serve's idleTimeout, ELICITKIT_RUNTIME_KEEP_ALIVE_MS and
// ELICITKIT_RUNTIME_ABANDON_MS the handler's keepAliveMs and abandonedSessionMs, and
// ELICITKIT_RUNTIME_TLS_CERT and _KEY (PEM files) serve Deno over TLS.
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

const env = (name) => (globalThis.Deno ? Deno.env.get(name) : process.env[name]);
const audit = [];
const kit = createElicitkit({
  secret: 'a runtime check secret, at least 32 bytes long',
  audit: (event) => audit.push(event),
});
const options = {};
if (env('ELICITKIT_RUNTIME_KEEP_ALIVE_MS')) options.keepAliveMs = Number(env('ELICITKIT_RUNTIME_KEEP_ALIVE_MS'));
if (env('ELICITKIT_RUNTIME_ABANDON_MS')) options.abandonedSessionMs = Number(env('ELICITKIT_RUNTIME_ABANDON_MS'));
const http = createHttpHandler(() => kit.createServer({ name: 'runtime-check', version: '1.0.0' }, [deploy]), options);

/** /hold: a request nobody answers, ended only by the host (its idle timeout) or its client. */
const held = (request) =>
  new Promise((resolve) => request.signal.addEventListener('abort', () => resolve(new Response(null))));
/** /state: the open sessions and how each question ended (the audit trail's responses). */
const state = () =>
  Response.json({ sessions: http.sessionCount(), responses: audit.filter((event) => event.type === 'response') });
const routes = { '/hold': held, '/state': state };
const fetch = (request) => (routes[new URL(request.url).pathname] ?? http.fetch)(request);

const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
let port;
if (runtime === 'bun') {
  const idle = env('ELICITKIT_RUNTIME_IDLE_S');
  port = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch, ...(idle ? { idleTimeout: Number(idle) } : {}) }).port;
} else if (runtime === 'deno') {
  // With a certificate, over TLS, where clients that can speak HTTP/2 do (no Host header then).
  const cert = env('ELICITKIT_RUNTIME_TLS_CERT');
  const tls = cert
    ? { cert: Deno.readTextFileSync(cert), key: Deno.readTextFileSync(env('ELICITKIT_RUNTIME_TLS_KEY')) }
    : {};
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {}, ...tls }, fetch);
  port = server.addr.port;
} else throw new Error('run me with bun or deno');
const scheme = env('ELICITKIT_RUNTIME_TLS_CERT') ? 'https' : 'http';
console.log(`${runtime} listening ${scheme}://127.0.0.1:${port}/mcp`);
