/**
 * Doctor's client profiles: each known client (`--clients trae,cursor,…`) connects announcing
 * its `clientInfo.name`, on its revision, and the report says per tool what the person would see
 * in that client — a Yes/No choice in Trae, the 3rd question folded in Cursor, a text prompt in
 * Cline — with a warning where the client would show the form badly.
 */
import { describeFields, type FieldModel } from '@elicitkit/form';
import { type KnownClient, YES_NO } from '@elicitkit/form/clients';
import { outcomeLabel } from './classify.js';
import type { Profile } from './profiles.js';
import type { CallRecord, DoctorRun } from './records.js';

/** What one client would show for one tool (and case). */
export interface ClientToolView {
  tool: string;
  case: string;
  /** One line per question, in order, in the client's words. */
  sees: string[];
  /** Where the client would show the form badly, and what to do. */
  warnings: string[];
}

/** What one client would show, tool by tool. */
export interface ClientView {
  /** The known client's id (`KNOWN_CLIENTS`). */
  client: string;
  name: string;
  /** The doctor profile that played it. */
  profile: string;
  /** The `clientInfo.name` it announced. */
  announced: string;
  tools: ClientToolView[];
}

/**
 * The profile that plays a known client: its revision, form elicitation only (what the field
 * notes describe), and its `clientInfo.name`.
 *
 * @example
 * runDoctor(endpoint, { profiles: [...PROFILES, clientProfile(knownClient('trae'))] });
 */
export function clientProfile(client: KnownClient): Profile {
  return {
    id: `client ${client.id}`,
    revision: client.revision,
    modes: { form: true, url: false },
    // A 2025-06-18 client declares a bare `elicitation: {}` (there are no modes yet).
    capabilities: client.revision === '2025-06-18' ? { elicitation: {} } : { elicitation: { form: {} } },
    client,
  };
}

/** What each client profile of the run would have shown. */
export function clientViews(run: DoctorRun): ClientView[] {
  const views: ClientView[] = [];
  for (const record of run.profiles) {
    const client = record.profile.client;
    if (!client) continue;
    const calls = run.calls.filter((c) => c.profile === record.profile.id && c.outcome.kind !== 'skipped');
    const tools: ClientToolView[] = [];
    // Grouped once by tool and case (a filter per group grew with the square of the tools).
    const groups = new Map<string, CallRecord[]>();
    for (const c of calls) {
      const key = `${c.tool}\0${c.case}`;
      const group = groups.get(key);
      if (group) group.push(c);
      else groups.set(key, [c]);
    }
    for (const [key, mine] of groups) {
      const [tool = '', kase = ''] = key.split('\0');
      // The call that went furthest shows every question the person could meet.
      const furthest = mine.reduce<CallRecord | undefined>(
        (a, c) => (!a || c.asks.length > a.asks.length ? c : a),
        undefined,
      );
      if (furthest) tools.push({ tool, case: kase, ...viewOf(client, furthest) });
    }
    views.push({
      client: client.id,
      name: client.name,
      profile: record.profile.id,
      announced: client.announces,
      tools,
    });
  }
  return views;
}

function viewOf(client: KnownClient, call: CallRecord): { sees: string[]; warnings: string[] } {
  const sees: string[] = [];
  const warnings: string[] = [];
  if (call.asks.length === 0) {
    const outcome = outcomeLabel(call.outcome);
    sees.push(
      outcome === 'unsupported'
        ? 'nothing is asked: the tool names what is missing (unsupported)'
        : `nothing is asked (${outcome})`,
    );
    return { sees, warnings };
  }
  call.asks.forEach((ask, index) => {
    const n = index + 1;
    if (ask.mode === 'url') {
      sees.push(`question ${n}: a page to open (URL mode), which ${client.name} was not declared to support`);
      return;
    }
    const fields = describeFields(ask.params.requestedSchema);
    if (client.quirks.textOnly) {
      const only = fields.length === 1 ? fields[0] : undefined;
      if (only && isText(only)) sees.push(`question ${n}: one line of text ("${only.label}")`);
      else {
        const line = `question ${n}: a form of ${fields.length} field${fields.length === 1 ? '' : 's'} (${fields.map((f) => f.label).join(', ')}) would be reduced to a text prompt`;
        sees.push(line);
        warnings.push(`${line}: ask one text field at a time, or let the tool answer unsupported`);
      }
    } else {
      sees.push(`question ${n}: ${fields.map((f) => fieldSeen(client, f, warnings)).join('; ')}`);
    }
    const folds = client.quirks.foldsAfter;
    if (folds !== undefined && n >= folds) {
      warnings.push(
        `question ${n} would be folded into the ones before it (${client.name} folds from question ${folds} in a row): ask them in one form`,
      );
    }
  });
  return { sees, warnings };
}

function fieldSeen(client: KnownClient, f: FieldModel, warnings: string[]): string {
  const { looks } = client;
  switch (f.kind) {
    case 'boolean':
      if (client.quirks.booleanAsChoice) {
        warnings.push(`"${f.label}" is a boolean, which ${client.name} shows badly: ask it as a Yes/No choice`);
        return `"${f.label}" as ${looks.boolean}`;
      }
      return `"${f.label}" as ${looks.boolean}`;
    case 'select':
      return isYesNo(f) ? `"${f.label}" shown as Yes/No (${looks.select})` : `"${f.label}" as ${looks.select}`;
    case 'multiselect':
      return `"${f.label}" as ${looks.select}, several allowed`;
    default:
      return `"${f.label}" as ${looks.text}`;
  }
}

function isYesNo(f: Extract<FieldModel, { kind: 'select' }>): boolean {
  const values = f.options.map((o) => o.value).sort();
  return values.length === 2 && values[0] === YES_NO.no && values[1] === YES_NO.yes;
}

function isText(f: FieldModel): boolean {
  return (
    f.kind !== 'boolean' &&
    f.kind !== 'select' &&
    f.kind !== 'multiselect' &&
    f.kind !== 'number' &&
    f.kind !== 'integer'
  );
}
