// A finished (or failed, cancelled, running) import: the counts, what was dropped and warned about by reason, the
// next step in the Experiment view, and the importer's report.

import { useEffect, useState } from 'react';
import type { CallError, JobInfo } from '../../api/contract.ts';
import { Badge, Collapsible, ErrorBox, Loading, Section, Stats } from '../../components/ui.tsx';
import { int } from '../../lib/format.ts';
import { asCallError, engine, getStore } from '../../store.ts';
import { handOffPassK } from '../import-handoff.ts';
import { openInExperiment } from '../manifest-handoff.ts';
import { KINDS, type Summary } from './form.ts';

/** The summary of a finished import, loaded once per job. */
function useSummary(job: JobInfo): { summary: Summary | null; error: CallError | null } {
  const [state, setState] = useState<{ id: string; summary: Summary | null; error: CallError | null } | null>(null);
  const done = job.state === 'done';
  useEffect(() => {
    if (!done) return;
    let stale = false;
    engine()
      .call('import.result', { jobId: job.id })
      .then(
        (summary) => !stale && setState({ id: job.id, summary, error: null }),
        (err: unknown) => !stale && setState({ id: job.id, summary: null, error: asCallError(err) }),
      );
    return () => {
      stale = true;
    };
  }, [job.id, done]);
  return state?.id === job.id ? { summary: state.summary, error: state.error } : { summary: null, error: null };
}

export function ImportResult({ job }: { job: JobInfo }) {
  const { summary, error } = useSummary(job);
  if (job.state === 'failed')
    return (
      <Section title="The import failed" testId="import-result">
        <ErrorBox error={job.error ?? 'failed'} title={job.title} testId="import-failed" />
      </Section>
    );
  if (job.state === 'cancelled')
    return (
      <Section title="The import was cancelled" testId="import-result">
        <p className="small muted">{job.title}: cancelled. Start it again to finish it; it replaces what it wrote.</p>
      </Section>
    );
  if (job.state !== 'done')
    return (
      <Section title="Importing…" testId="import-result">
        <Loading label={`${job.title}: the counts and the report show here when it is done.`} inline testId="import-running" />
      </Section>
    );
  if (error) return <ErrorBox error={error} title="Cannot show the import" testId="import-result-error" />;
  if (!summary) return <Loading label="Reading the import's report…" testId="import-loading" />;
  return <ImportSummaryView summary={summary} />;
}

const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

function ByReason({ counts, tone, testId }: { counts: Record<string, number>; tone: 'warn' | 'muted'; testId: string }) {
  const entries = Object.entries(counts);
  if (!entries.length) return <span className="small muted">none</span>;
  return (
    <ul className="import-reasons" data-testid={testId}>
      {entries.map(([reason, n]) => (
        <li key={reason}>
          <Badge tone={tone}>{int(n)}</Badge> <span className="mono">{reason}</span>
        </li>
      ))}
    </ul>
  );
}

function ImportSummaryView({ summary: s }: { summary: Summary }) {
  const dropped = total(s.dropped);
  return (
    <Section
      title={s.kind === 'samples' ? 'Imported a sample set' : `Imported ${KINDS[s.kind].label}`}
      subtitle={
        <>
          from <span className="mono break">{s.input}</span> into <span className="mono break">{s.out}</span>
        </>
      }
      testId="import-result"
    >
      <Stats
        className="import-stats"
        items={[
          { label: 'Tasks imported', value: int(s.tasks), testId: 'import-tasks' },
          ...(s.samples ? [] : [{ label: 'Dropped', value: int(dropped), testId: 'import-dropped' }]),
          ...(s.samples ? [] : [{ label: 'Warnings', value: int(s.warnings.count), testId: 'import-warnings' }]),
          ...s.facts.map((x) => ({ label: x.label, value: x.value })),
        ]}
        testId="import-counts"
      />
      {s.samples ? null : <ImportWhy summary={s} />}
      <ImportNext summary={s} />
      <h3 className="h4">{s.reportFile ? 'IMPORT.md' : 'Report'}</h3>
      {s.reportFile ? <p className="small muted mono break">{s.reportFile}</p> : null}
      <pre className="code import-report" data-testid="import-report" aria-label="The import's report (Markdown)">
        {s.report}
      </pre>
    </Section>
  );
}

/** What was dropped and what was warned about, by reason (a benchmark's import only). */
function ImportWhy({ summary: s }: { summary: Summary }) {
  return (
    <div className="grid-2 import-why">
      <div>
        <h3 className="h4">Dropped, by reason</h3>
        <ByReason counts={s.dropped} tone="muted" testId="import-dropped-reasons" />
      </div>
      <div>
        <h3 className="h4">Warnings, by reason</h3>
        <ByReason counts={s.warnings.byReason} tone="warn" testId="import-warning-reasons" />
        {s.warnings.first.length ? (
          <Collapsible
            title={s.warnings.count > s.warnings.first.length ? `The first ${int(s.warnings.first.length)} warnings` : 'Each warning'}
            testId="import-warning-list"
          >
            <ul className="import-warning-items small">
              {s.warnings.first.map((w, i) => (
                <li key={i}>
                  <span className="mono break">
                    {w.file}
                    {w.line ? `:${w.line}` : ''}
                  </span>{' '}
                  {w.message}
                </li>
              ))}
            </ul>
          </Collapsible>
        ) : null}
      </div>
    </div>
  );
}

/** The next step: the manifest or the sample set in the Experiment view. */
function ImportNext({ summary: s }: { summary: Summary }) {
  const useManifest = () => openInExperiment(s.manifest!);
  const useSamples = () => {
    const store = getStore().getState();
    store.setExperimentForm({ samples: s.sampleSet! });
    store.setView('experiment');
  };
  const computePassK = () => {
    handOffPassK(s.sampleSet!);
    getStore().getState().setView('experiment');
  };
  const fullyLabelled = !!s.samples && s.samples.samples > 0 && s.samples.labelled === s.samples.samples;
  return (
    <div className="import-next" data-testid="import-next">
      <h3 className="h4">Next</h3>
      {s.manifest ? (
        s.tasks > 0 ? (
          <button type="button" className="btn btn-primary" onClick={useManifest} data-testid="import-use-manifest">
            Use this manifest in the Experiment view
          </button>
        ) : (
          <p className="small muted">No task could be imported, so there is nothing to run; the report below says why.</p>
        )
      ) : null}
      {s.sampleSet ? (
        <div className="row gap">
          <button
            type="button"
            className="btn btn-primary"
            onClick={computePassK}
            disabled={!fullyLabelled}
            title={fullyLabelled ? '' : 'Pass@k from official labels needs a label on every sample'}
            data-testid="import-passk"
          >
            Compute Pass@k
          </button>
          <button type="button" className="btn" onClick={useSamples} data-testid="import-use-samples">
            Use as an experiment’s published samples
          </button>
        </div>
      ) : null}
      <p className="small muted">
        {s.manifest ? (
          <>
            Manifest: <span className="mono break">{s.manifest}</span>
          </>
        ) : (
          <>
            Sample set: <span className="mono break">{s.sampleSet}</span>
          </>
        )}
      </p>
    </div>
  );
}
