/**
 * The public surface of @elicitkit/form, pinned: adding or removing an export must change this
 * file too, so a change to the API is always deliberate. Values are checked at run time, types
 * with the TypeScript compiler itself (they leave no trace at run time).
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const VALUES = [
  'ELICIT_ACTIONS',
  'ElicitkitError',
  'FORM_LIMITS',
  'FormSchemaError',
  'LATEST_REVISION',
  'LOCALE_META_KEY',
  'MAX_ANSWER_LENGTH',
  'REVISIONS',
  'RULES',
  'applyDefaults',
  'coerceContent',
  'coerceValue',
  'confirmationsOf',
  'defaultsOf',
  'describeFields',
  'downgrade',
  'field',
  'form',
  'formatIssues',
  'fromJsonSchema',
  'hasErrors',
  'isLoopbackHost',
  'isRevision',
  'lint',
  'lintForm',
  'needsDowngrade',
  'parseFormSchema',
  'revisionOf',
  'traitsOf',
  'validate',
  'validator',
];

const TYPES = [
  // building forms
  'AnswerOf',
  'AnyFieldDef',
  'AnyForm',
  'BooleanOptions',
  'Choice',
  'ChoiceList',
  'ChoiceValue',
  'Described',
  'FieldDef',
  'Form',
  'Infer',
  'MultiSelectOptions',
  'NumberOptions',
  'ParseOptions',
  'SelectOptions',
  'StandardFormOptions',
  'StringOptions',
  // answers and their checks
  'Coerced',
  'Issue',
  'IssueCode',
  'ValidateOptions',
  'Validation',
  'Validator',
  // the field model
  'BooleanFieldModel',
  'FieldKind',
  'FieldModel',
  'FieldModelOf',
  'MultiSelectFieldModel',
  'NumberFieldModel',
  'OptionModel',
  'SelectFieldModel',
  'TextFieldModel',
  'TextKind',
  // schemas and lint
  'Confirmation',
  'Finding',
  'LintContext',
  'ParsedForm',
  'Rule',
  'RuleCode',
  'SchemaProblem',
  'SchemaProblemCode',
  'Severity',
  // revisions
  'Downgrade',
  'DowngradeLoss',
  'Revision',
  'RevisionTraits',
  // the wire
  'BooleanFieldSchema',
  'ContentValue',
  'ElicitAction',
  'ElicitationRequest',
  'EnumOption',
  'FieldCommon',
  'FieldSchema',
  'FormContent',
  'FormRequest',
  'FormSchema',
  'LegacySelectSchema',
  'MultiSelectSchema',
  'NumberFieldSchema',
  'SelectSchema',
  'StringFieldSchema',
  'StringFormat',
  'TitledMultiSelectSchema',
  'TitledSelectSchema',
  'UntitledMultiSelectSchema',
  'UntitledSelectSchema',
  'UrlRequest',
];

/** Every name `index.ts` exports, split into values and type-only names, as the compiler sees them. */
function compiledExports(entry = './index.ts'): { values: string[]; types: string[] } {
  const file = new URL(entry, import.meta.url).pathname;
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error('index.ts did not compile to a module');
  const values: string[] = [];
  const types: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const typeOnly = (target.flags & ts.SymbolFlags.Value) === 0 || isTypeOnlyExport(symbol);
    (typeOnly ? types : values).push(symbol.name);
  }
  return { values: values.sort(), types: types.sort() };
}

/** `export type { X }` of a class or constant still exports only its type. */
function isTypeOnlyExport(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some(
    (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
  );
}

describe('the public API of @elicitkit/form', () => {
  it('exports exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([...VALUES].sort());
  });

  it('exports exactly these values and types, as the compiler reads index.ts', () => {
    const { values, types } = compiledExports();
    expect(values).toEqual([...VALUES].sort());
    expect(types).toEqual([...TYPES].sort());
  });
});

describe('the public API of @elicitkit/form/clients', () => {
  // What is known of each MCP client: the server adapts forms with it, the CLI plays clients.
  const CLIENT_VALUES = [
    'KNOWN_CLIENTS',
    'YES_NO',
    'adaptForClient',
    'clientQuirksOf',
    'isKnownClientId',
    'knownClient',
    'knownClientOf',
    'restoreAnswer',
  ];
  const CLIENT_TYPES = [
    'AdaptWords',
    'Adaptation',
    'Adapted',
    'ClientInfo',
    'ClientLooks',
    'ClientQuirks',
    'ClientSupport',
    'Evidence',
    'KnownClient',
    'KnownClientId',
  ];

  it('exports exactly these values and types, none of them from the main entry', async () => {
    expect(Object.keys(await import('./clients/index.js')).sort()).toEqual([...CLIENT_VALUES].sort());
    const { values, types } = compiledExports('./clients/index.ts');
    expect(values).toEqual([...CLIENT_VALUES].sort());
    expect(types).toEqual([...CLIENT_TYPES].sort());
    const main = Object.keys(await import('./index.js'));
    expect(main.filter((name) => CLIENT_VALUES.includes(name))).toEqual([]);
  });
});
