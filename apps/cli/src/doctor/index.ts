export { type DoctorFinding, judge } from './judge.js';
export { PROFILES, type Profile, type Strategy } from './profiles.js';
export { buildReport, type DoctorReport, outcomeLabel, renderText } from './report.js';
export { type CallRecord, type DoctorOptions, type DoctorRun, runDoctor } from './run.js';
