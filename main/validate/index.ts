// The validator's public surface: sandboxed validation of candidates, selection and repair.

export { createValidator, Validator, failureText, type ValidatorOptions, type ValidateOptions, type StaticReport } from './validator.ts';
export {
  selectCandidate,
  type CandidateValidator,
  type GroupFn,
  type RepairFn,
  type RepairRequest,
  type Selection,
  type SelectionInput,
  type SelectionTrace,
  type TraceStep,
} from './select.ts';
export { detectSandbox, DEFAULT_LIMITS, SandboxUnavailableError, type SandboxOptions } from './sandbox.ts';
export { planTask, timeoutFor, parseTestCommand, TaskError, type TaskPlan } from './workspace.ts';
export { removeTree } from './cleanup.ts';
export * from '../model/verdict.ts';
