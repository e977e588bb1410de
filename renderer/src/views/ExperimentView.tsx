// Experiment: estimate the cost, start (run / ablate / ladder) with live progress, resume interrupted runs, and
// for one run (or two compared) see the summary, the paired comparisons, the charts and every task, with a
// drill-down to the stored task result (that analysis is experiment/Analysis.tsx).

import { useMemo, useState } from 'react';
import { PathSchema, type CallError, type CostEstimateInfo } from '../api/contract.ts';
import { Empty, ErrorBox, JobCard, Section, Tabs, TextField, ViewHead } from '../components/ui.tsx';
import { int, usd } from '../lib/format.ts';
import { AllowHere, folderOffered } from '../components/AllowHere.tsx';
import { asCallError, engine, getStore, useApp, type ExperimentKind } from '../store.ts';
import { RunAnalysis } from './experiment/Analysis.tsx';
import { MethodPicker } from './task/MethodPicker.tsx';
import { SampleSets } from './experiment/SampleSets.tsx';
import { RunsList } from './RunsList.tsx';
import './ExperimentView.css';

type Kind = ExperimentKind;

export function ExperimentView() {
  return (
    <div className="view view-wide" data-testid="experiment-view">
      <ViewHead title="Experiment" sub="Methods on a frozen manifest, paired by task: estimate, run, resume, and read the results." />
      <div className="grid-2 grid-top">
        <StartExperiment />
        <ExperimentJobs />
      </div>
      <RunsList />
      <RunAnalysis />
      <SampleSets />
    </div>
  );
}

interface StartFields {
  kind: Kind;
  methods: string[];
  manifest: string;
  limit: string;
  samples: string;
}

type StartInput = { manifest: string; kind: Kind; limit?: number; methods?: string[]; samples?: string };

/** The fields as the engine's input, or the problems by field name. */
function startInput({ kind, methods, manifest, limit, samples }: StartFields): { errors: Record<string, string>; value: StartInput | null } {
  const errs: Record<string, string> = {};
  const m = PathSchema.safeParse(manifest.trim());
  if (!m.success) errs.manifest = m.error.issues[0]?.message ?? 'not a valid path';
  let n: number | undefined;
  if (limit.trim()) {
    n = Number(limit);
    if (!Number.isInteger(n) || n < 1) errs.limit = 'a whole number of tasks, at least 1 (or empty for all)';
  }
  if (kind === 'run' && !methods.length) errs.methods = 'choose at least one method';
  if (samples.trim()) {
    const sp = PathSchema.safeParse(samples.trim());
    if (!sp.success) errs.samples = sp.error.issues[0]?.message ?? 'not a valid path';
  }
  if (Object.keys(errs).length) return { errors: errs, value: null };
  return {
    errors: errs,
    value: {
      manifest: manifest.trim(),
      kind,
      ...(n ? { limit: n } : {}),
      ...(kind === 'run' ? { methods } : {}),
      ...(samples.trim() ? { samples: samples.trim() } : {}),
    },
  };
}

interface Estimate {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: CostEstimateInfo | null;
  error: CallError | null;
  /** The fields it was made for: an estimate counts only while they are unchanged. */
  key: string;
}

const NO_ESTIMATE: Estimate = { status: 'idle', data: null, error: null, key: '' };

/**
 * The start form's fields, kept in the store (and so in the address bar: a reload keeps them). The manifest field
 * shows the loaded manifest, else the sample manifest, until the analyst edits it.
 */
function useStartFields() {
  const form = useApp((s) => s.experimentForm);
  const setForm = useApp((s) => s.setExperimentForm);
  const sampleManifest = useApp((s) => s.info.data?.sampleManifest);
  const storeManifest = useApp((s) => s.manifest);
  const manifest = form.manifest ?? storeManifest ?? sampleManifest ?? '';
  return {
    fields: { kind: form.kind, methods: form.methods, manifest, limit: form.limit, samples: form.samples },
    set: {
      kind: (kind: Kind) => setForm({ kind }),
      methods: (methods: string[]) => setForm({ methods }),
      manifest: (v: string) => setForm({ manifest: v }),
      limit: (limit: string) => setForm({ limit }),
      samples: (samples: string) => setForm({ samples }),
    },
  };
}

