// Task: choose a manifest and a task (or write one), choose methods, run, and inspect the result: the
// decomposition, the evidence fusion, the uncertainty trace, the prompt, the candidates and the repairs.
// The task's sources are task/ManifestPicker.tsx and task/CustomTaskForm.tsx, the run controls task/RunControls.tsx.

import { Empty, ErrorBox, Loading, Section, Tabs, ViewHead } from '../components/ui.tsx';
import { useApp, type TaskRunRecord } from '../store.ts';
import { NoModelNotice } from './settings/NoModelNotice.tsx';
import { CustomIntro, CustomTaskForm } from './task/CustomTaskForm.tsx';
import { ManifestPicker, ManifestTaskPanel } from './task/ManifestPicker.tsx';
import { useMethodLabel } from './task/MethodPicker.tsx';
import { ResultView } from './task/ResultView.tsx';
import './TaskView.css';

export function TaskView() {
  const drill = useApp((s) => s.drill);
  const mode = useApp((s) => s.taskSource);
  const setMode = useApp((s) => s.setTaskSource);
  return (
    <div className="view view-wide" data-testid="task-view">
      <ViewHead title="Task" sub="Run one task under one or more methods and follow it through retrieval, fusion, generation, validation and repair." />
      <NoModelNotice />
      <div className={`task-layout ${mode === 'custom' ? 'task-layout-custom' : ''}`}>
        <aside className="task-side">
          <Tabs<'manifest' | 'custom'>
            label="Where the task comes from"
            value={mode}
            onChange={setMode}
            idBase="task-src"
            testId="task-source-tabs"
            items={[
              { id: 'manifest', label: 'From a manifest', testId: 'task-source-manifest' },
              { id: 'custom', label: 'Write a task', testId: 'task-source-custom' },
            ]}
          />
          <div className="tab-panel" role="tabpanel" id="task-src-panel" aria-labelledby={`task-src-tab-${mode}`}>
            {mode === 'manifest' ? <ManifestPicker /> : <CustomTaskForm />}
          </div>
        </aside>
        <div className="task-main">{mode === 'manifest' ? <ManifestTaskPanel /> : <CustomIntro />}</div>
      </div>
      {drill ? <DrillView /> : <CurrentRun />}
    </div>
  );
}

function CurrentRun() {
  const current = useApp((s) => s.taskRun.current);
  const label = useMethodLabel();
  if (!current) return null;
  return <RunResult rec={current} label={label} />;
}

export function RunResult({ rec, label }: { rec: TaskRunRecord; label: (id: string) => string }) {
  return (
    <Section
      title={`Result · ${rec.label}`}
      subtitle={
        <span>
          {rec.methods.map(label).join(', ')}
          {rec.sources.api && rec.sources.context && rec.sources.similar
            ? ''
            : ` · sources: ${[rec.sources.api ? 'API' : null, rec.sources.context ? 'context' : null, rec.sources.similar ? 'similar code' : null].filter(Boolean).join(', ') || 'none'}`}
          {rec.runId ? <span className="mono muted"> · {rec.runId}</span> : null}
        </span>
      }
      testId="task-run-result"
    >
      {rec.status === 'running' ? <Loading label="Running — retrieval, generation and validation take a while…" testId="task-running" /> : null}
      {rec.status === 'loading' ? <Loading label="Loading the results…" /> : null}
      {rec.status === 'failed' ? <ErrorBox error={rec.error ?? 'failed'} title="The task did not finish" /> : null}
      {rec.status === 'cancelled' ? <Empty title="Cancelled">The run was cancelled before it finished.</Empty> : null}
      {rec.status === 'ready' ? <ResultView results={rec.results} sources={rec.sources} methodLabel={label} /> : null}
    </Section>
  );
}

function DrillView() {
  const drill = useApp((s) => s.drill)!;
  const closeDrill = useApp((s) => s.closeDrill);
  const setView = useApp((s) => s.setView);
  const label = useMethodLabel();
  return (
    <Section
      title={`Stored result · ${drill.taskId}`}
      subtitle={
        <span>
          {label(drill.condition)} · run <span className="mono">{drill.runId}</span>
        </span>
      }
      actions={
        <>
          <button type="button" className="btn btn-small" onClick={() => setView('experiment')} data-testid="drill-back">
            Back to the experiment
          </button>
          <button type="button" className="btn btn-small btn-quiet" onClick={closeDrill} data-testid="drill-close">
            Close
          </button>
        </>
      }
      testId="drill-result"
    >
      {drill.result.status === 'loading' ? <Loading label="Loading the stored result…" /> : null}
      {drill.result.status === 'error' ? <ErrorBox error={drill.result.error} title="Could not load the result" /> : null}
      {drill.result.data ? <ResultView results={[drill.result.data]} methodLabel={label} /> : null}
    </Section>
  );
}
