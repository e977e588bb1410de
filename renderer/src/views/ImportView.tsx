// Import: a benchmark's files into tasks and a manifest (RepoExec, CoderEval, ExecRepoBench), or a published sample
// set into a set file, without a terminal: the engine runs the same importers as `opencoder import` and
// `opencoder samples import`, as a job with progress; when it is done the view shows the counts and the importer's
// report, and offers the next step in the Experiment view.

import { useEffect, useMemo, useState } from 'react';
import { PathSchema, type CallError, type CallOutput, type JobInfo } from '../api/contract.ts';
import { AllowHere } from '../components/AllowHere.tsx';
import { Badge, Collapsible, Empty, ErrorBox, Field, JobCard, Loading, Section, Stats, Tabs } from '../components/ui.tsx';
import { int } from '../lib/format.ts';
import { asCallError, engine, getStore, useApp } from '../store.ts';
import { handOffPassK } from './import-handoff.ts';
import './ImportView.css';

type Kind = 'repoexec' | 'codereval' | 'execrepobench' | 'samples';
type Summary = CallOutput<'import.result'>;

interface KindInfo {
  label: string;
  input: string;
  placeholder: string;
  hint: string;
}

const KINDS: Record<Kind, KindInfo> = {
  repoexec: {
    label: 'RepoExec',
    input: 'RepoExec folder',
    placeholder: '/path/to/bench/repoexec',
    hint: 'the staged folder with repoexec_inline.jsonl and data_with_test_case/: each project is rebuilt from the raw rows, one task per RepoExec-inline task',
  },
  codereval: {
    label: 'CoderEval',
    input: 'CoderEval folder',
    placeholder: '/path/to/bench/codereval',
    hint: 'the staged folder with CoderEval-Input4Models/; records and test templates make tasks runnable',
  },
  execrepobench: {
    label: 'ExecRepoBench',
    input: 'Records file',
    placeholder: '/path/to/exec_repo_bench.jsonl',
    hint: 'ExecRepoBench records, one JSON object a line; each runnable record becomes a repository and a task',
  },
  samples: {
    label: 'Sample set',
    input: 'Published file or folder',
    placeholder: '/path/to/phi-2-results',
    hint: "another system's generations with their official labels: a RepoExec results folder, CoderEval *_out.jsonl, bigcode, EvalPlus",
  },
};

const ORDER: Kind[] = ['repoexec', 'codereval', 'execrepobench', 'samples'];

/** Form fields an error can be shown beside (the engine's issue paths). */
const FIELDS = ['path', 'out', 'subset', 'records', 'templates'] as const;
type FieldName = (typeof FIELDS)[number];

export function ImportView() {
  const jobs = useApp((s) => s.jobs);
  const imports = useMemo(() => jobs.filter((j) => j.kind === 'import'), [jobs]);
  const [chosen, setChosen] = useState<string | null>(null);
  // The import shown below: the one chosen (started here, or "Show report"), else the newest.
  const shown = imports.find((j) => j.id === chosen) ?? imports[0] ?? null;
  return (
    <div className="view view-wide" data-testid="import-view">
      <header className="view-head">
        <div>
          <h1>Import</h1>
          <p className="view-sub">Benchmarks into tasks and a manifest, published samples into a sample set: the same importers as the command line.</p>
        </div>
      </header>
      <div className="grid-2 grid-top">
        <ImportForm onStarted={setChosen} />
        <ImportJobs jobs={imports} shown={shown?.id ?? null} onShow={setChosen} />
      </div>
      {shown ? <ImportResult job={shown} /> : null}
    </div>
  );
}

interface FormFields {
  kind: Kind;
  path: string;
  out: string;
  subset: string;
  records: string;
  templates: string;
  docstrings: 'raw' | 'human';
  format: 'auto' | 'repoexec' | 'codereval' | 'bigcode' | 'evalplus';
}

