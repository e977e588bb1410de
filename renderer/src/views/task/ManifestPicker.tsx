// A task from a manifest: the manifest path (checked, then loaded), the list of its tasks, and the chosen task with
// its run controls.

import { useEffect, useMemo, useState } from 'react';
import { PathSchema, type TaskSummary } from '../../api/contract.ts';
import { AllowHere } from '../../components/AllowHere.tsx';
import { Badge, Empty, Field, Loading, Section } from '../../components/ui.tsx';
import { VirtualList } from '../../components/VirtualList.tsx';
import { useApp } from '../../store.ts';
import { RunControls } from './RunControls.tsx';

export function ManifestPicker() {
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

export function ManifestTaskPanel() {
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
