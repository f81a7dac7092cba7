// @vitest-environment jsdom
import { afterAll, vi } from 'vitest';
import { rendererConformance } from '../../client/src/renderers/conformance.suite.js';
import { reactDriver } from '../test/react-driver.js';

// The suite's date-time answer carries +08:00: the person at this keyboard is in Shanghai, and a
// datetime-local input answers in the person's own offset.
vi.stubEnv('TZ', 'Asia/Shanghai');
afterAll(() => {
  vi.unstubAllEnvs();
});

rendererConformance('react', reactDriver);
