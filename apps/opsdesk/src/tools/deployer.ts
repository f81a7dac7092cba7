import * as z from 'zod/v4';
import type { OpsdeskMessages } from '../messages/index.js';

/**
 * Who made a deployment, as a listing reads it: the row names the account (`deployed_by_id`,
 * never reused) beside the name it had then (`deployed_by`), and `users` gives the name it has
 * now. Select `DEPLOYER_COLUMNS` from `deployments d` with `DEPLOYER_JOIN`.
 */
export const DEPLOYER_COLUMNS = 'd.deployed_by AS deployed_as, d.deployed_by_id, u.username AS deployer_now';
export const DEPLOYER_JOIN = 'LEFT JOIN users u ON u.id = d.deployed_by_id';

/** The deployer columns as read. */
export interface DeployerRow {
  deployed_as: string;
  deployed_by_id: number | string | null;
  deployer_now: string | null;
}

/** What a listed deployment says of who made it: `deployed_by` as shown, `deployed_by_account` the account. */
export const deployerFields = {
  deployed_by: z.string(),
  deployed_by_account: z.number().nullable(),
};

/**
 * The deployer as people read it: the account's name now (a rename shows the new name), or, once
 * the account is removed, the name it had then marked as a removed account with its id, so a
 * newcomer under that name never reads as its author; a row no account was known for (written by
 * name alone before v7, its name held by nobody when migrated) is marked so too.
 */
export function deployer(
  t: OpsdeskMessages,
  row: DeployerRow,
  /** Applied to the name alone (a text line's shortening): the mark after it is never cut off. */
  name: (text: string) => string = (text) => text,
): { deployed_by: string; deployed_by_account: number | null } {
  if (row.deployed_by_id === null)
    return { deployed_by: t.noAccount(name(row.deployed_as)), deployed_by_account: null };
  const account = Number(row.deployed_by_id);
  return {
    deployed_by: row.deployer_now === null ? t.removedAccount(name(row.deployed_as), account) : name(row.deployer_now),
    deployed_by_account: account,
  };
}
