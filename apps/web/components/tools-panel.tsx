'use client';

import { plainText } from '@elicitkit/react';
import { useEffect, useRef, useState } from 'react';
import type { ToolInfo } from '../lib/wire';
import type { ArgumentFix } from './fix-retry';
import type { PageTexts } from './texts';

/**
 * Each tool with a small form for its arguments; calling sends a `/tool {json}` command to the
 * chat. `fatal` is why the page has no chat at all (`useChatInfo`'s: the configuration problem the
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

/** A number as JSON writes it: a typed one that is, is sent as typed. */
const JSON_NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

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
  const [open, setOpen] = useState(false);
  const formRef = useRef<HTMLFormElement | null>(null);
  const detailsRef = useRef<HTMLDetailsElement | null>(null);
  const properties = Object.entries(tool.inputSchema.properties ?? {});
  // Argument names are the server's: `toString` or `__proto__` must not read (or set) Object's own.
  const typed = (name: string) => (Object.hasOwn(values, name) ? values[name] : undefined);
  const required = new Set(tool.inputSchema.required ?? []);
  // The server's names and options are drawn without bidi overrides (a name reading as another);
  // what is sent back to it stays as it sent them.
  const label = plainText(tool.name);
  // A refused call to fix: its arguments filled in, the refused ones marked, the first focused.
  const nonce = fixing?.nonce;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per fix asked for (its nonce).
  useEffect(() => {
    if (!fixing) return;
    const filled: Record<string, string> = Object.create(null);
    for (const [name, v] of Object.entries(fixing.args))
      if (v !== undefined && v !== null) filled[name] = typeof v === 'string' ? v : JSON.stringify(v);
    setValues(filled);
    setMarked(fixing.marked);
    setOpen(true);
    // Opened now, not at the next render: a field inside a closed <details> cannot take focus.
    if (detailsRef.current) detailsRef.current.open = true;
    const first = Object.keys(fixing.marked)[0];
    requestAnimationFrame(() => {
      const field = first
        ? formRef.current?.querySelector<HTMLElement>(`#${CSS.escape(`tool-${tool.name}-${first}`)}`)
        : null;
      (field ?? formRef.current)?.scrollIntoView({ block: 'center' });
      field?.focus();
    });
  }, [nonce]);
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setMarked({});
    // Each argument as JSON; a number as the person typed it, not as Number() read it: the chat
    // refuses one that would arrive as another value (2.00000000000000001 as 2) instead of sending it.
    const args: string[] = [];
    for (const [name, prop] of properties) {
      const v = typed(name);
      if (v === undefined || v === '') continue;
      const json =
        prop.type === 'number' || prop.type === 'integer'
          ? JSON_NUMBER.test(v)
            ? v
            : JSON.stringify(Number(v))
          : JSON.stringify(prop.type === 'boolean' ? v === 'true' : v);
      args.push(`${JSON.stringify(name)}:${json}`);
    }
    onCall(`/${tool.name} {${args.join(',')}}`);
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
      <form ref={formRef} onSubmit={submit} aria-label={texts.call(label)}>
        {properties.map(([name, prop]) => {
          const id = `tool-${tool.name}-${name}`;
          const why = Object.hasOwn(marked, name) ? marked[name] : undefined;
          const invalid = why === undefined ? {} : { 'aria-invalid': true, 'aria-describedby': `${id}-why` };
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
              {prop.enum ? (
                <select
                  id={id}
                  {...invalid}
                  value={typed(name) ?? ''}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                >
                  <option value="">{required.has(name) ? texts.choose : texts.leaveEmpty}</option>
                  {prop.enum.map((v) => (
                    <option key={v} value={v}>
                      {plainText(v)}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  {...invalid}
                  required={required.has(name)}
                  type={prop.type === 'number' || prop.type === 'integer' ? 'number' : 'text'}
                  value={typed(name) ?? ''}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                />
              )}
              {why !== undefined ? (
                <small id={`${id}-why`} className="why">
                  {plainText(why)}
                </small>
              ) : null}
              {prop.description ? <small className="muted">{plainText(prop.description)}</small> : null}
            </div>
          );
        })}
        <button type="submit" disabled={disabled}>
          {texts.call(label)}
        </button>
      </form>
    </details>
  );
}
