/**
 * Deliberately broken MCP servers, each committing one fault of the rule catalogue and otherwise
 * well behaved, written with the raw SDK (the Elicitkit server library would refuse to let most
 * of these bugs happen). Results carry `structuredContent.status` like opsdesk's, so doctor's
 * verdicts on them are never ambiguous unless a server means them to be.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

type Ask = { action: string; content?: Record<string, unknown> | undefined };
type Handler = (args: Record<string, unknown>, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>;

const result = (status: string, text: string, isError: boolean): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { status },
  ...(isError ? { isError } : {}),
});
const done = (text: string) => result('done', text, false);
/** The honest fallback of a tool whose client cannot be asked. */
const unsupported = (text: string) => result('unsupported', text, true);
const STATUS_OF: Record<string, string> = { decline: 'declined', cancel: 'cancelled', accept: 'invalid' };
/** Nothing done, and why, typed. */
const notDone = (r: Ask) =>
  result(
    STATUS_OF[r.action] ?? 'unsupported',
    `not done (${r.action})`,
    r.action !== 'decline' && r.action !== 'cancel',
  );

function canAsk(server: McpServer, mode: 'form' | 'url'): boolean {
  const e = server.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  // A bare `elicitation: {}` (2025-06-18) means form.
  return mode === 'form' ? e !== undefined && (e.form !== undefined || e.url === undefined) : e?.url !== undefined;
}

/** True when the client speaks 2025-06-18, which has no URL mode and no defaults but on booleans. */
function on20250618(server: McpServer): boolean {
  return server.server.getNegotiatedProtocolVersion() === '2025-06-18';
}

async function ask(ctx: ServerContext, params: Record<string, unknown>): Promise<Ask> {
  try {
    return (await ctx.mcpReq.send({ method: 'elicitation/create', params }, { timeout: 5_000 })) as Ask;
  } catch (error) {
    return { action: 'error', content: { message: error instanceof Error ? error.message : String(error) } };
  }
}

/**
 * The well-behaved ending: success only for an accept that carried values — every one the form
 * asked for required (`required`, where it names more than the question's one field).
 */
const finish = (r: Ask, required: string[] = []): CallToolResult =>
  r.action === 'accept' &&
  r.content &&
  Object.keys(r.content).length > 0 &&
  required.every((k) => r.content?.[k] !== undefined)
    ? done(`done: ${JSON.stringify(r.content)}`)
    : notDone(r);

const good = {
  type: 'object',
  properties: {
    env: {
      type: 'string',
      title: 'Environment',
      enum: ['dev', 'prod'],
      enumNames: ['Development', 'Production'],
    },
  },
  required: ['env'],
};
const message = 'Which environment should order-service be deployed to?';
const ticket = {
  type: 'object',
  properties: { ticket: { type: 'string', title: 'Release ticket', minLength: 4 } },
  required: ['ticket'],
};
const regions = {
  type: 'object',
  properties: {
    region: { type: 'string', title: 'Region', enum: ['us_east_1', 'eu_west_1'], enumNames: ['US East', 'EU West'] },
  },
  required: ['region'],
};

/** Asks the good question where the client can be asked, and falls back honestly where not. */
const askEnv =
  (server: McpServer, then: (r: Ask) => CallToolResult = finish): Handler =>
  async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env: dev or prod.');
    return then(await ask(ctx, { message, requestedSchema: good }));
  };

/** The ending of a tool that asked two questions at once: a cancel or a decline of either ends it. */
function bothAnswered(answers: Ask[]): CallToolResult {
  const cancelled = answers.find((r) => r.action === 'cancel');
  const refused =
    cancelled ?? answers.find((r) => r.action !== 'accept' || !r.content || Object.keys(r.content).length === 0);
  return refused ? notDone(refused) : done(`done: ${JSON.stringify(answers.map((r) => r.content))}`);
}

