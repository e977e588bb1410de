// Import: a benchmark's files into tasks and a manifest (RepoExec, CoderEval, ExecRepoBench), or a published sample
// set into a set file, without a terminal: the engine runs the same importers as `opencoder import` and
// `opencoder samples import`, as a job with progress; when it is done the view shows the counts and the importer's
// report, and offers the next step in the Experiment view.
// The form is import/ImportForm.tsx (its data import/form.ts), the result import/ImportResult.tsx.

import { useMemo, useState } from 'react';
import type { JobInfo } from '../api/contract.ts';
import { Empty, JobCard, Section, ViewHead } from '../components/ui.tsx';
import { useApp } from '../store.ts';
import { ImportForm } from './import/ImportForm.tsx';
import { ImportResult } from './import/ImportResult.tsx';
import './ImportView.css';

export function ImportView() {
  const jobs = useApp((s) => s.jobs);
  const imports = useMemo(() => jobs.filter((j) => j.kind === 'import'), [jobs]);
  const [chosen, setChosen] = useState<string | null>(null);
  // The import shown below: the one chosen (started here, or "Show report"), else the newest.
  const shown = imports.find((j) => j.id === chosen) ?? imports[0] ?? null;
  return (
    <div className="view view-wide" data-testid="import-view">
      <ViewHead title="Import" sub="Benchmarks into tasks and a manifest, published samples into a sample set: the same importers as the command line." />
      <div className="grid-2 grid-top">
        <ImportForm onStarted={setChosen} />
        <ImportJobs jobs={imports} shown={shown?.id ?? null} onShow={setChosen} />
      </div>
      {shown ? <ImportResult job={shown} /> : null}
    </div>
  );
}

function ImportJobs({ jobs, shown, onShow }: { jobs: JobInfo[]; shown: string | null; onShow: (id: string) => void }) {
  const jobAction = useApp((s) => s.jobAction);
  const active = jobs.filter((j) => j.state === 'running' || j.state === 'paused');
  const recent = jobs.filter((j) => !(j.state === 'running' || j.state === 'paused')).slice(0, 4);
  return (
    <Section title="Progress" testId="import-jobs" subtitle="Cancelling stops after the current step; what was written by then stays.">
      {!jobs.length ? (
        <Empty title="No import yet" testId="import-jobs-empty">
          Start one on the left; its report shows below when it is done.
        </Empty>
      ) : (
        <div className="job-list">
          {[...active, ...recent].map((j) => (
            <div key={j.id} className={`import-job ${j.id === shown ? 'import-job-shown' : ''}`}>
              <JobCard job={j} onAction={(a) => void jobAction(j.id, a)} testId="import-job" />
              {j.state === 'done' && j.id !== shown ? (
                <button type="button" className="link-btn small" onClick={() => onShow(j.id)} data-testid="import-show">
                  Show its report
                </button>
              ) : null}
            </div>
          ))}
        </div>
      )}
    </Section>
  );
}