/** The start form's fields, the cost estimate for them, and starting the experiment once it is estimated. */
function useExperimentStart() {
  const { fields, set } = useStartFields();
  const { kind, methods, manifest, limit, samples } = fields;
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [estimate, setEstimate] = useState<Estimate>(NO_ESTIMATE);
  const [startError, setStartError] = useState<CallError | null>(null);
  const [starting, setStarting] = useState(false);

  const input = () => {
    const r = startInput({ kind, methods, manifest, limit, samples });
    setErrors(r.errors);
    return r.value;
  };
  const current = useMemo(
    () => JSON.stringify({ manifest: manifest.trim(), kind, limit: limit.trim(), methods: kind === 'run' ? methods : [], samples: samples.trim() }),
    [manifest, kind, limit, methods, samples],
  );

  /** The call's field problems shown at their fields. */
  const showIssues = (e: CallError) => {
    const byField: Record<string, string> = {};
    for (const i of e.issues ?? []) byField[i.path.split('.')[0]!] = i.message;
    if (Object.keys(byField).length) setErrors(byField);
  };
  const doEstimate = async () => {
    const x = input();
    if (!x) return;
    setStartError(null);
    setEstimate({ status: 'loading', data: null, error: null, key: current });
    try {
      const data = await engine().call('experiment.estimate', x);
      setEstimate({ status: 'ready', data, error: null, key: current });
    } catch (err) {
      const e = asCallError(err);
      showIssues(e);
      setEstimate({ status: 'error', data: null, error: e, key: current });
    }
  };
  const start = async () => {
    const x = input();
    if (!x) return;
    setStarting(true);
    setStartError(null);
    try {
      await engine().call('experiment.start', x);
      await getStore().getState().refreshJobs();
      setEstimate(NO_ESTIMATE);
    } catch (err) {
      const e = asCallError(err);
      showIssues(e);
      setStartError(e);
    } finally {
      setStarting(false);
    }
  };
  return {
    fields,
    set,
    errors,
    estimate,
    estimateFresh: estimate.status === 'ready' && estimate.key === current,
    startError,
    starting,
    doEstimate,
    start,
  };
}

/** The path field a refused call named, when its folder may be allowed in place (the form then offers it there). */
function refusedField(error: CallError | null): 'manifest' | 'samples' | null {
  if (!error || !folderOffered(error)) return null;
  const field = error.issues?.[0]?.path.split('.')[0];
  return field === 'manifest' || field === 'samples' ? field : null;
}

