import type { FormPrompt } from '@elicitkit/client';
import type { Issue } from '@elicitkit/form';
import { LABELS_EN, type Labels } from './labels.js';
import { plain } from './text.js';

/** Rule EK09 (the protocol's security MUSTs): a form must never ask for a secret, so the person is warned first. */
export function SecretWarning({ prompt, labels }: { prompt: FormPrompt; labels: Labels }) {
  if (prompt.secretFields.length === 0) return null;
  const names = prompt.secretFields.map((name) => {
    const field = prompt.fields.find((f) => f.name === name);
    return `“${plain(field?.label ?? name)}”`;
  });
  return (
    <div role="alert" className="ek-notice ek-danger">
      <strong className="ek-notice-title">{labels.secretTitle}</strong>
      <p>{labels.secretBody(names.join(', '))}</p>
    </div>
  );
}

/** Lint findings other than secrets (shown above): what the server's form gets wrong. */
export function Findings({ prompt, labels }: { prompt: FormPrompt; labels: Labels }) {
  const shown = prompt.findings.filter((f) => f.rule !== 'EK09');
  if (shown.length === 0) return null;
  return (
    <div className="ek-notice ek-warning">
      <strong className="ek-notice-title">{labels.findingsTitle}</strong>
      <ul>
        {shown.map((f) => (
          <li key={`${f.rule}:${f.field ?? ''}:${f.message}`}>
            <span className="ek-rule">{f.rule}</span> {plain(f.message)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Why an earlier answer was refused; problems about a field are also shown under it. */
export function Refusal({ title, issues }: { title: string; issues: readonly Issue[] }) {
  return (
    <div role="alert" className="ek-notice ek-danger">
      <strong className="ek-notice-title">{title}</strong>
      {issues.length > 0 && (
        <ul>
          {issues.map((issue) => (
            <li key={`${issue.path.join('.')}:${issue.code}:${issue.message}`}>{plain(issue.message)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Why the question cannot be answered as sent (`FormPrompt.unanswerable`: half of a character in a
 * field's name or a choice), in `labels`' language — English for labels without the words.
 */
export function Unanswerable({ prompt, labels }: { prompt: FormPrompt; labels: Labels }) {
  const found = (prompt.unanswerable ?? []).map((u) => ({
    field: plain(prompt.fields.find((f) => f.name === u.field)?.label ?? u.field),
    where: u.where,
  }));
  if (found.length === 0) return null;
  const say = labels.unanswerable ?? LABELS_EN.unanswerable;
  return (
    <p role="alert" className="ek-notice ek-danger" data-unanswerable="">
      {say?.(found)}
    </p>
  );
}
