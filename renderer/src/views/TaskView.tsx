// Task: choose a manifest and a task (or write one), choose methods, run, and inspect the result: the
// decomposition, the evidence fusion, the uncertainty trace, the prompt, the candidates and the repairs.

import { useEffect, useMemo, useState } from 'react';
import { CustomTaskSchema, PathSchema, type CallError, type CustomTask, type MethodInfo, type TaskSummary } from '../api/contract.ts';
import { AllowHere } from '../components/AllowHere.tsx';
import { Badge, ChipGroup, Collapsible, Empty, ErrorBox, Field, JobCard, Loading, Section, Tabs } from '../components/ui.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { asCallError, getStore, useApp, type TaskRunRecord } from '../store.ts';
import { NoModelNotice } from './settings/NoModelNotice.tsx';
import { ResultView } from './task/ResultView.tsx';
import { loadCustomDraft, saveCustomDraft, withDefaultFolder, workingRepoRoot, type CustomDraft } from './task/custom-draft.ts';
import './TaskView.css';

export function useMethodLabel(): (id: string) => string {
  const methods = useApp((s) => s.methods.data);
  return useMemo(() => {
    const all = new Map<string, string>();
    for (const m of [...(methods?.methods ?? []), ...(methods?.ladder ?? []), ...(methods?.factorial ?? [])]) all.set(m.id, m.label);
    return (id: string) => all.get(id) ?? id;
  }, [methods]);
}

export function TaskView() {
  const drill = useApp((s) => s.drill);
  const mode = useApp((s) => s.taskSource);
  const setMode = useApp((s) => s.setTaskSource);
  return (
    <div className="view view-wide" data-testid="task-view">
      <header className="view-head">
        <div>
          <h1>Task</h1>
          <p className="view-sub">Run one task under one or more methods and follow it through retrieval, fusion, generation, validation and repair.</p>
        </div>
      </header>
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

function ManifestPicker() {
  return (
    <div className="picker" data-testid="task-picker">
      <ManifestForm />
      <TaskList />
    </div>
  );
}

/** The manifest path (the store's manifest, else the sample manifest), checked and loaded on submit. */
function ManifestForm() {
  const manifest = useApp((s) => s.manifest);
  const info = useApp((s) => s.info.data);
  const tasks = useApp((s) => s.tasks);
  const loadTasks = useApp((s) => s.loadTasks);
  const [path, setPath] = useState(manifest ?? info?.sampleManifest ?? '');
  const [pathError, setPathError] = useState<string | null>(null);
  useEffect(() => {
    if (manifest) setPath(manifest);
    else if (info?.sampleManifest) setPath(info.sampleManifest);
  }, [manifest, info?.sampleManifest]);

  const load = () => {
    const r = PathSchema.safeParse(path.trim());
    if (!r.success) return setPathError(r.error.issues[0]?.message ?? 'not a valid path');
    setPathError(null);
    void loadTasks(r.data);
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        load();
      }}
    >
      <Field
        label="Task manifest (JSONL)"
        error={pathError ?? (tasks.status === 'error' ? tasks.error?.message : null)}
        hint={
          info?.sampleManifest && path !== info.sampleManifest ? (
            <button type="button" className="link-btn" onClick={() => setPath(info.sampleManifest)}>
              Use the sample manifest
            </button>
          ) : null
        }
      >
        {(id, d) => (
          <div className="input-row">
            <input
              id={id}
              aria-describedby={d}
              className="input mono"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              data-testid="manifest-path"
              spellCheck={false}
            />
            <button type="submit" className="btn" data-testid="manifest-load">
              Load
            </button>
          </div>
        )}
      </Field>
      {!pathError && tasks.status === 'error' ? <AllowHere error={tasks.error} onAllowed={load} testId="manifest-allow" /> : null}
    </form>
  );
}