function StartExperiment() {
  const { fields, set, errors, estimate, estimateFresh, startError, starting, doEstimate, start } = useExperimentStart();
  const { kind } = fields;
  // A refused path is answered at its field with "Allow this folder", which then tries the same action again.
  const estimateError = estimate.status === 'error' ? estimate.error : null;
  const refused = startError
    ? { error: startError, field: refusedField(startError), retry: start }
    : { error: estimateError, field: refusedField(estimateError), retry: doEstimate };
  const allowAt = (field: 'manifest' | 'samples') =>
    refused.field === field ? <AllowHere error={refused.error} onAllowed={() => void refused.retry()} testId={`experiment-${field}-allow`} /> : null;
  return (
    <Section title="Start an experiment" testId="experiment-start">
      <Tabs<Kind>
        label="Experiment kind"
        value={kind}
        onChange={set.kind}
        idBase="exp-kind"
        testId="experiment-kind"
        items={[
          { id: 'run', label: 'Compare methods', testId: 'experiment-kind-run' },
          { id: 'ablate', label: '2³ source factorial', testId: 'experiment-kind-ablate' },
          { id: 'ladder', label: 'Component ladder', testId: 'experiment-kind-ladder' },
        ]}
      />
      <div className="tab-panel" role="tabpanel" id="exp-kind-panel" aria-labelledby={`exp-kind-tab-${kind}`}>
        {kind === 'run' ? (
          <>
            <MethodPicker value={fields.methods} onChange={set.methods} testId="experiment-methods" />
            {errors.methods ? <div className="field-error">{errors.methods}</div> : null}
          </>
        ) : kind === 'ablate' ? (
          <p className="small muted">
            Eight cells A1X1S1 … A0X0S0: OpenCoder with each combination of API, context and similar-code evidence; factorial main and interaction effects with
            intervals.
          </p>
        ) : (
          <p className="small muted">
            Baseline RAG, then decomposition, uncertainty filtering, guided generation, verified selection and repair added one at a time (RQ2).
          </p>
        )}
        <div className="form-row">
          <TextField
            label="Manifest"
            error={errors.manifest ?? null}
            className="input input-wide mono"
            value={fields.manifest}
            onText={set.manifest}
            data-testid="experiment-manifest"
            spellCheck={false}
          />
          <TextField
            label="Task limit"
            error={errors.limit ?? null}
            hint="empty: all tasks"
            className="input input-num"
            inputMode="numeric"
            value={fields.limit}
            placeholder="all"
            onText={set.limit}
            data-testid="experiment-limit"
          />
        </div>
        {allowAt('manifest')}
        <div className="form-row">
          <TextField
            label="Published samples (optional)"
            error={errors.samples ?? null}
            hint="a sample set: its samples are the candidates, byte for byte, instead of the Settings backend; they cannot be repaired"
            className="input input-wide mono"
            value={fields.samples}
            onText={set.samples}
            placeholder="none: use the Settings backend"
            data-testid="experiment-samples"
            spellCheck={false}
          />
        </div>
        {allowAt('samples')}
        <div className="row gap">
          <button type="button" className="btn" onClick={() => void doEstimate()} disabled={estimate.status === 'loading'} data-testid="experiment-estimate">
            {estimate.status === 'loading' ? 'Estimating…' : 'Estimate cost'}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void start()}
            disabled={!estimateFresh || starting}
            data-testid="experiment-start-button"
            title={estimateFresh ? '' : 'Estimate the cost first'}
          >
            {starting ? 'Starting…' : 'Start'}
          </button>
          {!estimateFresh && estimate.status !== 'loading' ? (
            <span className="small muted">Estimate first; the estimate is shown before anything is sent.</span>
          ) : null}
        </div>
        {estimateError && !refusedField(estimateError) ? (
          <ErrorBox error={estimateError} title="Could not estimate" onAllowed={() => void doEstimate()} />
        ) : null}
        {estimate.data && estimateFresh ? <EstimateResult data={estimate.data} /> : null}
        {startError && !refusedField(startError) ? <ErrorBox error={startError} title="Could not start" onAllowed={() => void start()} /> : null}
      </div>
    </Section>
  );
}

function EstimateResult({ data }: { data: CostEstimateInfo }) {
  return (
    <div className="estimate" data-testid="experiment-estimate-result">
      <div className="estimate-grid tabular">
        <div>
          <span className="muted small">Calls</span>
          <strong>{data.calls ? int(data.calls) : 'none'}</strong>
        </div>
        <div>
          <span className="muted small">Input tokens</span>
          <strong>{int(data.inputTokens)}</strong>
        </div>
        <div>
          <span className="muted small">Output tokens (expected)</span>
          <strong>{int(data.outputTokensExpected)}</strong>
        </div>
        <div>
          <span className="muted small">Cost expected / at most</span>
          <strong data-testid="estimate-usd">{data.usdExpected === null ? 'no price known' : `${usd(data.usdExpected)} / ${usd(data.usdMax)}`}</strong>
        </div>
      </div>
      <p className="small">{data.note}</p>
      <p className="small muted" data-testid="estimate-assumptions">
        Counted: {data.assumptions}
      </p>
    </div>
  );
}

function ExperimentJobs() {
  const jobs = useApp((s) => s.jobs);
  const jobAction = useApp((s) => s.jobAction);
  const exp = jobs.filter((j) => j.kind === 'experiment');
  const active = exp.filter((j) => j.state === 'running' || j.state === 'paused');
  const recent = exp.filter((j) => !(j.state === 'running' || j.state === 'paused')).slice(0, 3);
  return (
    <Section title="Progress" testId="experiment-progress" subtitle="Each result is stored the moment it finishes; a cancelled run resumes where it stopped.">
      {!exp.length ? (
        <Empty title="No experiment running" testId="experiment-progress-empty">
          Estimate and start one on the left.
        </Empty>
      ) : (
        <div className="job-list">
          {[...active, ...recent].map((j) => (
            <JobCard key={j.id} job={j} onAction={(a) => void jobAction(j.id, a)} testId="experiment-job" />
          ))}
        </div>
      )}
    </Section>
  );
}
