import type { FieldSchema } from '../wire.js';

/** How messages name a field: its title when it has one, else its key, quoted. */
export function labelOf(name: string, field: FieldSchema | undefined): string {
  const title = field?.title?.trim();
  return `"${title && title.length > 0 ? title : name}"`;
}
