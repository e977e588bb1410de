// The renderer's one door to the contract: everything it needs from contract is re-exported here, so a
// view never names a path outside renderer/ except through this file. Only contract is imported, never main/.

export { CALLS, CONTRACT_VERSION, EngineCallError, parseCall, PathSchema, CustomTaskSchema, SettingsSchema, PipelineOverridesSchema, SourcesSchema, BackendSchema, BACKEND_KINDS, PricesSchema, PIPELINE_DEFAULTS, DEFAULT_MODELS } from '../../../contract/index.ts';
export type {
  AppInfo,
  CallError,
  CallInput,
  CallName,
  CallOutput,
  CostEstimateInfo,
  CustomTask,
  EngineApi,
  EngineEvent,
  ErrorCode,
  JobInfo,
  JobKind,
  JobProgress,
  JobState,
  MethodInfo,
  ModelPrice,
  PricesInfo,
  PipelineOverrides,
  RepoSummary,
  ReportFile,
  ReportModel,
  RunListItem,
  SamplePassK,
  Settings,
  SkippedFile,
  Sources,
  TaskResult,
  TaskSummary,
  EvidenceRow,
  TaskDetail,
  CandidateOutcome,
  ConditionSummary,
  FactorialAnalysis,
  PairedComparison,
  RunProvenance,
  TaskRow,
  BackendChoice,
} from '../../../contract/index.ts';

export type Source = 'api' | 'context' | 'similar';
export const SOURCES: readonly Source[] = ['api', 'context', 'similar'];
