/** The shape of opsdesk's message tables, apart from the tables themselves (so `en` and `zh` import no table). */
import type { Environment, ReportField, Resolution } from '../choices.js';
import type { Access } from '../permissions.js';
import type { Beyond, Danger, SchemaObject } from '../shop/effect.js';
import type { Refusal } from '../shop/inspect.js';
import type { WholeBounds } from '../shorten.js';

/** What a side of a sync conflict shows: its size and when it changed, in the reader's words. */
export interface SideView {
  size: string;
  modified: string;
}

/** What one table went through in an execution (rows inserted, updated, deleted; rows it had before). */
export interface TableChange {
  name: string;
  inserted: number;
  updated: number;
  deleted: number;
  before: number;
}

/** A schema object as shown: its kind (a trigger may share a table's name) and its name. */
export interface ShownObject {
  kind: SchemaObject['type'];
  name: string;
}

/** Schema objects an execution added, removed or altered. */
export interface SchemaChange {
  added: ShownObject[];
  removed: ShownObject[];
  altered: ShownObject[];
}

/**
 * What the SQL confirmation shows: what the statement did on its one run (rolled back), or — when
 * its effect differs from run to run — the bound the person confirms, stated in words. Every name
 * in it (tables, schema objects, the bound's sources) is already made safe for one line, as the
 * statement is: any caller may have named a table.
 */
export interface SqlConfirm {
  /** What the statement does to its target, from `danger`: `drops "orders"`; absent when it varies. */
  what?: string;
  /** The name to type, as shown (made safe for one line, `oneLine`). */
  target: string;
  /**
   * The target's real name is what is shown. When not (line breaks, runs of spaces, control or
   * bidi characters, or too long to show whole), the person types it exactly as shown, and is told so.
   */
  exact: boolean;
  /** The statement whole, as it runs, its lines numbered when several (`shownWhole`): shown in a code block of its own. */
  statement: string;
  /** Per table, what the run did (absent when it varies: no single run's count is shown). */
  did?: TableChange[];
  schema: SchemaChange;
  /** Its effect differs from run to run: the most rows it may change per table, and why it varies. */
  bound?: { tables: { name: string; rows: number }[]; sources: string[] };
}

/** A short line diff: the first changed lines, and how many more there are. */
export interface ShortDiff {
  lines: string[];
  more: number;
}

export interface OpsdeskMessages {
  /** How people of this language write dates and times (a BCP 47 tag for `Intl`). */
  dateLocale: string;
  /** Byte units, smallest first: B, KB, MB, GB. */
  sizeUnits: readonly [string, string, string, string];
  /** Items run together in a sentence: "a, b, c". */
  series(items: readonly string[]): string;
  /** `who`: the kit's identity for the caller (an account id, `accountIdentity`), if any. */
  unknownCaller(who: string | undefined): string;
  /** Who a record names when its account is gone: the name it had then, and the account's id (never reused). */
  removedAccount(name: string, id: number): string;
  /** Who a record names when no account held its name (written by name alone, before v7, by someone since removed). */
  noAccount(name: string): string;

  // deploy_service, list_deployments
  env: Record<Environment, string>;
  envTitle: string;
  envHelp: string;
  envMessage(service: string, version: string): string;
  confirmTitle: string;
  ticketTitle: string;
  ticketHelp: string;
  prodMessage(service: string, from: string | undefined, to: string): string;
  notConfirmed: string;
  ticketUnknown(ticket: string): string;
  ticketOtherService(ticket: string, service: string): string;
  ticketNotApproved(ticket: string, status: string): string;
  /** The same words whether the service is missing or only invisible to this person: no probing. */
  noSuchService(service: string, access: Access, yours: readonly string[]): string;
  deployed(service: string, version: string, env: string, id: number, ticket: string | null): string;
  noDeployments: string;
  deploymentsHeader(count: number): string;
  /** After the list, when it lists fewer deployments than there are. */
  deploymentsListed(listed: number, total: number): string;

