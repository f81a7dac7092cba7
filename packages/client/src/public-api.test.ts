import { describe, expect, it } from 'vitest';
import { publicApi } from '../test/public-api.js';

const entry = (file: string) => new URL(file, import.meta.url);

// The public surface, on purpose: adding or removing a name here is an API change.
describe('the public API of @elicitkit/client', () => {
  const VALUES = [
    'ArgumentError',
    'AttachError',
    'ConnectTimeoutError',
    'DEFAULT_POLICY',
    'MAX_MESSAGE_LENGTH',
    'REVISION_CHOICES',
    'RegistryError',
    'RevisionChoiceError',
    'STREAM_ENDED_MESSAGE',
    'ScriptError',
    'ToolSchemaError',
    'answerOf',
    'attach',
    'checkFormRequest',
    'connectWithin',
    'createMemoryRegistry',
    'createRateLimiter',
    'createRegistryRenderer',
    'createScriptedRenderer',
    'describeArguments',
    'formatAnswerProblems',
    'guardStreamEnds',
    'inspectUrl',
    'jsonText',
    'listToolsSafely',
    'messageProblem',
    'notAsTyped',
    'notAsTypedWhy',
    'numberNotAsTyped',
    'numberReadAs',
    'parseAnswers',
    'parseRevisionChoice',
    'revisionOptions',
    'schemaProblemText',
    'serverDeadline',
    'toolArguments',
  ];
  const TYPES = [
    'Answer',
    'AnswerProblem',
    'ArgumentProblem',
    'AttachOptions',
    'Attachment',
    'CheckedForm',
    'ConnectWithinOptions',
    'DuplicateName',
    'ElicitationEvent',
    'FormAnswer',
    'FormPrompt',
    'InspectedUrl',
    'JsonTextOptions',
    'MemoryRegistryOptions',
    'NotAsTyped',
    'NotAsTypedOptions',
    'NotAsTypedReason',
    'OpenOptions',
    'Opener',
    'ParsedAnswers',
    'PendingEntry',
    'PendingRegistry',
    'Policy',
    'Prompt',
    'RateLimiter',
    'RegistryRendererOptions',
    'RejectedForm',
    'RejectedUrl',
    'Renderer',
    'RendererModes',
    'ResolveResult',
    'RevisionChoice',
    'SafeToolList',
    'SchemaFound',
    'SchemaProblem',
    'ScriptedAnswer',
    'ScriptedRenderer',
    'ScriptedRendererOptions',
    'ServerDeadline',
    'ServerIdentity',
    'SetTimer',
    'SettleReason',
    'Settlement',
    'ToolSource',
    'Unanswerable',
    'UnanswerableReason',
    'UrlAnswer',
    'UrlPrompt',
    'UrlRequiredOutcome',
    'UrlWarning',
    'UrlWarningCode',
    'ValueProblem',
  ];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./index.ts'))).toEqual({ values: VALUES, types: TYPES, undocumented: [] });
  });
});

describe('the public API of @elicitkit/client/terminal', () => {
  const VALUES = ['clean', 'createSystemOpener', 'createTerminalRenderer'];

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

describe('the public API of @elicitkit/client/schema-validator', () => {
  const VALUES = ['SchemaValidator', 'linearPattern', 'schemaEngine'];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./schema-validator.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./schema-validator.ts'))).toEqual({
      values: VALUES,
      types: ['LinearPattern', 'SchemaValidatorOptions'],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/client/redis', () => {
  it('ships exactly createRedisRateLimiter and createRedisRegistry', async () => {
    expect(Object.keys(await import('./redis.js')).sort()).toEqual(['createRedisRateLimiter', 'createRedisRegistry']);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./redis.ts'))).toEqual({
      values: ['createRedisRateLimiter', 'createRedisRegistry'],
      types: ['RedisRateLimiterOptions', 'RedisRegistry', 'RedisRegistryOptions'],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/client/typed-json', () => {
  it('declares exactly the reading of typed JSON and the writing of JSON at any depth, each documented (values with an @example)', () => {
    expect(publicApi(entry('./typed-json.ts'))).toEqual({
      values: ['jsonText', 'notAsTyped', 'notAsTypedWhy', 'numberNotAsTyped', 'numberReadAs'],
      types: ['JsonTextOptions', 'NotAsTyped', 'NotAsTypedOptions', 'NotAsTypedReason'],
      undocumented: [],
    });
  });

  it('imports nothing outside the package: a browser bundle of it carries no SDK', async () => {
    const { readFileSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const { dirname, join } = await import('node:path');
    const src = dirname(fileURLToPath(import.meta.url));
    for (const file of ['typed-json.ts', 'arguments-json.ts', 'exact-number.ts', 'json-text.ts'])
      expect(readFileSync(join(src, file), 'utf8'), file).not.toMatch(/^\s*(?:import|export)\s[^'"]*?from\s+'[^.]/m);
  });
});

describe('the public API of @elicitkit/client/testing', () => {
  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./testing.ts'))).toEqual({
      values: ['manualClock', 'registrySuite'],
      types: ['ManualClock', 'RegistryFactory'],
      undocumented: [],
    });
  });

  it('keeps vitest out of every other entry', async () => {
    const { readFileSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const { dirname, join } = await import('node:path');
    const src = dirname(fileURLToPath(import.meta.url));
    const importers = ['index.ts', 'redis.ts', 'terminal.ts', 'registry/memory.ts', 'registry/redis.ts'].filter((f) =>
      /from 'vitest'/.test(readFileSync(join(src, f), 'utf8')),
    );
    expect(importers).toEqual([]);
    expect(readFileSync(join(src, 'registry/registry.suite.ts'), 'utf8')).toMatch(/from 'vitest'/);
  });
});
