'use client';

import { useState } from 'react';
import type { ToolInfo } from '../lib/wire';
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
  texts,
}: {
  tools: ToolInfo[];
  error: string | null;
  fatal?: string | null;
  disabled: boolean;
  onCall: (command: string) => void;
  texts: PageTexts;
}) {
  const shown = error ?? (fatal === 'gone' ? texts.serverGone : fatal);
  return (
    <aside className="tools" aria-labelledby="tools-heading">
      <h2 id="tools-heading">{texts.tools}</h2>
      {shown ? <p className="error">{shown}</p> : null}
      {tools.length === 0 && !shown ? <p className="muted">{texts.loadingTools}</p> : null}
      {tools.map((tool) => (
        <ToolForm key={tool.name} tool={tool} disabled={disabled} onCall={onCall} texts={texts} />
      ))}
    </aside>
  );
}

function ToolForm({
  tool,
  disabled,
  onCall,
  texts,
}: {
  tool: ToolInfo;
  disabled: boolean;
  onCall: (command: string) => void;
  texts: PageTexts;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const properties = Object.entries(tool.inputSchema.properties ?? {});
  const required = new Set(tool.inputSchema.required ?? []);
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const args: Record<string, unknown> = {};
    for (const [name, prop] of properties) {
      const v = values[name];
      if (v === undefined || v === '') continue;
      args[name] =
        prop.type === 'number' || prop.type === 'integer' ? Number(v) : prop.type === 'boolean' ? v === 'true' : v;
    }
    onCall(`/${tool.name} ${JSON.stringify(args)}`);
  };
  return (
    <details className="tool" data-tool={tool.name}>
      <summary>
        <code>{tool.name}</code>
        {tool.title ? <span className="muted"> — {tool.title}</span> : null}
      </summary>
      {tool.description ? <p className="muted small">{tool.description}</p> : null}
      <form onSubmit={submit} aria-label={texts.call(tool.name)}>
        {properties.map(([name, prop]) => {
          const id = `tool-${tool.name}-${name}`;
          return (
            <div className="field" key={name}>
              <label htmlFor={id}>
                {name}
                {required.has(name) ? (
                  <span aria-hidden="true"> *</span>
                ) : (
                  <span className="muted"> {texts.optional}</span>
                )}
              </label>
              {prop.enum ? (
                <select
                  id={id}
                  value={values[name] ?? ''}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                >
                  <option value="">{required.has(name) ? texts.choose : texts.leaveEmpty}</option>
                  {prop.enum.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  required={required.has(name)}
                  type={prop.type === 'number' || prop.type === 'integer' ? 'number' : 'text'}
                  value={values[name] ?? ''}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                />
              )}
              {prop.description ? <small className="muted">{prop.description}</small> : null}
            </div>
          );
        })}
        <button type="submit" disabled={disabled}>
          {texts.call(tool.name)}
        </button>
      </form>
    </details>
  );
}
