// The engine's client entry (`bounded-react-temporal/client`): start, watch and decide runs
// from your own services and tools, sign approvals, and build a command line on it.
export { runCli, type CliConfig } from './cli.js';
export { startRun, runIdFor, InvalidRunInputError, type StartedRun } from './start-run.js';
export { directoryEntry, generateKey, KeyFile, readKeyFile, signDecision, signNote, signStart, writeKeyFile } from './sign.js';
export { RunExport, toRunExport, RUN_EXPORT_SCHEMA } from './export-schema.js';
export { waitUntil } from './wait.js';
