import { describe, expect, it } from 'vitest';
import { publicApi } from '../../../packages/client/test/public-api.js';

// The package's programmatic entry, on purpose: `main` runs a command line as the binary does.
describe('the public API of the elicitkit package', () => {
  it('ships exactly main and EXIT, and the Io type, each documented', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(['EXIT', 'main']);
    expect(publicApi(new URL('./index.ts', import.meta.url))).toEqual({
      values: ['EXIT', 'main'],
      types: ['Io'],
      undocumented: [],
    });
  });
});
