// The check of every task of a run before its first model call: what the validator will need of each task
// (its repository folder, target file, test command, interpreter, check template) is looked at up front, so a
// task that can never be judged stops the run at once instead of failing after retrieval and generation.
// Nothing runs in the sandbox here; the reference checks that do run are the orchestrator's next step.

import fs from 'node:fs';
import type { Task } from '../model/task.ts';
import type { PipelineConfig } from '../model/config.ts';
import { emptyListing, planTask, TaskError } from './task-plan.ts';

export interface TaskProblem {
  taskId: string;
  message: string;
}

/** Every problem the validator would meet in these tasks' set-up, one per task (empty: all can be judged). */
export function preflightTasks(tasks: readonly Task[], validation: PipelineConfig['validation']): TaskProblem[] {
  const problems: TaskProblem[] = [];
  for (const task of tasks) {
    try {
      // Only the folder is checked: the full walk (and the copy) happens once, when the task is validated.
      planTask(task, validation, (root) => emptyListing(root, task.id));
      if (task.taskViewPath !== undefined && !fs.existsSync(task.taskViewPath))
        throw new TaskError(`its task_view folder ${task.taskViewPath} does not exist`, task.id);
    } catch (err) {
      if (!(err instanceof TaskError)) throw err;
      problems.push({ taskId: task.id, message: err.message });
    }
  }
  return problems;
}
