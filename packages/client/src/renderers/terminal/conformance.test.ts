import { terminalDriver } from '../../../test/terminal-driver.js';
import { rendererConformance } from '../conformance.suite.js';

rendererConformance('terminal', terminalDriver);