/** The loaded manifest's tasks, filtered by id, name, file or text; choosing one closes a drill-down. */
function TaskList() {
  const tasks = useApp((s) => s.tasks);
  const selected = useApp((s) => s.selectedTaskId);
  const selectTask = useApp((s) => s.selectTask);
  const closeDrill = useApp((s) => s.closeDrill);
  const [filter, setFilter] = useState('');

  const list = useMemo(() => tasks.data?.tasks ?? [], [tasks.data]);
  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    if (!q) return list;
    return list.filter(
      (t) =>
        t.id.toLowerCase().includes(q) || t.qualname.toLowerCase().includes(q) || t.file.toLowerCase().includes(q) || t.requirement.toLowerCase().includes(q),
    );
  }, [list, filter]);
  const selIndex = shown.findIndex((t) => t.id === selected);
  const choose = (id: string) => {
    selectTask(id);
    closeDrill();
  };

  return (
    <>
      <input
        className="input"
        placeholder={`Filter ${list.length ? list.length.toLocaleString('en-US') + ' ' : ''}tasks by id, name, file or text`}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        aria-label="Filter tasks"
        data-testid="task-filter"
      />
      {tasks.status === 'loading' ? <Loading label="Reading the manifest…" /> : null}
      {tasks.status === 'idle' ? <Empty title="No manifest loaded">Load a manifest to list its tasks.</Empty> : null}
      {tasks.status === 'ready' && !list.length ? <Empty title="The manifest has no tasks" testId="tasks-empty" /> : null}
      {tasks.status === 'ready' && list.length && !shown.length ? <Empty title={`No task matches “${filter}”`} testId="tasks-no-match" /> : null}
      {shown.length ? (
        <VirtualList
          items={shown}
          rowHeight={58}
          height={Math.min(460, shown.length * 58 + 2)}
          label="Tasks"
          role="listbox"
          testId="task-list"
          getKey={(t) => t.id}
          selectedIndex={selIndex}
          onMove={(i) => choose(shown[i]!.id)}
          renderRow={(t: TaskSummary) => (
            <button
              type="button"
              tabIndex={-1}
              className={`task-row ${t.id === selected ? 'task-row-selected' : ''}`}
              onClick={() => choose(t.id)}
              data-testid="task-row"
              data-task-id={t.id}
            >
              <span className="task-row-id ellipsis">{t.id}</span>
              <span className="task-row-meta ellipsis mono">
                {t.file} · {t.qualname}
              </span>
            </button>
          )}
        />
      ) : null}
      {tasks.data ? (
        <div className="muted small tabular">
          {shown.length.toLocaleString('en-US')} of {list.length.toLocaleString('en-US')} tasks · manifest {tasks.data.hash.slice(0, 10)}
        </div>
      ) : null}
    </>
  );
}

export function MethodPicker({ value, onChange, testId }: { value: string[]; onChange: (ids: string[]) => void; testId?: string }) {
  const methods = useApp((s) => s.methods);
  const refresh = useApp((s) => s.refreshMethods);
  if (methods.status === 'loading' && !methods.data) return <Loading inline label="Loading methods…" />;
  if (methods.status === 'error') return <ErrorBox error={methods.error} title="Could not list methods" onRetry={() => void refresh()} />;
  const m = methods.data;
  if (!m) return null;
  const opt = (x: MethodInfo) => ({ id: x.id, label: x.label, title: x.description });
  const extra = [...m.ladder, ...m.factorial].filter((x) => value.includes(x.id)).length;
  return (
    <div data-testid={testId ?? 'method-picker'}>
      <ChipGroup label="Methods" options={m.methods.map(opt)} value={value} onChange={onChange} testId="methods" />
      <Collapsible title={`Ladder steps and factorial cells${extra ? ` (${extra} chosen)` : ''}`} testId="more-methods">
        <div className="h4">RQ2 component ladder</div>
        <ChipGroup label="Ladder steps" options={m.ladder.map(opt)} value={value} onChange={onChange} />
        <div className="h4">2³ evidence-source factorial (on OpenCoder)</div>
        <ChipGroup
          label="Factorial cells"
          options={m.factorial.map((x) => ({ id: x.id, label: `${x.id} · ${x.label}`, title: x.description }))}
          value={value}
          onChange={onChange}
        />
      </Collapsible>
    </div>
  );
}

function CustomIntro() {
  return (
    <Section title="Write a task" testId="custom-intro">
      <p className="small">
        Describe a function the repository should have: where it goes (file and qualified name), its signature, what it must do, and the command that tests it.
        The repository is indexed first if it is not yet.
      </p>
      <p className="small muted">The target is masked from retrieval if it already exists, so the generator cannot copy it.</p>
    </Section>
  );
}

function ManifestTaskPanel() {
  const tasks = useApp((s) => s.tasks.data);
  const selected = useApp((s) => s.selectedTaskId);
  const task = tasks?.tasks.find((t) => t.id === selected) ?? null;
  if (!task) {
    return (
      <>
        <Empty title="Choose a task" testId="task-none">
          Pick a task from the list on the left, or write one.
        </Empty>
      </>
    );
  }
  return (
    <>
      <Section
        title={task.id}
        subtitle={
          <span className="mono">
            {task.file} · {task.qualname}
          </span>
        }
        testId="task-detail"
      >
        <p className="requirement" data-testid="task-requirement">
          {task.requirement}
        </p>
        <pre className="code code-small" data-testid="task-signature">
          {task.signature}
        </pre>
        <div className="row gap small muted">
          <Badge tone="muted">{task.shape === 'repository' ? 'repository tests' : 'check template'}</Badge>
          {task.hasReference ? <Badge tone="muted">has reference</Badge> : <Badge tone="warn">no reference (API scores unavailable)</Badge>}
        </div>
        <RunControls req={{ taskId: task.id }} />
      </Section>
    </>
  );
}