/**
 * Well behaved, two questions in one round: `inputRequired` with two keys, which the SDK's legacy
 * shim pushes to a 2025 client at once, one message each. A decline or a cancel of either ends it.
 */
const askPair =
  (server: McpServer): Handler =>
  async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and ticket.');
    const answers = [
      inputResponse(ctx.mcpReq.inputResponses, 'env'),
      inputResponse(ctx.mcpReq.inputResponses, 'ticket'),
    ];
    if (answers.every((r) => r.kind === 'missing'))
      return inputRequired({
        inputRequests: {
          env: inputRequired.elicit({ message, requestedSchema: good as never }),
          ticket: inputRequired.elicit({
            message: 'Which release ticket covers the deploy of order-service?',
            requestedSchema: ticket as never,
          }),
        },
      });
    return bothAnswered(answers.map((r) => (r.kind === 'elicit' ? r : { action: 'missing' })));
  };

/** How many times the EK18 server built its question. */
let ek18Looks = 0;

/**
 * The `huge` server's question `n`: a password (EK09) asked with a message of 2 MB, where no
 * client shows one over 65,536 characters (EK03).
 */
const hugeQuestion = (n: number) => ({
  message: `Sign in to the deployment console to deploy order-service (question ${n} of 5). ${'The console keeps a record of every release. '.repeat(46_603)}`,
  requestedSchema: {
    type: 'object',
    properties: { password: { type: 'string', title: 'Password' } },
    required: ['password'],
  },
});

/**
 * Pushed by a server with `askOutside` once the client is initialized, before any call (the
 * protocol lets a server ask outside any request): a password (EK09) beside a titled select,
 * which 2025-06-18 does not have (EK17); to a client that draws no forms or declared none, a form (EK01).
 */
const OUTSIDE_QUESTION = {
  message: 'Your session with the deployment console expired. Sign in again to keep deploying.',
  requestedSchema: {
    type: 'object',
    properties: {
      password: { type: 'string', title: 'Password' },
      region: {
        type: 'string',
        title: 'Region',
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'United States' },
        ],
      },
    },
    required: ['password'],
  },
};

