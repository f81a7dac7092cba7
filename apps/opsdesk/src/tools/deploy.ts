import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, rejected } from '@elicitkit/server';
import * as z from 'zod/v4';
import { ENVIRONMENTS, SERVICE_NAME_MAX } from '../choices.js';
import { type Deps, findCaller } from '../context.js';
import { all, dialect, get, type Query, value } from '../db/query.js';
import { accountOf } from '../identity.js';
import { inEachLocale, MESSAGES } from '../messages/index.js';
import { accessTo, permissionsFor } from '../permissions.js';
import { oneLine } from '../shorten.js';
import { DEPLOYER_COLUMNS, DEPLOYER_JOIN, type DeployerRow, deployer, deployerFields } from './deployer.js';

/**
 * What a version may look like. It is shown to the person in the production confirmation, so
 * nothing in it may read as more text (line breaks, bidi controls, a sentence of its own).
 */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]*$/;

interface Ticket {
  id: string;
  service: string;
  status: string;
}

/** deploy_service: asks for a missing environment, and for a confirmed, approved ticket before production. */
export function deployTool({ store, locale, now }: Deps) {
  // What production runs now, so the confirmation can show the change (from → to).
  const runningInProd = (service: string) =>
    store.run(
      value<string>(
        "SELECT version FROM deployments WHERE service = ? AND env = 'prod' ORDER BY id DESC LIMIT 1",
        service,
      ),
    );
  // Each call's forms in its own language (`ctx.locale`: the request's, else opsdesk's).
  const formsIn = inEachLocale((t) => ({
    env: form({
      env: field.select(
        ENVIRONMENTS.map((e) => ({ value: e, title: t.env[e] })),
        { title: t.envTitle, description: t.envHelp },
      ),
    }),
    prod: form({
      confirmed: field.boolean({ title: t.confirmTitle, default: false }),
      ticket: field.string({ title: t.ticketTitle, description: t.ticketHelp, minLength: 4, maxLength: 32 }),
    }),
  }));

  return defineTool({
    name: 'deploy_service',
    title: 'Deploy a service',
    description:
      'Deploy a service to dev, staging or prod. When env is missing the user is asked directly; production also needs their confirmation and an approved release ticket.',
    inputSchema: z.object({
      service: z.string().min(1).max(SERVICE_NAME_MAX).describe('Service name, e.g. order-service'),
      env: z.enum(ENVIRONMENTS).optional().describe('Target environment; asked from the user when missing'),
      version: z
        .string()
        .min(1)
        .max(64)
        .regex(VERSION, 'a version is letters and digits with . _ + - between them, e.g. v2.3.1')
        .optional()
        .describe('Version to deploy, e.g. v2.3.1; defaults to the latest'),
    }),
    outputSchema: outcomeSchema({
      deployment: z.object({
        id: z.number(),
        service: z.string(),
        env: z.string(),
        version: z.string(),
        ticket: z.string().nullable(),
      }),
    }),
    annotations: { destructiveHint: true, idempotentHint: false },
    forms: formsIn(locale),
    async run({ service, env, version }, ctx) {
      const t = MESSAGES[ctx.locale];
      const forms = formsIn(ctx.locale);
      // Caller, permission and latest version in one statement, checked on every call (and every
      // round; remembered only while nothing they read changed): the services this person may
      // see are listed only when they are refused.
      // The account the kit's identity names, never a name: a removed account's call is refused
      // here and in the row's transaction, whoever holds its name since.
      const account = accountOf(ctx.user);
      const access = account === undefined ? undefined : await store.run(accessTo(account, 'deploy', service));
      if (!access) return rejected(t.unknownCaller(ctx.user));
      const who = access.caller;
      if (access.latestVersion === undefined)
        return rejected(
          t.noSuchService(oneLine(service, 80), 'deploy', (await store.run(permissionsFor(who.id))).services),
        );
      const release = version ?? access.latestVersion;

      let target = env;
      if (!target) {
        const answer = await ctx.ask('env', { message: t.envMessage(service, release), form: forms.env });
        if (answer.action !== 'accept') return answer.result();
        target = answer.value.env;
      }
      let ticket: string | null = null;
      if (target === 'prod') {
        const answer = await ctx.ask('prod', {
          message: t.prodMessage(service, await runningInProd(service), release),
          form: forms.prod,
          // Approval lives in the system: the form only carries the ticket number.
          check: async ({ confirmed, ticket: id }) => {
            const issues = confirmed ? [] : [{ field: 'confirmed', message: t.notConfirmed }];
            const found = await store.run(
              get<Ticket>('SELECT id, service, status FROM release_tickets WHERE id = ?', id.trim()),
            );
            if (!found) issues.push({ field: 'ticket', message: t.ticketUnknown(oneLine(id, 40)) });
            else if (found.service !== service)
              issues.push({
                field: 'ticket',
                message: otherService(t, found, id, (await store.run(permissionsFor(who.id))).services),
              });
            else if (found.status !== 'approved')
              issues.push({ field: 'ticket', message: t.ticketNotApproved(found.id, found.status) });
            return issues;
          },
        });
        if (answer.action !== 'accept') return answer.result();
        ticket = answer.value.ticket.trim();
      }
      const to = target;
      // Once per call however often its last round is replayed: the row, the claim and the result
      // commit in one transaction.
      return ctx.commit(
        store.atomic(function* () {
          // Read again in the transaction that writes the row: on 2025 the call is not run again
          // after its questions, and a grant taken away or a ticket withdrawn while the person
          // answered applies to this deployment too.
          const still = yield* accessTo(who.id, 'deploy', service);
          if (!still) return rejected(t.unknownCaller(ctx.user));
          if (still.latestVersion === undefined)
            return rejected(t.noSuchService(oneLine(service, 80), 'deploy', (yield* permissionsFor(who.id)).services));
          if (ticket !== null) {
            const found = yield* get<Ticket>('SELECT id, service, status FROM release_tickets WHERE id = ?', ticket);
            if (!found) return rejected(t.ticketUnknown(oneLine(ticket, 40)));
            if (found.service !== service)
              return rejected(otherService(t, found, ticket, (yield* permissionsFor(who.id)).services));
            if (found.status !== 'approved') return rejected(t.ticketNotApproved(found.id, found.status));
          }
          const id = Number(
            yield* value<number>(
              // The account, and the name it has as it deploys (read in this transaction).
              'INSERT INTO deployments (service, env, version, ticket, deployed_by, deployed_by_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
              service,
              to,
              release,
              ticket,
              still.caller.username,
              still.caller.id,
              now().toISOString(),
            ),
          );
          return done(t.deployed(service, release, to, id, ticket), {
            deployment: { id, service, env: to, version: release, ticket },
          });
        }),
        { atomic: true },
      );
    },
  });
}