/** Methods + the run button + the job of the latest run. */
function RunControls({
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

const CUSTOM_FIELDS: { key: keyof CustomTask; label: string; placeholder: string; multiline?: boolean; mono?: boolean }[] = [
  { key: 'repo', label: 'Repository folder', placeholder: '/home/you/projects/my-repo', mono: true },
  { key: 'file', label: 'File (relative to the repository)', placeholder: 'pkg/module.py', mono: true },
  { key: 'qualname', label: 'Qualified name', placeholder: 'Class.method or function', mono: true },
  { key: 'signature', label: 'Signature', placeholder: 'def apply_discount(amount: Money, percent: float) -> Money:', mono: true, multiline: true },
  { key: 'requirement', label: 'Requirement', placeholder: 'What the function must do, in plain words.', multiline: true },
  { key: 'test_command', label: 'Test command (run from the repository root)', placeholder: 'python3 -m unittest tests.test_module', mono: true },
];

type FieldErrors = Partial<Record<keyof CustomTask, string>>;

/** Field errors from schema issues (the form's own check, or the engine's answer naming `custom.<field>`). */
function fieldErrors(issues: readonly { path: readonly PropertyKey[] | string; message: string }[]): FieldErrors {
  const errs: FieldErrors = {};
  for (const i of issues) {
    const parts = typeof i.path === 'string' ? i.path.split('.') : i.path.map(String);
    const k = (parts[0] === 'custom' ? parts[1] : parts[0]) as keyof CustomTask | undefined;
    if (k && CUSTOM_FIELDS.some((f) => f.key === k) && !errs[k]) errs[k] = i.message;
  }
  return errs;
}

function CustomTaskForm() {
  const info = useApp((s) => s.info.data);
  const repos = useApp((s) => s.repos.data);
  const selectedRepoId = useApp((s) => s.selectedRepoId);
  // The folder a draft follows until the analyst types one: the repository they work on, else the sample.
  const working = workingRepoRoot(repos, selectedRepoId) ?? info?.sampleRepo ?? '';
  const sample = info?.sampleRepo;
  // The draft survives a reload: kept in localStorage per repository folder (custom-draft.ts).
  const [values, setValuesState] = useState<CustomDraft>(() => withDefaultFolder(loadCustomDraft(window.localStorage, ''), working, sample));
  const setValues = (next: CustomDraft) => {
    setValuesState(next);
    saveCustomDraft(window.localStorage, next);
  };
  useEffect(() => {
    // app.info and repo.list answer after the form opens, and another repository may be indexed or chosen meanwhile.
    setValuesState((v) => withDefaultFolder(v, working, sample));
  }, [working, sample]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const change = (key: keyof CustomTask, value: string) => {
    setValues({ ...values, [key]: value, ...(key === 'repo' ? { repoTyped: value.trim() !== '' } : {}) });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const validate = (): CustomTask | null => {
    const input = Object.fromEntries(CUSTOM_FIELDS.map(({ key }) => [key, key === 'requirement' || key === 'signature' ? values[key] : values[key].trim()]));
    const r = CustomTaskSchema.safeParse(input);
    if (r.success) {
      setErrors({});
      return r.data;
    }
    setErrors(fieldErrors(r.error.issues));
    return null;
  };
  return (
    <form className="custom-form" data-testid="custom-task-form" onSubmit={(e) => e.preventDefault()} noValidate>
      {CUSTOM_FIELDS.map((f) => (
        <Field
          key={f.key}
          label={f.label}
          error={errors[f.key] ?? null}
          testId={`custom-field-${f.key}`}
          hint={
            f.key === 'repo' && working && values.repo !== working ? (
              <button
                type="button"
                className="link-btn"
                onClick={() => setValues({ ...values, repo: working, repoTyped: false })}
                data-testid="custom-use-working-repo"
              >
                Use {working === sample ? 'the sample repository' : <span className="mono">{working}</span>}
              </button>
            ) : null
          }
        >
          {(id, d) =>
            f.multiline ? (
              <textarea
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors[f.key]}
                className={`input textarea ${f.mono ? 'mono' : ''}`}
                rows={f.key === 'requirement' ? 5 : 2}
                value={values[f.key]}
                placeholder={f.placeholder}
                onChange={(e) => change(f.key, e.target.value)}
                data-testid={`custom-${f.key}`}
              />
            ) : (
              <input
                id={id}
                aria-describedby={d}
                aria-invalid={!!errors[f.key]}
                className={`input ${f.mono ? 'mono' : ''}`}
                value={values[f.key]}
                placeholder={f.placeholder}
                onChange={(e) => change(f.key, e.target.value)}
                data-testid={`custom-${f.key}`}
                spellCheck={false}
              />
            )
          }
        </Field>
      ))}
      <RunControls req={{}} validate={validate} onIssues={(issues) => setErrors(fieldErrors(issues))} />
    </form>
  );
}
