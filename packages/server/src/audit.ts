import type { FieldModel, FormContent, FormSchema, Issue } from '@elicitkit/form';

/** Fields common to every audit record. */
interface AuditBase {
  /** One id per tool call, shared by every round and every record of that call. */
  contextId: string;
  tool: string;
  /** The ask key. */
  key: string;
  /** Who started the call, when the server knows (`identify`). */
  user?: string;
  /** Epoch milliseconds. */
  at: number;
}

/** The server asked (or would have asked, when `delivered` is false). */
export interface AuditRequest extends AuditBase {
  type: 'request';
  mode: 'form' | 'url';
  revision: string;
  message: string;
  /** Field names for forms; the URL's origin (never its path or query) for URL mode. */
  fields?: string[];
  origin?: string | undefined;
  delivered: boolean;
  /** Why it was not delivered. */
  reason?: string;
}

/** What the person did. Content is redacted unless the kit says otherwise. */
export interface AuditResponse extends AuditBase {
  type: 'response';
  action: 'accept' | 'decline' | 'cancel' | 'timeout' | 'error';
  content?: Record<string, unknown>;
  /** Milliseconds from asking to answering. */
  elapsedMs: number;
  detail?: string;
}

/** What the server made of an accepted answer. Issue messages only, never the values. */
export interface AuditValidation extends AuditBase {
  type: 'validation';
  ok: boolean;
  issues: { field: string; code: string; message: string }[];
}

/** A rule finding raised at ask time, or a handler that broke the outcome contract in production. */
export interface AuditViolation extends AuditBase {
  type: 'violation';
  rule: string;
  message: string;
}

/** The three record kinds the field guidance asks to keep apart, plus rule violations. */
export type AuditEvent = AuditRequest | AuditResponse | AuditValidation | AuditViolation;

/** Receives audit events. Errors it throws are swallowed: auditing must never break a tool call. */
export type AuditSink = (event: AuditEvent) => void | Promise<void>;

/** `redacted` (default): choices and booleans kept, typed text and numbers masked; `full`: as answered. */
export type Redaction = 'redacted' | 'full' | ((content: FormContent, schema: FormSchema) => Record<string, unknown>);

/**
 * Masks what a person typed. Values picked from the server's own option lists and booleans say
 * nothing private and make the trail useful, so they stay.
 */
export function redact(
  content: unknown,
  form: { schema: FormSchema; fields: readonly FieldModel[] } | undefined,
  mode: Redaction,
): Record<string, unknown> | undefined {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return undefined;
  const record = content as Record<string, unknown>;
  if (mode === 'full') return { ...record };
  if (typeof mode === 'function' && form) return mode(record as FormContent, form.schema);
  const kinds = new Map((form?.fields ?? []).map((f) => [f.name, f.kind]));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    const kind = kinds.get(key);
    if ((kind === 'select' || kind === 'multiselect' || kind === 'boolean') && typeof value !== 'object')
      out[key] = value;
    else if (kind === 'multiselect' && Array.isArray(value) && value.every((v) => typeof v === 'string'))
      out[key] = value;
    else if (typeof value === 'string') out[key] = `[redacted: ${[...value].length} chars]`;
    else out[key] = `[redacted: ${value === null ? 'null' : typeof value}]`;
  }
  return out;
}

export function issuesForAudit(issues: readonly Issue[]): AuditValidation['issues'] {
  return issues.map((i) => ({ field: i.path.length > 0 ? String(i.path[0]) : '', code: i.code, message: i.message }));
}