const deploymentRow = z.object({
  id: z.number(),
  service: z.string(),
  env: z.string(),
  version: z.string(),
  ticket: z.string().nullable(),
  ...deployerFields,
  created_at: z.string(),
});

type StoredDeployment = Omit<z.infer<typeof deploymentRow>, keyof typeof deployerFields> & DeployerRow;

/** list_deployments: read-only. */
export function listDeploymentsTool({ store }: Deps) {
  return defineTool({
    name: 'list_deployments',
    title: 'List deployments',
    description: 'List past deployments of the services you may see, newest first, optionally for one service.',
    inputSchema: z.object({ service: z.string().max(SERVICE_NAME_MAX).optional().describe('Only this service') }),
    outputSchema: outcomeSchema({ deployments: z.array(deploymentRow), total: z.number() }),
    annotations: { readOnlyHint: true },
    async run({ service }, ctx) {
      const t = MESSAGES[ctx.locale];
      const who = await store.run(findCaller(ctx));
      if (!who) return rejected(t.unknownCaller(ctx.user));
      const permissions = await store.run(permissionsFor(who.id));
      if (service !== undefined && !permissions.may('see', service))
        return rejected(t.noSuchService(oneLine(service, 80), 'see', permissions.services));
      const visible = service === undefined ? permissions.services : [service];
      const found = await store.run(deploymentsOf(visible));
      const total = found.total;
      // One line per deployment, whoever wrote its row (a script, an older opsdesk): a line break
      // in it would read as another deployment, a bidi control would reorder the line.
      const line = (text: string) => oneLine(text, 80);
      const rows = found.rows.map(({ deployed_as, deployed_by_id, deployer_now, ...r }) => ({
        ...r,
        ...deployer(t, { deployed_as, deployed_by_id, deployer_now }),
      }));
      const text =
        rows.length === 0
          ? t.noDeployments
          : [
              t.deploymentsHeader(total),
              ...found.rows.map(
                (r) =>
                  `#${r.id} ${line(r.created_at)} ${line(r.service)} ${line(r.version)} → ${line(r.env)}${r.ticket ? ` (${line(r.ticket)})` : ''} by ${deployer(t, r, line).deployed_by}`,
              ),
              ...(total > rows.length ? [t.deploymentsListed(rows.length, total)] : []),
            ].join('\n');
      return done(text, { deployments: rows, total });
    },
  });
}

/** The most deployments list_deployments lists (all are counted): a busy opsdesk must not be megabytes of text. */
const MAX_LISTED = 200;

/** The newest `MAX_LISTED` deployments of `services`, newest first, and how many there are. */
function* deploymentsOf(services: readonly string[]): Query<{ rows: StoredDeployment[]; total: number }> {
  const list =
    (yield* dialect()) === 'sqlite' ? 'SELECT value FROM json_each(?)' : 'SELECT json_array_elements_text(?::json)';
  const chosen = JSON.stringify(services);
  const rows = yield* all<StoredDeployment>(
    `SELECT d.id, d.service, d.env, d.version, d.ticket, d.created_at, ${DEPLOYER_COLUMNS} FROM deployments d ${DEPLOYER_JOIN} WHERE d.service IN (${list}) ORDER BY d.id DESC LIMIT ${MAX_LISTED}`,
    chosen,
  );
  // Postgres counts in bigint, which its driver hands over as text.
  const counted = yield* value<number | string>(`SELECT COUNT(*) FROM deployments WHERE service IN (${list})`, chosen);
  return { rows, total: Number(counted ?? 0) };
}

/**
 * A ticket of another service: named only to a caller who may see that service; to anyone else
 * it answers as a ticket that does not exist, as a service they may not see answers as one that
 * does not exist — ticket numbers are sequential, and would list every hidden service's name.
 */
function otherService(
  t: (typeof MESSAGES)[keyof typeof MESSAGES],
  found: Ticket,
  typed: string,
  seen: readonly string[],
): string {
  return seen.includes(found.service)
    ? t.ticketOtherService(found.id, found.service)
    : t.ticketUnknown(oneLine(typed, 40));
}
