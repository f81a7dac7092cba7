'use client';

import { plainText } from '@elicitkit/react';
import { useEffect, useRef, useState } from 'react';
import type { ToolInfo, ToolProperty } from '../lib/wire';
import type { ArgumentFix } from './fix-retry';
import type { PageTexts } from './texts';
import { type FieldKind, fieldKind, fillField, readField } from './tool-fields';

/**
 * The whole-schema check (`schema-check.ts`, Ajv: ~42 KB gzipped), loaded when a tool's form is
 * first opened rather than with the page: a page that never opens one never loads it. A load that
 * failed is tried again at the next call.
 */
let checking: Promise<typeof import('./schema-check')> | undefined;
function loadCheck(): Promise<typeof import('./schema-check')> {
  checking ??= import('./schema-check').catch((error: unknown) => {
    checking = undefined;
    throw error;
  });
  return checking;
}

/**
 * Each tool with a small form for its arguments; calling sends a `/tool {json}` command to the
 * chat, each argument read exactly for its declared type (`tool-fields.ts`): a field whose text
 * cannot be sent as that type is marked, in the page's language, and nothing is sent. `fatal` is why the page has no chat at all (`useChatInfo`'s: the configuration problem the
 * server sent, or `'gone'` when it did not answer): no tools will come, so the panel says why
 * instead of "Loading tools…".
 */
export function ToolsPanel({
  tools,
  error,
  fatal = null,
  disabled,
  onCall,
  fixing = null,
  texts,
}: {
  tools: ToolInfo[];
  error: string | null;
  fatal?: string | null;
  disabled: boolean;
  onCall: (command: string) => void;
  /** A refused call to fix: its tool's form opens with its arguments, the refused ones marked. */
  fixing?: ArgumentFix | null;
  texts: PageTexts;
}) {
  const shown = error ?? (fatal === 'gone' ? texts.serverGone : fatal);
  return (
    <aside className="tools" aria-labelledby="tools-heading">
      <h2 id="tools-heading">{texts.tools}</h2>
      {shown ? <p className="error">{plainText(shown)}</p> : null}
      {tools.length === 0 && !shown ? <p className="muted">{texts.loadingTools}</p> : null}
      {tools.map((tool) => (
        <ToolForm
          key={tool.name}
          tool={tool}
          disabled={disabled}
          onCall={onCall}
          fixing={fixing?.tool === tool.name ? fixing : null}
          texts={texts}
        />
      ))}
    </aside>
  );
}