/** The call and its input for the fields, or the problems by field. */
function requestOf(f: FormFields, outEdited: boolean) {
  const errors: Partial<Record<FieldName, string>> = {};
  const path = (name: FieldName, value: string, required: boolean): string | undefined => {
    const v = value.trim();
    if (!v && !required) return undefined;
    const p = PathSchema.safeParse(v);
    if (!p.success) errors[name] = p.error.issues[0]?.message ?? 'not a valid path';
    return v;
  };
  const input = path('path', f.path, true);
  const out = outEdited ? path('out', f.out, true) : undefined;
  if (f.kind === 'samples') return { errors, call: 'import.samples' as const, input: { path: input ?? '', format: f.format, ...(out ? { out } : {}) } };
  const records = f.kind === 'codereval' ? path('records', f.records, false) : undefined;
  const templates = f.kind === 'codereval' ? path('templates', f.templates, false) : undefined;
  const subset = f.kind === 'repoexec' && f.subset.trim() ? f.subset.trim() : undefined;
  return {
    errors,
    call: 'import.benchmark' as const,
    input: {
      kind: f.kind,
      path: input ?? '',
      ...(out ? { out } : {}),
      ...(subset ? { subset } : {}),
      ...(records ? { records } : {}),
      ...(templates ? { templates } : {}),
      ...(f.kind === 'codereval' ? { docstrings: f.docstrings } : {}),
    },
  };
}

