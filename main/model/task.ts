// A task: a target function in a repository with a requirement and executable tests (the manifest's record,
// and the record as read, with its paths resolved). Plain types and the record's schema; the manifest's format
// is model/manifest.ts, reading and writing the file benchmarks/manifest-file.ts.

import { z } from 'zod';

export const DEFAULT_PLACEHOLDER = '# <<FOCAL_FUNCTION>>';

/** A text field that must say something: spaces or blank lines alone are refused, naming the field's rule. */
const filled = () =>
  z
    .string()
    .min(1)
    .refine((s) => s.trim() !== '', { message: 'is only spaces or blank lines' });

export const TaskRecordSchema = z
  .object({
    id: filled(),
    /** Repository folder; relative paths are relative to the manifest file's folder. */
    repo: filled(),
    /** Target file, relative to the repository root, '/' separators. */
    file: filled(),
    /** Target's qualified name inside its module (`Class.method`, `func`). */
    qualname: filled(),
    /** May be empty in a benchmark's record (the importers then write one from the signature). */
    requirement: z.string(),
    signature: filled(),
    /** Reference solution (the target's full source), when known. Never shown to a generator. */
    reference: z.string().optional(),
    check_template: z.string().optional(),
    placeholder: z.string().optional(),
    test_command: z.string().optional(),
    /** The interpreter the tests run under: a path, or a virtualenv folder (relative to the manifest's folder). */
    python: z.string().min(1).optional(),
    /** Test ids the task's tests consist of, when the harness names them. */
    tests: z.array(z.string()).optional(),
    /** Measured run time of the reference under the tests, in ms (calibrates time limits). */
    reference_runtime_ms: z.number().positive().optional(),
    /** Where the task came from: benchmark name, original ids, project, module. */
    source: z.record(z.string(), z.unknown()).optional(),
    /**
     * The task's own view: a folder (relative to the manifest file's folder, like `repo`) that an
     * API-retrieval protocol (`eval-api --protocol task-view`) indexes as the task's API pool instead
     * of the whole repository. The target's file is at the same relative path `file` inside it.
     */
    task_view: z.string().min(1).optional(),
    /**
     * The APIs the target's reference uses, when the benchmark states them: `module:qualname`
     * (`string_utils.validation:is_string`), a dotted `module.qualname`, or a bare name.
     */
    ground_truth_apis: z.array(z.string().refine((s) => s.trim().length > 0, { message: 'must be a non-empty string' })).optional(),
  })
  .refine((t) => t.check_template !== undefined || t.test_command !== undefined, {
    message: 'a task needs either check_template or test_command',
  });

export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** A task as read from a manifest: `repo` (and `task_view`, when set) resolved to absolute paths. */
export interface Task extends TaskRecord {
  repoPath: string;
  /** `task_view` resolved against the manifest's folder; absent when the task has no view. */
  taskViewPath?: string;
}
