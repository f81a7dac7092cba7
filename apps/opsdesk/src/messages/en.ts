/** opsdesk's English texts. */
import { codeBlock, codeSpan } from '../shorten.js';
import type { OpsdeskMessages, SchemaChange, ShownObject, TableChange } from './types.js';

/** A schema object's kind, in words. */
const KIND = {
  table: 'table',
  index: 'index',
  view: 'view',
  trigger: 'trigger',
  function: 'function',
  rule: 'rule',
  sequence: 'sequence',
} as const;

/** A schema object as a person reads it: its kind, then its name. */
const object = (o: ShownObject) => `${KIND[o.kind]} ${codeSpan(o.name)}`;

export const en: OpsdeskMessages = {
  dateLocale: 'en-GB',
  sizeUnits: ['B', 'KB', 'MB', 'GB'],
  series: (items) => items.join(', '),

  env: { dev: 'Development (dev)', staging: 'Staging (staging)', prod: 'Production (prod)' },
  envTitle: 'Environment',
  envHelp: 'Production asks for an approved release ticket next.',
  envMessage: (service, version) => `Which environment should ${service} ${version} be deployed to?`,
  confirmTitle: 'I have reviewed the change and take responsibility for this production release',
  ticketTitle: 'Release ticket',
  ticketHelp: 'The approved release ticket for this service, e.g. REL-1001',
  prodMessage: (service, from, to) =>
    `Deploy ${service} to PRODUCTION: ${from === undefined ? `${to} (its first production deployment)` : from === to ? `${to} again (already running ${from})` : `${from} → ${to}`}? Tick the confirmation and give the approved release ticket.`,
  notConfirmed: 'The production confirmation was not ticked.',
  ticketUnknown: (t) => `Release ticket ${t} does not exist.`,
  ticketOtherService: (t, s) => `Release ticket ${t} belongs to ${s}, not this service.`,
  ticketNotApproved: (t, status) => `Release ticket ${t} is ${status}, not approved.`,
  noSuchService: (s, access, yours) =>
    `There is no service called "${s}" that you may ${{ see: 'see', deploy: 'deploy', report: 'report on' }[access]}. ${yours.length > 0 ? `Yours: ${yours.join(', ')}.` : 'You may not act on any service.'}`,
  deployed: (s, v, env, id, ticket) =>
    `Deployed ${s} ${v} to ${env} (deployment #${id}${ticket ? `, ticket ${ticket}` : ''}).`,
  unknownCaller: (who) =>
    `opsdesk does not know who is calling (${who === undefined ? 'no identity' : `account ${who}`}), so it did nothing.`,
  removedAccount: (name, id) => `${name} (removed account #${id})`,
  noAccount: (name) => `${name} (no account)`,
  noDeployments: 'No deployments yet.',
  deploymentsHeader: (n) => `${n} deployment${n === 1 ? '' : 's'}:`,
  deploymentsListed: (listed, total) => `(The newest ${listed} of ${total} are listed.)`,

  understoodTitle: 'I understand this statement cannot be undone',
  typedTableTitle: 'Type the table name to confirm',
  typedTableHelp: 'Exactly the name of the table the statement changes',
  confirmSql: (c) =>
    [
      c.bound
        ? `This statement's effect differs from run to run (it calls ${c.bound.sources.map((f) => `${f}()`).join(', ')}), so no single count can be shown. Confirm that it may change up to ${c.bound.tables.map((b) => `${b.rows} rows of ${codeSpan(b.name)}`).join(', ')}${schemaWords(c.schema)}. If the run after your confirmation would change more, nothing is done.`
        : `This statement ${c.what}. It ran once and was rolled back; it did this:\n${didLines(c.did ?? [], c.schema)}\nIf the shop changes before you confirm and the statement would then do more, nothing is done.`,
      `Statement:\n${codeBlock(c.statement)}`,
      `To run it, tick the box and type ${codeSpan(c.target)}.${c.exact ? '' : ` Type it exactly as shown here: the real name cannot be shown as it is (it holds line breaks, runs of spaces, control or bidi characters — shown as \uFFFD — or is too long and is shortened at "…").`} It cannot be undone.`,
    ].join('\n'),
  danger: {
    drop: (target, kind) => `drops the ${KIND[kind]} "${target}"`,
    schema: (target, kind) => `changes the schema of the ${KIND[kind]} "${target}"`,
    'every-row': (target) => `changes every row of "${target}"`,
    'many-rows': (target) => `changes "${target}"`,
  },
  notUnderstood: 'The "I understand" box was not ticked.',
  wrongTable: (typed, table) => `"${typed}" is not the table this statement changes (${table}).`,
  severalStatements: (n) => `execute_sql runs one statement per call; this SQL holds ${n}. Send them one at a time.`,
  emptySql: 'the SQL is empty',
  nulInSql:
    'The SQL holds a NUL character (U+0000). SQLite stops reading at it and would run only the text before it, ignoring the rest, so nothing was run: remove it.',
  statementTooLong: (size, bounds) =>
    `This statement needs the user's confirmation before it runs, and a confirmation shows the statement whole, as it runs: at most ${bounds.chars.toLocaleString('en-US')} characters on ${bounds.lines} lines. This one has ${size.chars.toLocaleString('en-US')} on ${size.lines}. Nothing was done: send it as shorter statements.`,
  beyondConfirmed: (why) =>
    `Nothing was done: run again after your confirmation, the statement ${
      why.kind === 'rows'
        ? `would have changed ${why.rows} rows of ${codeSpan(why.table)}, more than the ${why.allowed} you confirmed`
        : why.kind === 'change'
          ? `would have ${why.change} ${why.rows} rows of ${codeSpan(why.table)}, where you confirmed ${why.allowed === 0 ? 'none' : `at most ${why.allowed}`} ${why.change}`
          : why.kind === 'table'
            ? `would also have changed ${why.rows} rows of ${codeSpan(why.table)}, which you were not shown`
            : why.kind === 'schema'
              ? `would also have changed ${codeSpan(why.name)}, which you were not shown`
              : 'needed a confirmation'
    }. Run it again to see what it does now.`,
  sqlTimeout: (m) => `Stopped: ${m}. Nothing it did was kept. Narrow it with a WHERE or a LIMIT.`,
  sqlMemory: (mib) =>
    `Stopped while running: the statement needed more than the ${mib} MiB of memory the shop allows a statement. Nothing it did was kept. Make its values smaller, or narrow it with a WHERE or a LIMIT.`,
  shopBusy: 'You already have statements waiting or running on the shop; send this one when they have finished.',
  shopOutcomeUnknown:
    'The shop stopped, or lost its database, while it was committing this statement, so it may or may not have been kept. It was not run again: look at the data (a SELECT) before sending it again.',
  shopRolledBack:
    'The connection to the database was lost as this statement was being committed; asked afterwards, the database said it rolled it back. Nothing it did was kept: you may send it again.',
  sqlError: (m, database) => `${database === 'postgres' ? 'PostgreSQL' : 'SQLite'} refused the statement: ${m}`,
  refused: {
    pragma: 'execute_sql does not run PRAGMA statements: opsdesk owns the connection settings.',
    attach: 'execute_sql does not ATTACH or DETACH databases: it works on the demo shop only.',
    vacuum: 'execute_sql does not run VACUUM (VACUUM INTO writes a file elsewhere).',
    transaction: 'execute_sql does not run BEGIN, COMMIT, ROLLBACK or SAVEPOINT: each call is its own transaction.',
    extension: 'execute_sql does not load extensions.',
    'other-database':
      "execute_sql works on the demo shop only: temporary tables, views and triggers are not allowed, nor reading the temporary database (where opsdesk keeps each run's own counting objects).",
    'virtual-table':
      'execute_sql reads json_each and json_tree only; other virtual tables (pragma_*, dbstat, fts) are off limits.',
    explain: 'execute_sql does not run EXPLAIN.',
    'internal-table':
      "execute_sql does not change the rows of SQLite's own tables (sqlite_sequence, sqlite_stat1, sqlite_stat4): SQLite keeps them itself, and no change to them could be counted or shown. Reading them is fine.",
    session:
      'execute_sql does not run SET, RESET, DISCARD, LISTEN, NOTIFY, COPY or LOAD: opsdesk owns the connection, and each call is one statement on the demo shop.',
    role: "execute_sql does not change roles (ALTER ROLE, CREATE ROLE…): the shop's role and its settings are opsdesk's, the bounds every statement runs within. Nothing the statement did was kept.",
    'large-object':
      "execute_sql does not create, change or remove large objects: they are stored outside the shop's tables, where nothing of them could be counted or shown. Nothing the statement did was kept.",
  },
  rowsReturned: (n, shown, stopped) =>
    stopped === 'rows'
      ? `More than ${n} rows: the read was stopped there (first ${shown} shown). Add a LIMIT or a WHERE.`
      : stopped === 'bytes'
        ? `The result is too large: the read was stopped after ${n} row${n === 1 ? '' : 's'} (first ${shown} shown). Select fewer or smaller columns.`
        : `${n} row${n === 1 ? '' : 's'}${shown < n ? ` (first ${shown} shown)` : ''}.`,
  changed: (did, schema) => `Done.\n${didLines(did, schema)}`,

  resolutionTitle: 'How should the conflict be resolved?',
  resolution: (path, copy = `${path}.local`) => ({
    keep_local: 'Keep my local version',
    keep_remote: 'Keep the remote version',
    keep_both: `Keep both (local saved as ${copy})`,
    manual: 'Leave both; I will merge by hand',
  }),
  keepBothNamedBelow: 'Keep both (local saved as the copy the question names)',
  copyNamed: (copy) => `Keep both saves the local version as ${copy}.`,
  conflictMessage: (path, local, remote, diff) =>
    [
      `${path} changed on both sides since the last sync.`,
      `Local: ${local.size}, modified ${local.modified}.`,
      `Remote: ${remote.size}, modified ${remote.modified}.`,
      ...(diff
        ? [
            'Differences (- remote, + local):',
            '```diff',
            ...diff.lines,
            '```',
            ...(diff.more > 0 ? [`… and ${diff.more} more changed line${diff.more === 1 ? '' : 's'}`] : []),
          ]
        : ['(no line diff: binary or very large content)']),
      'Which version should win?',
    ].join('\n'),
  deleted: 'deleted',
  inSync: (path) => `${path} is already in sync.`,
  pushed: (path) => `${path}: the local change was copied to remote.`,
  pulled: (path) => `${path}: the remote change was copied to local.`,
  resolved: (path, how) => `${path}: conflict resolved (${how}).`,
  leftForManual: (path) =>
    `${path}: both versions left in place for you to merge by hand; run sync_file again afterwards.`,
  filesChanged: (path) =>
    `Not done: ${path} changed while you were deciding. Run sync_file again to see the conflict as it is now.`,
  badPath: (path, why) => `Refused path "${path}": ${why}.`,
  noSuchFile: (path) => `${path} exists on neither side.`,

  projectTitle: 'Project',
  fromTitle: 'From (YYYY-MM-DD)',
  toTitle: 'To (YYYY-MM-DD)',
  reportMessage: (missing) => `To build the weekly report, choose ${missing}. The range may span at most 31 days.`,
  reportFields: { project: 'the project', from: 'the start date', to: 'the end date' },
  badDate: (field, value) => `${field} "${value}" is not a real calendar date (YYYY-MM-DD).`,
  fromAfterTo: (from, to) => `The range starts (${from}) after it ends (${to}).`,
  spanTooLong: (days) => `The range spans ${days} days; at most 31 are allowed.`,
  noSuchProject: (project) => `There is no project called "${project}" that you may see reports for.`,
  noProjects: 'You may not see any project.',
  report: (project, from, to, count) =>
    `Weekly report for ${project}, ${from} to ${to}: ${count} deployment${count === 1 ? '' : 's'}.`,
  reportListed: (listed, total) => `(The first ${listed} of ${total} are listed.)`,

  usernameTitle: 'Username',
  usernameHelp: 'Letters, digits, dot, dash or underscore',
  emailTitle: 'Email',
  newsletterTitle: 'Send me the opsdesk newsletter',
  registerMessage: 'Create your opsdesk account. You will set the password on a secure page next, never in this form.',
  usernameTaken: (u) => `The username "${u}" is taken.`,
  usernameChars: 'Use letters, digits, dot, dash or underscore in the username.',
  passwordMessage: (u) =>
    `Set the password for ${u} on the secure opsdesk page (the link works once and expires in 15 minutes).`,
  takenOnPage: (u) =>
    `The username "${u}" was taken while the page was open, by a registration that finished first. No account was created; register again with another name.`,
  registered: (u) => `Account ${u} created and its password set.`,
  madeBeforeRefusal: (u) =>
    `Nothing more was done. Before this answer, this call had already created account ${u} (its password was set on the secure page); the account stays.`,
  registerPending: (u) =>
    `The user agreed to set the password for ${u} on the secure opsdesk page and has not finished there yet. The account is created the moment they do (the link expires in 15 minutes); nothing else is needed. Do not call register_user again for it: that starts another registration, and the name ${u} is held by this one.`,
  registerUnsupported: (step) =>
    `This client cannot ask the user ${step === 'form' ? 'in a form (the account details)' : 'on a page (URL-mode elicitation), which setting the password needs'}, so register_user made no account. The password is set on a secure opsdesk page, never in a form or in chat, and register_user takes no arguments: calling it again will not help. The user can register from a client that supports both form and URL-mode elicitation.`,
};

/** One line per table an execution touched, then one per schema change. */
function didLines(did: readonly TableChange[], schema: SchemaChange): string {
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  const lines = did.map((t) => {
    const parts = [
      t.deleted > 0 ? `${rows(t.deleted)} deleted` : '',
      t.updated > 0 ? `${rows(t.updated)} updated` : '',
      t.inserted > 0 ? `${rows(t.inserted)} inserted` : '',
    ].filter(Boolean);
    return `- ${codeSpan(t.name)}: ${parts.join(', ')} (it had ${t.before})`;
  });
  for (const o of schema.removed) lines.push(`- ${object(o)} dropped`);
  for (const o of schema.added) lines.push(`- ${object(o)} created`);
  for (const o of schema.altered) lines.push(`- ${object(o)} changed`);
  return lines.length > 0 ? lines.join('\n') : '- no rows changed';
}

/** The schema changes a stated bound covers, as a clause. */
function schemaWords(schema: SchemaChange): string {
  const all = [...schema.removed, ...schema.added, ...schema.altered];
  return all.length > 0 ? `, and change ${all.map(object).join(', ')}` : '';
}
