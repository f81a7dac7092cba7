/**
 * The values opsdesk's tools take and offer, which its messages give a title in each language
 * (`messages/`): one list each, the same in every language. Tools and messages both import them
 * from here, so the messages never import a tool.
 */

/** Where deploy_service deploys. */
export const ENVIRONMENTS = ['dev', 'staging', 'prod'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** How sync_file's conflict question lets the person resolve it. */
export const RESOLUTIONS = ['keep_local', 'keep_remote', 'keep_both', 'manual'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** The fields a weekly report needs; each one missing from the arguments is asked for. */
export const REPORT_FIELDS = ['project', 'from', 'to'] as const;
export type ReportField = (typeof REPORT_FIELDS)[number];

/**
 * The longest service (or project) name a tool takes: opsdesk's are a few words. A longer one is
 * refused as an argument, before it reaches a query or the answers remembered per service.
 */
export const SERVICE_NAME_MAX = 128;