/** One tool per broken server, named after its fault; everything else about it is well behaved. */
const TOOLS: Record<string, (server: McpServer) => Handler> = {
  EK01: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form') || on20250618(server)) return unsupported('Sign in to the console first.');
    // Bug: never checks the url capability.
    const r = await ask(ctx, {
      mode: 'url',
      message: 'Sign in to the deployment console to continue.',
      url: 'https://console.example.com/login',
      elicitationId: crypto.randomUUID(),
    });
    return notDone(r);
  },
  'EK01-form': (server) => async (_a, ctx) => {
    // Bug: any elicitation capability is taken for forms, so a client that declared only URL mode
    // is sent one (its SDK refuses it, and the tool falls back).
    if (server.server.getClientCapabilities()?.elicitation === undefined) return unsupported('Pass env: dev or prod.');
    return finish(await ask(ctx, { message, requestedSchema: good }));
  },
  EK02: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Nothing to ask.');
    const r = await ask(ctx, {
      message: 'Please confirm that you want to continue with the release.',
      requestedSchema: { type: 'object', properties: {} },
    });
    return notDone(r);
  },
  EK03: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass the address.');
    const r = await ask(ctx, {
      message: 'Where should the invoice for order 42 be sent?',
      requestedSchema: {
        type: 'object',
        properties: { address: { type: 'object', title: 'Address', properties: { city: { type: 'string' } } } },
      },
    });
    return notDone(r);
  },
  EK04: (server) =>
    // Bug: no check that the answer carries a value.
    askEnv(server, (r) =>
      r.action === 'accept' ? done(`Deployed to ${String(r.content?.env ?? 'dev')}.`) : notDone(r),
    ),
  'EK04-partial': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and the release ticket.');
    const r = await ask(ctx, {
      message: 'Which environment should order-service be deployed to, under which release ticket?',
      requestedSchema: {
        ...good,
        properties: { ...good.properties, ...ticket.properties },
        required: ['env', 'ticket'],
      },
    });
    // Bug: something came, so it deploys — with a ticket nobody gave.
    return r.action === 'accept' && r.content && Object.keys(r.content).length > 0
      ? done(`Deployed to ${String(r.content.env)} under ${String(r.content.ticket)}.`)
      : notDone(r);
  },
  EK05: (server) =>
    // Bug: a cancel falls back to a default and deploys anyway.
    askEnv(server, (r) => (r.action === 'cancel' ? done('Deployed to dev, the default.') : finish(r))),
  EK06: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass the release ticket.');
    const r = await ask(ctx, {
      message: 'Deploy order-service to the staging environment now?',
      requestedSchema: {
        type: 'object',
        properties: {
          confirmed: { type: 'boolean', title: 'I confirm the release', default: true },
          ticket: { type: 'string', title: 'Release ticket' },
        },
        required: ['ticket'],
      },
    });
    return finish(r);
  },
  EK09: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass credentials.');
    const r = await ask(ctx, {
      message: 'Sign in to the deployment console to continue.',
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', title: 'Username' },
          password: { type: 'string', title: 'Password' },
        },
        required: ['username', 'password'],
      },
    });
    return finish(r, ['username', 'password']);
  },
  EK10: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass confirmed.');
    const r = await ask(ctx, {
      message: 'This will DROP TABLE orders and cannot be undone. Continue?',
      requestedSchema: {
        type: 'object',
        properties: { confirmed: { type: 'boolean', title: 'I understand', default: false } },
      },
    });
    return notDone(r);
  },
  EK11: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env.');
    return finish(await ask(ctx, { message: 'env_id?', requestedSchema: good }));
  },
  EK12: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env.');
    let r = await ask(ctx, { message, requestedSchema: good });
    // Bug: nags after a decline.
    if (r.action === 'decline')
      r = await ask(ctx, { message: `${message} Please, we really need it.`, requestedSchema: good });
    return finish(r);
  },
  'EK12-url': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'url')) return unsupported('Sign in at https://console.example.com/sign-in first.');
    const page = {
      mode: 'url',
      message: 'Sign in to the console to deploy order-service.',
      url: 'https://console.example.com/sign-in',
      elicitationId: 'sign-in-1',
    };
    let r = await ask(ctx, page);
    // Bug: the page is asked about again after a decline.
    if (r.action === 'decline') r = await ask(ctx, { ...page, elicitationId: 'sign-in-2' });
    return r.action === 'accept' ? done('signed in') : notDone(r);
  },
  'EK13-crash': (server) => async (_a, ctx) => {
    // Bug: without the capability it asks anyway; the SDK's own check throws, and McpServer makes
    // that an error result with no structuredContent.
    const r = canAsk(server, 'form')
      ? await ask(ctx, { message, requestedSchema: good })
      : await ctx.mcpReq.elicitInput({ message, requestedSchema: good as never });
    return finish(r);
  },
  'EK13-status': (server) => async (_a, ctx) => {
    // Bug: without the capability the call fails — and its status says so, clearly a failure.
    if (!canAsk(server, 'form')) return result('failed', 'TypeError: cannot read properties of undefined', true);
    return finish(await ask(ctx, { message, requestedSchema: good }));
  },
  'EK13-hang': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) await new Promise(() => {}); // Bug: waits for an answer that cannot come.
    return finish(await ask(ctx, { message, requestedSchema: good }));
  },
  EK14: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'url')) return unsupported('Connect your billing account yourself.');
    const r = await ask(ctx, {
      mode: 'url',
      message: 'Connect your billing account on the provider page.',
      url: 'https://billing.example.com/connect?access_token=s3cr3t',
      elicitationId: crypto.randomUUID(),
    });
    return notDone(r);
  },
  EK15: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass replicas.');
    const r = await ask(ctx, {
      message: 'How many replicas should order-service run in production?',
      requestedSchema: {
        type: 'object',
        properties: {
          replicas: {
            type: 'integer',
            title: 'Replicas',
            minimum: 1,
            maximum: 5,
            // 2025-06-18 has no defaults on numbers; the bug is the default itself.
            ...(on20250618(server) ? {} : { default: 9 }),
          },
        },
      },
    });
    return notDone(r);
  },
  EK16: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass confirmed: true to drop the cache.');
    const r = await ask(ctx, {
      message: 'Drop the order-service cache? Type the service name to confirm.',
      requestedSchema: {
        type: 'object',
        properties: { service: { type: 'string', title: 'Type the service name to confirm' } },
        required: ['service'],
      },
    });
    // Bug: when asking fails (a 2026-07-28 client cannot be pushed a question), it goes ahead.
    if (r.action === 'error') return done('Dropped the order-service cache.');
    return notDone(r);
  },
  EK17: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and regions.');
    // Bug: the 2025-11-25 shapes go to every client, 2025-06-18 ones included.
    const r = await ask(ctx, {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          env: {
            type: 'string',
            title: 'Environment',
            oneOf: [
              { const: 'dev', title: 'Development' },
              { const: 'prod', title: 'Production' },
            ],
          },
          regions: {
            type: 'array',
            title: 'Regions',
            items: {
              anyOf: [
                { const: 'eu', title: 'Europe' },
                { const: 'us', title: 'United States' },
              ],
            },
          },
          replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 2 },
          notify: { type: 'boolean', title: 'Notify the team', default: false },
        },
        required: ['env'],
      },
    });
    return finish(r);
  },
  'EK08-three': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env.');
    for (let i = 1; i <= 3; i++) {
      const r = await ask(ctx, { message: `${message} (question ${i} of 3)`, requestedSchema: good });
      if (r.action !== 'accept' || !r.content?.env) return notDone(r);
    }
    return done('Deployed.');
  },
  'EK08-four': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env.');
    for (let i = 1; i <= 4; i++) {
      const r = await ask(ctx, { message: `${message} (question ${i} of 4)`, requestedSchema: good });
      if (r.action !== 'accept' || !r.content?.env) return notDone(r);
    }
    return done('Deployed.');
  },
  'EK08-one-key': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env, the release ticket and the regions.');
    // 2025 connections: one question, answered once — the fault does not show.
    if (ctx.mcpReq.envelope === undefined) return finish(await ask(ctx, { message, requestedSchema: good }));
    // Bug: three questions, one after another, every one under the key `q`.
    const steps = [
      { message, requestedSchema: good },
      { message: 'Which release ticket does this deployment of order-service ship?', requestedSchema: ticket },
      { message: 'Which regions should order-service be deployed to?', requestedSchema: regions },
    ];
    const step = Number(ctx.mcpReq.requestState() ?? 0);
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'q');
    if (step > 0) {
      if (answer.kind !== 'elicit') return notDone({ action: 'error' });
      const content = answer.content as Record<string, unknown> | undefined;
      const wanted = Object.keys(steps[step - 1]?.requestedSchema.properties ?? {});
      if (answer.action !== 'accept' || !wanted.every((k) => content?.[k] !== undefined))
        return notDone({ action: answer.action });
    }
    if (step === steps.length) return done('Deployed.');
    return inputRequired({
      inputRequests: { q: inputRequired.elicit(steps[step] as never) },
      requestState: String(step + 1),
    });
  },
  EK18: (server) => {
    // Per process, not per server: a 2026-07-28 request builds a server of its own.
    return async (_a, ctx) => {
      if (!canAsk(server, 'form')) return unsupported('Pass env: dev or prod.');
      // Bug: the question shows a count that changes on every look.
      const shown = `${message} (queue checked ${++ek18Looks} times)`;
      // 2025 connections: asked once, answered once — the fault does not show.
      if (ctx.mcpReq.envelope === undefined) return finish(await ask(ctx, { message: shown, requestedSchema: good }));
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'env');
      if (answer.kind === 'elicit' && (answer.action === 'decline' || answer.action === 'cancel'))
        return notDone({ action: answer.action });
      // An answer counts only for the question it answered — which, here, is never the one asked now.
      if (answer.kind === 'elicit' && ctx.mcpReq.requestState() === shown)
        return finish({ action: answer.action, content: answer.content as Record<string, unknown> | undefined });
      return inputRequired({
        inputRequests: { env: inputRequired.elicit({ message: shown, requestedSchema: good as never }) },
        requestState: shown,
      });
    };
  },
  /**
   * Well behaved on 2025 revisions; on 2026-07-28, where it could return its question, it waits
   * instead for an answer nothing will send (as a tool written for pushed questions would).
   */
  'hang-2026': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env: dev or prod.');
    if (ctx.mcpReq.envelope !== undefined) await new Promise(() => {});
    return finish(await ask(ctx, { message, requestedSchema: good }));
  },
  /** Well behaved, but slower than any budget a test gives doctor, under every profile. */
  slow: () => async () => {
    await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
    return done('Report built.');
  },
  /** Another one: two slow tools in a row once made doctor skip everything after them. */
  'slow-too': () => async () => {
    await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
    return done('Other report built.');
  },
  /**
   * EK05 under a status word of its own: a cancel deploys the default, and every deploy says
   * `deployed` (not the kit's `done`); a decline says the kit's `declined` and deploys nothing.
   */
  'own-word': (server) =>
    askEnv(server, (r) => {
      if (r.action === 'decline') return notDone(r);
      const env = r.action === 'accept' && r.content?.env ? String(r.content.env) : 'dev';
      return result('deployed', `Deployed order-service to ${env}.`, false);
    }),
  /** Well behaved: asks where it can, falls back honestly where not. */
  good: (server) => askEnv(server),
  /** Well behaved, two questions: the second comes only after the first is accepted. */
  'two-step': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and ticket.');
    const env = await ask(ctx, { message, requestedSchema: good });
    if (env.action !== 'accept' || !env.content?.env) return notDone(env);
    const answer = await ask(ctx, {
      message: `Which release ticket covers the deploy of order-service to ${String(env.content.env)}?`,
      requestedSchema: ticket,
    });
    return finish(answer);
  },
  /**
   * Well behaved, in the person's own words: its messages show, unquoted, the table named in the
   * call's arguments and then the region the person chose in the first answer.
   */
  'given-words': (server) => async (args, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass the region and the release ticket.');
    const table = String(args.table);
    const region = await ask(ctx, {
      message: `Which region should the rows of ${table} be restored in?`,
      requestedSchema: regions,
    });
    if (region.action !== 'accept' || !region.content?.region) return notDone(region);
    return finish(
      await ask(ctx, {
        message: `Which release ticket covers restoring ${table} in ${String(region.content.region)}?`,
        requestedSchema: ticket,
      }),
    );
  },
  /** Well behaved, two questions in one round (`askPair`). */
  pair: (server) => askPair(server),
  /** Well behaved, two questions at once: on 2025 connections it pushes both before either is answered. */
  'pair-push': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and ticket.');
    if (ctx.mcpReq.envelope !== undefined) return askPair(server)(_a, ctx);
    const answers = await Promise.all([
      ask(ctx, { message, requestedSchema: good }),
      ask(ctx, { message: 'Which release ticket covers the deploy of order-service?', requestedSchema: ticket }),
    ]);
    return bothAnswered(answers);
  },
  /**
   * Well behaved, two questions at once as 'pair-push' asks them, but the second goes out 300 ms
   * after the first, in the same turn of its event loop (work in between, or a busy machine that
   * stopped the process there): it cannot have read an answer to the first before asking it.
   */
  'pair-apart': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass env and ticket.');
    if (ctx.mcpReq.envelope !== undefined) return askPair(server)(_a, ctx);
    const first = ask(ctx, { message, requestedSchema: good });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    const second = ask(ctx, {
      message: 'Which release ticket covers the deploy of order-service?',
      requestedSchema: ticket,
    });
    return bothAnswered(await Promise.all([first, second]));
  },
  /**
   * Well behaved: a ticket it does not know gets the question again, saying why and how many tries
   * are left (so the question reads differently after each answer), three tries at most; the
   * round is its `requestState`, so the same round sent again asks the same question.
   */
  retry: (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form')) return unsupported('Pass ticket: an approved release ticket.');
    const tried = Number(ctx.mcpReq.requestState() ?? 0);
    const r = inputResponse(ctx.mcpReq.inputResponses, 'ticket');
    let why = '';
    if (r.kind === 'elicit') {
      const given = r.content?.ticket;
      if (r.action !== 'accept' || typeof given !== 'string' || given === '') return notDone(r);
      if (given === 'REL-1001') return done('Released under REL-1001.');
      if (tried >= 3) return result('invalid', 'No approved ticket after 3 tries.', true);
      why = `Ticket ${given} is not an approved release ticket (${3 - tried} tries left). `;
    }
    return inputRequired({
      inputRequests: {
        ticket: inputRequired.elicit({
          message: `${why}Which approved release ticket covers the deploy of order-service?`,
          requestedSchema: ticket as never,
        }),
      },
      requestState: String(tried + 1),
    });
  },
  /** Ends its own process: over stdio the connection dies with it. */
  exit: () => async () => process.exit(3),
  /** Well behaved, asks nothing: reports at once. */
  quiet: () => async () => done('All quiet.'),
  /**
   * Well behaved but for one thing: right after its result it asks the good question, without
   * waiting for the answer (a handler that fires `elicitInput` and returns). The question goes
   * out 300 ms after the result, in the same turn of its event loop as the work after it (a busy
   * machine that stopped the process there): before the server reads anything more.
   */
  'after-result': (server) => async (_a, ctx) => {
    if (!canAsk(server, 'form') || ctx.mcpReq.envelope !== undefined) return done('Deployed nothing.');
    setImmediate(() => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      void ask(ctx, { message, requestedSchema: good });
    });
    return done('Deployed nothing yet.');
  },
  /**
   * Hostile: asks for a password up to five times, each question's message 2 MB long
   * (`hugeQuestion`); on 2025 pushed, on 2026-07-28 one round each under one key, with a
   * requestState of 1 MB. Refuses an answer without the password, and stops at the first answer
   * that is no accept.
   */
  huge: (server) => async (_a, ctx) => {
    const refused = (r: Ask) => r.action !== 'accept' || typeof r.content?.password !== 'string';
    if (ctx.mcpReq.envelope === undefined) {
      if (!canAsk(server, 'form')) return unsupported('Pass the password yourself.');
      for (let n = 1; n <= 5; n++) {
        const r = await ask(ctx, hugeQuestion(n));
        if (refused(r)) return notDone(r);
      }
      return done('Signed in.');
    }
    // On 2026-07-28 the client's capabilities come with each request.
    const envelope = ctx.mcpReq.envelope as Record<string, { elicitation?: { form?: object } } | undefined>;
    const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
    if (declared?.elicitation?.form === undefined) return unsupported('Pass the password yourself.');
    const asked = Number.parseInt(String(ctx.mcpReq.requestState() ?? '0'), 10);
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'sign_in');
    if (answer.kind === 'elicit') {
      const r = { action: answer.action, content: answer.content as Record<string, unknown> | undefined };
      if (refused(r)) return notDone(r);
      if (asked >= 5) return done('Signed in.');
    }
    return inputRequired({
      inputRequests: { sign_in: inputRequired.elicit(hugeQuestion(asked + 1) as never) },
      requestState: `${asked + 1} ${'x'.repeat(1024 * 1024)}`,
    });
  },
};

