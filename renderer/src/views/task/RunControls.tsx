// The methods, the run button and the job of the latest run, under a task from a manifest or one written by hand.

import { useState } from 'react';
import type { CallError, CustomTask } from '../../api/contract.ts';
import { ErrorBox, JobCard } from '../../components/ui.tsx';
import { asCallError, getStore, useApp } from '../../store.ts';
import { MethodPicker } from './MethodPicker.tsx';

/** Methods + the run button + the job of the latest run. */
export function RunControls({
  req,
  validate,
  onIssues,
}: {
  req: { taskId?: string; custom?: CustomTask };
  validate?: () => CustomTask | null;
  /** The fields an invalid-input answer names (`custom.requirement` …), to show at the field itself. */
  onIssues?: (issues: NonNullable<CallError['issues']>) => void;
}) {
  const selectedMethods = useApp((s) => s.selectedMethods);
  const setSelectedMethods = useApp((s) => s.setSelectedMethods);
  const runTask = useApp((s) => s.runTask);
  const current = useApp((s) => s.taskRun.current);
  const job = useApp((s) => (current ? s.jobs.find((j) => j.id === current.jobId) : undefined));
  const [error, setError] = useState<CallError | null>(null);
  const [busy, setBusy] = useState(false);
  const running = current?.status === 'running' || current?.status === 'loading';
  const start = async () => {
    setError(null);
    let custom = req.custom;
    if (validate) {
      const c = validate();
      if (!c) return;
      custom = c;
    }
    setBusy(true);
    try {
      await runTask({ ...(custom ? { custom } : { taskId: req.taskId! }), methods: selectedMethods });
    } catch (err) {
      const e = asCallError(err);
      setError(e);
      if (e.code === 'invalid-input' && e.issues?.length) onIssues?.(e.issues);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="run-controls" data-testid="run-controls">
      <div className="h4">Methods</div>
      <MethodPicker value={selectedMethods} onChange={setSelectedMethods} />
      <div className="row gap">
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => void start()}
          disabled={busy || running || !selectedMethods.length}
          data-testid="task-run"
        >
          {busy ? 'Starting…' : running ? 'Running…' : `Run ${selectedMethods.length > 1 ? `${selectedMethods.length} methods` : ''}`.trim()}
        </button>
        {!selectedMethods.length ? <span className="muted small">Choose at least one method.</span> : null}
      </div>
      <ErrorBox error={error} title="Could not start the task" onAllowed={() => void start()} testId="task-run-error" />
      {job && running ? <JobCard job={job} onAction={(a) => void getStore().getState().jobAction(job.id, a)} testId="task-job" /> : null}
    </div>
  );
}
