import { describe, expect, it } from 'vitest';
import { publicApi } from '../../client/test/public-api.js';

// The public surface, on purpose: adding or removing a name here is an API change.
describe('the public API of @elicitkit/react', () => {
  const VALUES = ['ElicitationForm', 'LABELS_EN', 'LABELS_ZH', 'UrlConsent', 'createDomRenderer', 'plainText'];

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(new URL('./index.ts', import.meta.url))).toEqual({
      values: VALUES,
      types: ['DomRendererOptions', 'ElicitationFormProps', 'Labels', 'UrlConsentProps'],
      undocumented: [],
    });
  });
});
