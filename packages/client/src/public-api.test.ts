import { describe, expect, it } from 'vitest';
import { publicApi } from '../test/public-api.js';

const entry = (file: string) => new URL(file, import.meta.url);

// The public surface, on purpose: adding or removing a name here is an API change.
describe('the public API of @elicitkit/client', () => {
  const VALUES = [
    'ArgumentError',
    'AttachError',
    'DEFAULT_POLICY',
    'REVISION_CHOICES',
    'RegistryError',
    'ScriptError',
    'ToolSchemaError',
    'attach',
    'checkFormRequest',
    'createMemoryRegistry',
    'createRegistryRenderer',
    'createScriptedRenderer',
    'describeArguments',
    'formatAnswerProblems',
    'inspectUrl',
    'parseAnswers',
    'revisionOptions',
    'toolArguments',
  ];
  const TYPES = [
    'Answer',
    'AnswerProblem',
    'AttachOptions',
    'Attachment',
    'CheckedForm',
    'ElicitationEvent',
    'FormAnswer',
    'FormPrompt',
    'InspectedUrl',
    'MemoryRegistryOptions',
    'OpenOptions',
    'Opener',
    'ParsedAnswers',
    'PendingRegistry',
    'Policy',
    'Prompt',
    'RegistryRendererOptions',
    'RejectedForm',
    'RejectedUrl',
    'Renderer',
    'RendererModes',
    'ResolveResult',
    'RevisionChoice',
    'ScriptedAnswer',
    'ScriptedRenderer',
    'ScriptedRendererOptions',
    'ServerIdentity',
    'SetTimer',
    'ToolSource',
    'UrlAnswer',
    'UrlPrompt',
    'UrlWarning',
    'UrlWarningCode',
  ];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./index.ts'))).toEqual({ values: VALUES, types: TYPES, undocumented: [] });
  });
});

describe('the public API of @elicitkit/client/terminal', () => {
  const VALUES = ['createSystemOpener', 'createTerminalRenderer'];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./terminal.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./terminal.ts'))).toEqual({
      values: VALUES,
      types: ['Spawn', 'SystemOpenerOptions', 'TerminalRendererOptions'],
      undocumented: [],
    });
  });
});
