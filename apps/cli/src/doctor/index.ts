export { MAX_ASKS } from './answer.js';
export type { Branch } from './branches.js';
export { type CallOutcome, outcomeLabel, type SkipReason } from './classify.js';
export { type ClientToolView, type ClientView, clientProfile } from './clients.js';
export type {
  CoverageSummary,
  NotReached,
  QuestionBranch,
  QuestionCoverage,
  Untried,
  UntriedBranch,
} from './coverage.js';
export { type Endpoint, endpointFor } from './endpoint.js';
export { EXPLORE_DEFAULTS, type ExploreLimits, type LeftBranch, type LeftReason } from './explore.js';
export type { DoctorFinding, DoctorNote, Transcript } from './findings.js';
export { OPSDESK_FIXTURES } from './fixtures/opsdesk.js';
export { FixtureError, type Fixtures, parseFixtures, readFixtures } from './fixtures.js';
export { judge } from './judge.js';
export { startOwnOpsdesk } from './own-opsdesk.js';
export { PROFILES, type Profile, type Strategy } from './profiles.js';
export { renderText } from './render-text.js';
export { buildReport, type DoctorReport } from './report.js';
export { checkRestart, type RestartCheck } from './restart.js';
export { type CallRecord, type DoctorOptions, type DoctorRun, runDoctor } from './run.js';
export { confirmToProceed, isDestructive, liveServerWarning } from './safety.js';
