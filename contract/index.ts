// The contract between the UI and the engine: every call the renderer may make, with a schema that validates
// its input at the boundary and one that describes its output, and every event the engine pushes. Electron IPC
// (app/) and browser mode's HTTP + WebSocket (main/host/server.ts) both carry exactly this; the renderer
// imports nothing else. The parts live beside this file, which re-exports them all:
//   shared.ts  the shared input schemas (paths, settings, backends, prices, custom tasks, experiment requests)
//   dto.ts     what the calls answer (AppInfo, RepoSummary, JobInfo, …) as schemas with inferred types
//   events.ts  the engine's events and the error a failed call answers
//   calls.ts   the CALLS table (input and output per call), its types, parseCall and parseOutput
//
// Engine data types (ReportModel, TaskResult, …) are named with `import type` only: no engine code can reach
// the renderer bundle through here. Paths arrive as strings and are checked by the host against the allowed
// roots after the schema (a schema cannot know which folders the user opened).

export type { ReportModel, ConditionSummary, FactorialAnalysis, PairedComparison, RunProvenance, TaskRow } from '../main/model/report.ts';
export type { TaskResult, EvidenceRow, TaskDetail, CandidateOutcome, TaskFailure } from '../main/model/results.ts';

export const CONTRACT_VERSION = 1;

export * from './shared.ts';
export * from './dto.ts';
export * from './events.ts';
export * from './calls.ts';