/** The output field: the engine's default for the kind and input, until the analyst writes their own. */
function useDefaultOut(kind: Kind, input: string, subset: string, edited: boolean, setOut: (v: string) => void) {
  useEffect(() => {
    if (edited) return;
    let stale = false;
    const timer = setTimeout(() => {
      const req = { kind, ...(input.trim() ? { input: input.trim() } : {}), ...(kind === 'repoexec' && subset.trim() ? { subset: subset.trim() } : {}) };
      engine()
        .call('import.defaults', req)
        .then((d) => {
          if (!stale) setOut(d.out);
        })
        .catch(() => {
          /* the field stays as it was; the import itself picks the default */
        });
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [kind, input, subset, edited, setOut]);
}

function ImportForm({ onStarted }: { onStarted: (jobId: string) => void }) {
  const [f, setF] = useState<FormFields>({ kind: 'repoexec', path: '', out: '', subset: '', records: '', templates: '', docstrings: 'raw', format: 'auto' });
  const [outEdited, setOutEdited] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [error, setError] = useState<CallError | null>(null);
  const [starting, setStarting] = useState(false);
  const set = <K extends keyof FormFields>(k: K, v: FormFields[K]) => setF((x) => ({ ...x, [k]: v }));
  const setOut = useMemo(() => (v: string) => setF((x) => ({ ...x, out: v })), []);
  useDefaultOut(f.kind, f.path, f.subset, outEdited, setOut);
  const info = KINDS[f.kind];

  const start = async () => {
    const req = requestOf(f, outEdited);
    setErrors(req.errors);
    setError(null);
    if (Object.keys(req.errors).length) return;
    setStarting(true);
    try {
      const r = req.call === 'import.samples' ? await engine().call('import.samples', req.input) : await engine().call('import.benchmark', req.input);
      await getStore().getState().refreshJobs();
      onStarted(r.jobId);
    } catch (err) {
      const e = asCallError(err);
      const byField: Partial<Record<FieldName, string>> = {};
      for (const i of e.issues ?? []) if ((FIELDS as readonly string[]).includes(i.path)) byField[i.path as FieldName] = i.message;
      setErrors(byField);
      setError(e);
    } finally {
      setStarting(false);
    }
  };

  /** A refused path shown at its field gets "Allow this folder" there (then the import is tried again). */
  const allowAt = (name: FieldName) =>
    error?.code === 'forbidden-path' && error.issues?.some((i) => i.path === name) ? (
      <AllowHere error={error} onAllowed={() => void start()} testId={`import-${name}-allow`} />
    ) : null;
  const atField = error?.code === 'forbidden-path' && !!error.issues?.some((i) => (FIELDS as readonly string[]).includes(i.path));

  const pathInput = (name: FieldName, value: string, onChange: (v: string) => void, placeholder: string) => (id: string, d: string | undefined) => (
    <input
      id={id}
      aria-describedby={d}
      className="input input-wide mono"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      placeholder={placeholder}
      spellCheck={false}
      data-testid={`import-${name}`}
    />
  );

  return (
    <Section title="Import" testId="import-form" subtitle="Pick what to import, its input and where the result goes.">
      <Tabs<Kind>
        label="What to import"
        value={f.kind}
        onChange={(k) => {
          set('kind', k);
          // Another kind writes elsewhere (a folder, or a set file): back to its default.
          setOutEdited(false);
          setErrors({});
          setError(null);
        }}
        idBase="import-kind"
        testId="import-kind"
        items={ORDER.map((k) => ({ id: k, label: KINDS[k].label, testId: `import-kind-${k}` }))}
      />
      <div className="tab-panel import-fields" role="tabpanel" id="import-kind-panel" aria-labelledby={`import-kind-tab-${f.kind}`}>
        <Field label={info.input} error={errors.path ?? null} hint={info.hint}>
          {pathInput('path', f.path, (v) => set('path', v), info.placeholder)}
        </Field>
        {allowAt('path')}
        {f.kind === 'repoexec' ? (
          <Field
            label="Subset (optional)"
            error={errors.subset ?? null}
            hint="a subset named in repoexec_inline_subsets.json, such as python_string_utils_inline"
          >
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                className="input mono"
                value={f.subset}
                onChange={(e) => set('subset', e.target.value)}
                placeholder="all RepoExec-inline tasks"
                spellCheck={false}
                data-testid="import-subset"
              />
            )}
          </Field>
        ) : null}
        {f.kind === 'codereval' ? (
          <>
            <Field label="Records file (optional)" error={errors.records ?? null} hint="CoderEval4Python.json: reference code and file contents">
              {pathInput('records', f.records, (v) => set('records', v), 'none')}
            </Field>
            {allowAt('records')}
            <Field label="Test templates folder (optional)" error={errors.templates ?? null} hint="<name>_<_id>.py files with the insertion marker">
              {pathInput('templates', f.templates, (v) => set('templates', v), 'none')}
            </Field>
            {allowAt('templates')}
            <Field label="Requirements from">
              {(id, d) => (
                <select
                  id={id}
                  aria-describedby={d}
                  className="input"
                  value={f.docstrings}
                  onChange={(e) => set('docstrings', e.target.value as 'raw' | 'human')}
                  data-testid="import-docstrings"
                >
                  <option value="raw">the original docstrings</option>
                  <option value="human">the docstrings engineers rewrote</option>
                </select>
              )}
            </Field>
          </>
        ) : null}
        {f.kind === 'samples' ? (
          <Field label="Format">
            {(id, d) => (
              <select
                id={id}
                aria-describedby={d}
                className="input"
                value={f.format}
                onChange={(e) => set('format', e.target.value as FormFields['format'])}
                data-testid="import-format"
              >
                <option value="auto">detect from the input</option>
                <option value="repoexec">RepoExec results</option>
                <option value="codereval">CoderEval *_out.jsonl</option>
                <option value="bigcode">bigcode generations.json</option>
                <option value="evalplus">EvalPlus samples.jsonl</option>
              </select>
            )}
          </Field>
        ) : null}
        <Field
          label={f.kind === 'samples' ? 'Sample set file' : 'Output folder'}
          error={errors.out ?? null}
          hint={
            outEdited ? (
              <button
                type="button"
                className="link-btn"
                onClick={() => {
                  setOutEdited(false);
                  setErrors((x) => ({ ...x, out: undefined }));
                }}
                data-testid="import-out-reset"
              >
                Back to the default in the app’s data folder
              </button>
            ) : f.kind === 'samples' ? (
              'in the app’s data folder, named after the input; an earlier import there is replaced'
            ) : (
              'a folder of its own in the app’s data folder; an earlier import of the same kind there is replaced'
            )
          }
        >
          {pathInput(
            'out',
            f.out,
            (v) => {
              setOutEdited(true);
              set('out', v);
            },
            'default',
          )}
        </Field>
        {allowAt('out')}
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={starting} data-testid="import-start">
            {starting ? 'Starting…' : `Import ${f.kind === 'samples' ? 'sample set' : info.label}`}
          </button>
        </div>
        {atField ? null : <ErrorBox error={error} title="Could not start the import" onAllowed={() => void start()} testId="import-error" />}
      </div>
    </Section>
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

function ImportResult({ job }: { job: JobInfo }) {
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
  const useManifest = () => {
    const store = getStore().getState();
    void store.loadTasks(s.manifest!);
    store.setExperimentForm({ manifest: s.manifest! });
    store.setView('experiment');
  };
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
      {s.samples ? null : (
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
      )}
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
      <h3 className="h4">{s.reportFile ? 'IMPORT.md' : 'Report'}</h3>
      {s.reportFile ? <p className="small muted mono break">{s.reportFile}</p> : null}
      <pre className="code import-report" data-testid="import-report" aria-label="The import's report (Markdown)">
        {s.report}
      </pre>
    </Section>
  );
}
