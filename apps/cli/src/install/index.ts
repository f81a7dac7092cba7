export {
  CLIENT_IDS,
  CLIENTS,
  type ClientId,
  type ClientSpec,
  configPath,
  type InstallContext,
  isClientId,
  type JsonValue,
  type Scope,
} from './clients.js';
export { opsdeskCommand } from './default-command.js';
export { type InstallRequest, parseInstallArgs, parseUninstallArgs, type UninstallRequest } from './parse-args.js';
export { type EditPlan, type EditTarget, planEdit, planRemove, type RemovePlan } from './plan-edit.js';
export { type Fsync, readIfExists, type WriteOptions, type Written, writeAtomically } from './write-file.js';