  // execute_sql
  understoodTitle: string;
  typedTableTitle: string;
  typedTableHelp: string;
  confirmSql(confirm: SqlConfirm): string;
  /** What the statement does to its target (`kind`: what the target is, a table or another object). */
  danger: Record<Danger, (target: string, kind: SchemaObject['type']) => string>;
  notUnderstood: string;
  wrongTable(typed: string, table: string): string;
  severalStatements(count: number): string;
  emptySql: string;
  /** The SQL holds a NUL character: SQLite stops reading there and would run only the text before it. */
  nulInSql: string;
  /** A statement to be confirmed is too long to be shown whole (`shownWhole`), so it is not asked about: nothing was done. */
  statementTooLong(size: { chars: number; lines: number }, bounds: WholeBounds): string;
  /** The run after the confirmation went beyond it: nothing was kept. Its names already made safe for one line. */
  beyondConfirmed(why: Beyond): string;
  /** `detail` already made safe for one line. */
  sqlTimeout(detail: string): string;
  /** The statement needed more memory than the shop allows one (`mebibytes` MiB): its process was ended, nothing kept. */
  sqlMemory(mebibytes: number): string;
  /** The shop's database (`sqlite` or `postgres`) refused the statement, in its own words (already made safe for one line). */
  sqlError(detail: string, database: 'sqlite' | 'postgres'): string;
  /** The caller has too many statements waiting on the shop. */
  shopBusy: string;
  /** The shop's process, or its database connection, was lost once it had begun to commit the statement: kept or not, nobody can say. */
  shopOutcomeUnknown: string;
  /** The connection was lost as the statement committed, and the database said afterwards that it rolled it back. */
  shopRolledBack: string;
  refused: Record<Refusal, string>;
  rowsReturned(count: number, shown: number, stopped: 'rows' | 'bytes' | undefined): string;
  /** What a kept execution did: per table, and the schema (names already made safe for one line). */
  changed(did: TableChange[], schema: SchemaChange): string;

  // sync_file
  resolutionTitle: string;
  /** The options' titles; `copy` is where keep_both saves the local version (`<path>.local`, or the next free name). */
  resolution(path: string, copy?: string): Record<Resolution, string>;
  /** keep_both's option title when the copy's name makes `resolution`'s too long for one: the name is in the question instead (`copyNamed`). */
  keepBothNamedBelow: string;
  /** Where keep_both saves the local version, a line of the question. */
  copyNamed(copy: string): string;
  conflictMessage(path: string, local: SideView, remote: SideView, diff: ShortDiff | undefined): string;
  deleted: string;
  inSync(path: string): string;
  pushed(path: string): string;
  pulled(path: string): string;
  resolved(path: string, how: string): string;
  leftForManual(path: string): string;
  /** A side changed between the question and the answer: the choice was about other versions. */
  filesChanged(path: string): string;
  badPath(path: string, why: string): string;
  noSuchFile(path: string): string;

  // weekly_report
  projectTitle: string;
  fromTitle: string;
  toTitle: string;
  reportMessage(missing: string): string;
  reportFields: Record<ReportField, string>;
  badDate(field: string, value: string): string;
  fromAfterTo(from: string, to: string): string;
  spanTooLong(days: number): string;
  noSuchProject(project: string): string;
  noProjects: string;
  report(project: string, from: string, to: string, count: number): string;
  /** After a report's lines, when it lists fewer deployments than it counted. */
  reportListed(listed: number, total: number): string;

  // register_user
  usernameTitle: string;
  usernameHelp: string;
  emailTitle: string;
  newsletterTitle: string;
  registerMessage: string;
  usernameTaken(username: string): string;
  usernameChars: string;
  passwordMessage(username: string): string;
  /** The password page found the name taken (another registration finished first): no account. */
  takenOnPage(username: string): string;
  /**
   * The person opened the password page and has not finished there, on a revision whose calls are
   * not picked up again (2025): the account appears when they do, and another call would start
   * another registration, whose name this one holds.
   */
  registerPending(username: string): string;
  /**
   * The client cannot show a step of registering (`form`: the account form, `page`: the password
   * page): no account, and no argument could stand in — register_user takes none, and the password
   * never passes through chat.
   */
  registerUnsupported(step: 'form' | 'page'): string;
  registered(username: string): string;
  /**
   * The person declined or cancelled a round of a call whose page had made its account already (a
   * 2026-07-28 round sent again): nothing more was done, and the account stays.
   */
  madeBeforeRefusal(username: string): string;
}
