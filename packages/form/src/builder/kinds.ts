import { boolean } from '../kinds/boolean.js';
import { multiSelect } from '../kinds/multi-select.js';
import { integer, number } from '../kinds/number.js';
import { select } from '../kinds/select.js';
import { string } from '../kinds/text/index.js';

/**
 * Field builders for every shape of the restricted schema; each lives with its kind.
 *
 * @example
 * const deploy = form({
 *   env: field.select([{ value: 'dev', title: 'Development' }, { value: 'prod', title: 'Production' }], { title: 'Environment' }),
 *   confirmed: field.boolean({ title: 'I take responsibility for this release', default: false }),
 * });
 */
export const field = { string, number, integer, boolean, select, multiSelect } as const;
