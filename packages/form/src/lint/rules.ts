/** The rule catalogue (`docs/cli.md`, "Rules"): lint judges some from a request alone, doctor the rest from behaviour. */
export type RuleCode =
  | 'EK01'
  | 'EK02'
  | 'EK03'
  | 'EK04'
  | 'EK05'
  | 'EK06'
  | 'EK07'
  | 'EK08'
  | 'EK09'
  | 'EK10'
  | 'EK11'
  | 'EK12'
  | 'EK13'
  | 'EK14'
  | 'EK15'
  | 'EK16'
  | 'EK17'
  | 'EK18';

export type Severity = 'error' | 'warning';

export interface Rule {
  code: RuleCode;
  severity: Severity;
  summary: string;
  /** True when `lint` can judge it from the request alone; the others need a live server (doctor). */
  static: boolean;
}

const rule = (code: RuleCode, severity: Severity, isStatic: boolean, summary: string): Rule => ({
  code,
  severity,
  summary,
  static: isStatic,
});

/** Every rule, by code. */
export const RULES: Readonly<Record<RuleCode, Rule>> = {
  EK01: rule('EK01', 'error', false, 'form elicitation sent to a client that did not declare the mode'),
  EK02: rule('EK02', 'error', true, 'empty form (no properties)'),
  EK03: rule(
    'EK03',
    'error',
    true,
    'property outside the restricted subset (nested object, array of non-enum, $ref, pattern)',
  ),
  EK04: rule('EK04', 'error', false, 'accept with missing or empty content treated as success'),
  EK05: rule('EK05', 'error', false, 'work continues after cancel (another ask, or a success result)'),
  EK06: rule('EK06', 'error', true, 'boolean confirmation with default: true'),
  EK07: rule('EK07', 'warning', true, 'field without title, or enum options without display titles'),
  EK08: rule('EK08', 'warning', false, 'more than 2 asks in one tool call (error past 3)'),
  EK09: rule('EK09', 'error', true, 'form field that asks for a secret'),
  EK10: rule('EK10', 'warning', true, 'destructive action confirmed by a checkbox alone (no typed confirmation)'),
  EK11: rule('EK11', 'warning', true, 'message not self-explanatory'),
  EK12: rule('EK12', 'error', false, 're-asks after decline in the same call'),
  EK13: rule('EK13', 'error', false, 'tool fails, throws or hangs when the client cannot elicit'),
  EK14: rule('EK14', 'error', true, 'URL mode: non-https non-loopback URL, credentials or tokens in the URL'),
  EK15: rule('EK15', 'error', true, 'a default that violates its own field'),
  EK16: rule(
    'EK16',
    'error',
    false,
    'a tool asks on one protocol revision and acts without asking on another (same capability)',
  ),
  EK17: rule(
    'EK17',
    'error',
    false,
    'a 2025-06-18 client receives a shape that revision does not have (oneOf titles, multi-select, non-boolean default, mode)',
  ),
  EK18: rule(
    'EK18',
    'error',
    false,
    'a 2026-07-28 question that changes between rounds by itself (a time, a live count), so its answer never counts',
  ),
};

/** One thing lint or doctor found. */
export interface Finding {
  rule: RuleCode;
  severity: Severity;
  /** The field concerned, when there is one. */
  field?: string;
  message: string;
  /** What to do about it. */
  fix: string;
}

export function finding(code: RuleCode, message: string, fix: string, field?: string, severity?: Severity): Finding {
  const out: Finding = { rule: code, severity: severity ?? RULES[code].severity, message, fix };
  if (field !== undefined) out.field = field;
  return out;
}