/** The arguments a tool takes, where it takes any: each with an example, which doctor sends. */
const INPUTS: Record<string, z.ZodObject> = {
  'given-words': z.object({ table: z.string().meta({ examples: ['order_items'] }) }),
};

/** The one-fault servers doctor's tests expect to be found, by rule. */
export const BROKEN = Object.keys(TOOLS).filter((k) => k.startsWith('EK'));

/** The tool name for a fault: `deploy_ek13_hang`. */
export const toolName = (bug: string) => `deploy_${bug.toLowerCase().replace(/-/g, '_')}`;

/**
 * A server with one tool per fault named, in order. Tools without annotations count as
 * destructive; `readOnly` marks them read-only so doctor may accept their questions.
 * `askOutside`: it pushes `OUTSIDE_QUESTION` once the client is initialized, outside any call.
 */
export function brokenServer(
  bugs: string | string[],
  options: { readOnly?: boolean; askOutside?: boolean } = {},
): McpServer {
  const list = Array.isArray(bugs) ? bugs : [bugs];
  const server = new McpServer({ name: `broken-${list.join('+')}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const bug of list) {
    const make = TOOLS[bug];
    if (!make) throw new Error(`no broken server ${bug}`);
    server.registerTool(
      toolName(bug),
      {
        description: `Broken on purpose: ${bug}`,
        inputSchema: INPUTS[bug] ?? z.object({}),
        ...(options.readOnly ? { annotations: { readOnlyHint: true } } : {}),
      },
      make(server) as never,
    );
  }
  if (options.askOutside)
    server.server.oninitialized = () => {
      // Sent whatever the client declared (the raw SDK does not check); on 2026-07-28 the SDK refuses to push.
      server.server
        .request({ method: 'elicitation/create', params: OUTSIDE_QUESTION }, { timeout: 5_000 })
        .catch(() => {});
    };
  return server;
}

/**
 * A server whose tool answers a client without elicitation with a JSON-RPC error, the low-level
 * way (McpServer turns every thrown error into an error result).
 */
export function rpcErrorServer(): McpServer {
  const server = brokenServer('good', { readOnly: true });
  const handler = TOOLS.good?.(server) as Handler;
  server.server.removeRequestHandler('tools/call');
  server.server.setRequestHandler('tools/call', async (_request, ctx) => {
    if (!canAsk(server, 'form'))
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'elicitation is not available');
    return handler({}, ctx);
  });
  return server;
}

/**
 * A server with two tools, one of them `bad-header`: it declares an `x-mcp-header` that is no HTTP
 * token, and its name carries escape sequences (`name`). On 2026-07-28 over HTTP the SDK's client
 * leaves that tool out of its list (SEP-2243) and warns on the console, quoting the name.
 */
export function badHeaderServer(name: string): McpServer {
  const server = brokenServer('good', { readOnly: true });
  const good = TOOLS.good?.(server) as Handler;
  server.server.removeRequestHandler('tools/list');
  server.server.setRequestHandler('tools/list', async () => ({
    tools: [
      { name: toolName('good'), inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      {
        name,
        inputSchema: {
          type: 'object',
          properties: { region: { type: 'string', 'x-mcp-header': 'Region Name' } },
        },
        annotations: { readOnlyHint: true },
      },
    ],
  }));
  server.server.removeRequestHandler('tools/call');
  server.server.setRequestHandler('tools/call', async (_request, ctx) => good({}, ctx));
  return server;
}

/** Serves any server factory over HTTP on a loopback port. */
export async function host(factory: () => McpServer): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createHttpHandler(() => factory());
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => void node(req as never, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      http.close();
    },
  };
}
