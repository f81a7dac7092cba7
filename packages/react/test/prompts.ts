/** Prompts as `attach` builds them, from the public checks of `@elicitkit/client`. */
import { checkFormRequest, type FormPrompt, inspectUrl, type UrlPrompt } from '@elicitkit/client';
import type { FormSchema } from '@elicitkit/form';

export const SERVER = { name: 'opsdesk', version: '1.0.0', title: 'Ops Desk' };

export function formPrompt(
  requestedSchema: FormSchema,
  extra: Partial<Omit<FormPrompt, 'mode' | 'schema' | 'fields'>> = {},
): FormPrompt {
  const message = extra.message ?? 'Which release should be deployed, and where?';
  const checked = checkFormRequest({ message, requestedSchema });
  if (!checked.ok) throw new Error(checked.message);
  const { schema, fields, findings, secretFields, unanswerable } = checked;
  return {
    mode: 'form',
    message,
    server: SERVER,
    findings,
    schema,
    fields,
    secretFields,
    ...(unanswerable.length > 0 ? { unanswerable } : {}),
    attempt: 1,
    ...extra,
  };
}

export function urlPrompt(url: string, message = 'Set your password on the secure page to finish.'): UrlPrompt {
  const seen = inspectUrl(url);
  if (!seen.ok) throw new Error(seen.message);
  const { url: href, host, hostIndex, warnings } = seen;
  return { mode: 'url', message, server: SERVER, findings: [], url: href, host, hostIndex, warnings };
}
