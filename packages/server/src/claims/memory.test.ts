import { claimStoreSuite } from './claims.suite.js';
import { createMemoryClaimStore } from './memory.js';

claimStoreSuite('memory', (clock) => createMemoryClaimStore({ now: clock.now }));