function ToolForm({
  tool,
  disabled,
  onCall,
  fixing,
  texts,
}: {
  tool: ToolInfo;
  disabled: boolean;
  onCall: (command: string) => void;
  fixing: ArgumentFix | null;
  texts: PageTexts;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [marked, setMarked] = useState<Record<string, string>>({});
  // A rule of the whole call that no field breaks alone (`anyOf` over the arguments…): on the form.
  const [callWhy, setCallWhy] = useState<string | undefined>(undefined);
  // A call being checked: a second press meanwhile sends nothing more (`busy` draws it: aria-busy).
  const checkingCall = useRef(false);
  const [busy, setBusy] = useState(false);
  // Text fields a refused call filled with what their text cannot hold (`""`, a number, null):
  // read as JSON until emptied, so that sending again sends that same value.
  const [asJson, setAsJson] = useState<Record<string, true>>({});
  const [open, setOpen] = useState(false);
  useEffect(() => {
    // Fetched in the background while the person fills the form in (a failure is tried again on calling).
    if (open) loadCheck().catch(() => undefined);
  }, [open]);
  const formRef = useRef<HTMLFormElement | null>(null);
  const detailsRef = useRef<HTMLDetailsElement | null>(null);
  // `true` is a schema too (any JSON). Argument names are the server's: `toString` or `__proto__`
  // must not read (or set) Object's own.
  const properties = Object.entries(tool.inputSchema.properties ?? {}).map(
    ([name, raw]): [string, ToolProperty, FieldKind] => {
      const prop = raw === true ? {} : raw;
      const kind = fieldKind(prop);
      return [
        name,
        prop,
        Object.hasOwn(asJson, name) && kind.kind === 'text' ? { kind: 'json', types: ['string'] } : kind,
      ];
    },
  );
  const typed = (name: string) => (Object.hasOwn(values, name) ? values[name] : undefined);
  const type = (name: string, text: string) => {
    setValues({ ...values, [name]: text });
    if (text === '' && Object.hasOwn(asJson, name)) {
      const { [name]: _emptied, ...rest } = asJson;
      setAsJson(rest);
    }
  };
  const required = new Set(tool.inputSchema.required ?? []);
  // The server's names and options are drawn without bidi overrides (a name reading as another);
  // what is sent back to it stays as it sent them.
  const label = plainText(tool.name);
  /** Scrolls to the first marked field (or the form) and focuses it. */
  const showFirst = (names: string[]) =>
    requestAnimationFrame(() => {
      const first = names[0];
      const field = first ? document.getElementById(`tool-${tool.name}-${first}`) : null;
      (field ?? formRef.current)?.scrollIntoView({ block: 'center' });
      field?.focus();
    });
  // A refused call to fix: its arguments filled in, the refused ones marked, the first focused.
  const nonce = fixing?.nonce;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per fix asked for (its nonce).
  useEffect(() => {
    if (!fixing) return;
    const filled: Record<string, string> = Object.create(null);
    const json: Record<string, true> = Object.create(null);
    for (const [name, raw] of Object.entries(tool.inputSchema.properties ?? {})) {
      if (!Object.hasOwn(fixing.args, name)) continue;
      const fill = fillField(fieldKind(raw === true ? {} : raw), fixing.args[name]);
      if (!fill) continue;
      filled[name] = fill.text;
      if (fill.asJson) json[name] = true;
    }
    setValues(filled);
    setAsJson(json);
    setMarked(fixing.marked);
    setCallWhy(undefined);
    setOpen(true);
    // Opened now, not at the next render: a field inside a closed <details> cannot take focus.
    if (detailsRef.current) detailsRef.current.open = true;
    showFirst(Object.keys(fixing.marked));
  }, [nonce]);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (checkingCall.current) return;
    // Each argument as JSON, read for its declared type; one that does not read is marked on its
    // field and nothing is sent. A number goes as typed: the chat refuses one that would arrive as
    // another value (2.00000000000000001 as 2), and so does the panel, before sending.
    const args: string[] = [];
    const problems: Record<string, string> = Object.create(null);
    for (const [name, prop, kind] of properties) {
      const read = readField(prop, kind, typed(name) ?? '');
      if (read === undefined) continue;
      if ('problem' in read) problems[name] = texts.fieldProblem(read.problem);
      else args.push(`${JSON.stringify(name)}:${read.json}`);
    }
    const command = `{${args.join(',')}}`;
    // Then the call as it would be sent, against the tool's whole schema: items, properties,
    // required (an empty required select too), enums, bounds, patterns, formats, $refs.
    let whole: string | undefined;
    checkingCall.current = true;
    setBusy(true);
    try {
      const { checkCall } = await loadCheck();
      const verdict = checkCall(
        tool.inputSchema,
        JSON.parse(command) as Record<string, unknown>,
        properties.map(([name]) => name),
        new Set(Object.keys(problems)),
      );
      for (const name of verdict?.missing ?? []) {
        const kind = properties.find(([n]) => n === name)?.[2];
        problems[name] = texts.fieldProblem({ is: 'required', choose: kind?.kind === 'choice' });
      }
      for (const [name, rules] of verdict?.fields ?? []) problems[name] = texts.fieldProblem({ is: 'schema', rules });
      if (verdict && verdict.call.length > 0) whole = texts.callProblem(verdict.call);
    } catch (error) {
      // The check could not be loaded (the app unreachable, a new build's chunks): nothing unchecked is sent.
      whole = texts.checkUnavailable(error instanceof Error ? error.message : String(error));
    } finally {
      checkingCall.current = false;
      setBusy(false);
    }
    setMarked(problems);
    setCallWhy(whole);
    // In the form's order: the first marked field is the one focused.
    const names = properties.map(([name]) => name).filter((name) => Object.hasOwn(problems, name));
    if (names.length > 0 || whole !== undefined) {
      showFirst(names);
      return;
    }
    onCall(`/${tool.name} ${command}`);
  };
  return (
    <details
      ref={detailsRef}
      className="tool"
      data-tool={tool.name}
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <code>{label}</code>
        {tool.title ? <span className="muted"> — {plainText(tool.title)}</span> : null}
      </summary>
      {tool.description ? <p className="muted small">{plainText(tool.description)}</p> : null}
      {/* noValidate: what is missing is marked by the panel, in the page's language, not by the browser in its own. */}
      <form
        ref={formRef}
        onSubmit={(event) => void submit(event)}
        aria-busy={busy}
        aria-label={texts.call(label)}
        noValidate
      >
        {properties.map(([name, prop, kind]) => {
          const id = `tool-${tool.name}-${name}`;
          const why = Object.hasOwn(marked, name) ? marked[name] : undefined;
          const hint = kind.kind === 'json' ? texts.jsonField(kind.types) : undefined;
          const describedBy = [why === undefined ? '' : `${id}-why`, hint === undefined ? '' : `${id}-hint`]
            .filter(Boolean)
            .join(' ');
          const aria = {
            ...(why === undefined ? {} : { 'aria-invalid': true }),
            ...(describedBy ? { 'aria-describedby': describedBy } : {}),
          };
          const text = typed(name) ?? '';
          return (
            <div className={`field${why === undefined ? '' : ' marked'}`} key={name}>
              <label htmlFor={id}>
                {plainText(name)}
                {required.has(name) ? (
                  <span aria-hidden="true"> *</span>
                ) : (
                  <span className="muted"> {texts.optional}</span>
                )}
              </label>
              {kind.kind === 'choice' ? (
                <select
                  id={id}
                  {...aria}
                  required={required.has(name)}
                  value={text}
                  onChange={(e) => type(name, e.target.value)}
                >
                  <option value="">{required.has(name) ? texts.choose : texts.leaveEmpty}</option>
                  {/* A refused call's value that is none of the choices: shown as it is, marked when sent. */}
                  {text !== '' && !kind.options.some((o) => o.json === text) ? (
                    <option value={text}>{plainText(text)}</option>
                  ) : null}
                  {kind.options.map((o, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a server may list one value twice.
                    <option key={i} value={o.json}>
                      {plainText(o.label)}
                    </option>
                  ))}
                </select>
              ) : kind.kind === 'json' ? (
                <textarea
                  id={id}
                  {...aria}
                  required={required.has(name)}
                  rows={1}
                  spellCheck={false}
                  value={text}
                  onChange={(e) => type(name, e.target.value)}
                />
              ) : (
                // A number field is text too: `type=number` empties what it cannot read (`1e400`,
                // a filled-back value) and the panel would send nothing, without a word.
                <input
                  id={id}
                  {...aria}
                  required={required.has(name)}
                  type="text"
                  spellCheck={kind.kind === 'number' ? false : undefined}
                  value={text}
                  onChange={(e) => type(name, e.target.value)}
                />
              )}
              {hint !== undefined ? (
                <small id={`${id}-hint`} className="muted">
                  {hint}
                </small>
              ) : null}
              {why !== undefined ? (
                <small id={`${id}-why`} className="why">
                  {plainText(why)}
                </small>
              ) : null}
              {prop.description ? <small className="muted">{plainText(prop.description)}</small> : null}
            </div>
          );
        })}
        {callWhy !== undefined ? (
          <p id={`tools-why-${tool.name}`} className="why">
            {plainText(callWhy)}
          </p>
        ) : null}
        <button
          type="submit"
          disabled={disabled}
          {...(callWhy === undefined ? {} : { 'aria-describedby': `tools-why-${tool.name}` })}
        >
          {texts.call(label)}
        </button>
      </form>
    </details>
  );
}
