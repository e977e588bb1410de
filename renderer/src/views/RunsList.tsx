// The Runs list of the Experiment view: each run with its label (automatic when frozen: task or manifest, methods,
// backend; renamed inline here with run.rename), what it ran, its backend, when and how it stands; choose one to
// analyse or two to compare, and resume one that stopped.

import { useState } from 'react';
import type { CallError, RunListItem } from '../api/contract.ts';
import { Badge, Empty, ErrorBox, Loading, Section, type Tone } from '../components/ui.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { dateTime, int } from '../lib/format.ts';
import { asCallError, engine, getStore, useApp } from '../store.ts';
import './RunsList.css';

const RUN_TONE: Record<RunListItem['state'], Tone> = { running: 'info', done: 'good', cancelled: 'muted', interrupted: 'warn' };

export function RunsList() {
  const runs = useApp((s) => s.runs);
  const selected = useApp((s) => s.selectedRuns);
  const selectRuns = useApp((s) => s.selectRuns);
  const refresh = useApp((s) => s.refreshRuns);
  const [actionError, setActionError] = useState<{ title: string; error: CallError } | null>(null);
  const list = runs.data ?? [];
  const toggle = (id: string) => selectRuns(selected.includes(id) ? selected.filter((x) => x !== id) : [...selected, id]);
  const act = async (title: string, fn: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setActionError({ title, error: asCallError(err) });
      return false;
    }
  };
  const resume = (id: string) =>
    act('Could not resume', async () => {
      await engine().call('experiment.resume', { runId: id });
      await getStore().getState().refreshJobs();
    });
  const rename = (id: string, label: string | null) =>
    act('Could not rename the run', async () => {
      await engine().call('run.rename', { runId: id, label });
      await refresh();
    });
  return (
    <Section
      title="Runs"
      subtitle="Choose one run to analyse, or two to compare them task by task. Click a label to rename the run."
      testId="runs"
      actions={
        <button type="button" className="btn btn-small btn-quiet" onClick={() => void refresh()} data-testid="runs-refresh">
          Refresh
        </button>
      }
    >
      {runs.status === 'loading' && !runs.data ? <Loading label="Listing runs…" /> : null}
      {runs.status === 'error' ? <ErrorBox error={runs.error} title="Could not list runs" onRetry={() => void refresh()} /> : null}
      {runs.data && !list.length ? (
        <Empty title="No runs yet" testId="runs-empty">
          Start an experiment above; it appears here at once.
        </Empty>
      ) : null}
      {list.length ? (
        <VirtualList
          items={list}
          rowHeight={48}
          height={Math.min(340, list.length * 48 + 2)}
          label="Runs"
          role="table"
          testId="runs-list"
          getKey={(r) => r.id}
          header={<RunsHeader />}
          renderRow={(r) => (
            <RunRow
              run={r}
              selected={selected.includes(r.id)}
              onToggle={() => toggle(r.id)}
              onResume={() => void resume(r.id)}
              onRename={(label) => rename(r.id, label)}
            />
          )}
        />
      ) : null}
      <ErrorBox error={actionError?.error ?? null} title={actionError?.title ?? ''} testId="runs-error" />
    </Section>
  );
}

function RunsHeader() {
  return (
    <div className="vtable-head runs-grid">
      <span />
      <span>Label</span>
      <span>Task / manifest</span>
      <span>Methods</span>
      <span>Backend</span>
      <span>Created</span>
      <span>Status</span>
      <span className="num">Results</span>
      <span />
    </div>
  );
}

interface RowProps {
  run: RunListItem;
  selected: boolean;
  onToggle: () => void;
  onResume: () => void;
  onRename: (label: string | null) => Promise<boolean>;
}

function RunRow({ run: r, selected, onToggle, onResume, onRename }: RowProps) {
  return (
    <div className={`vtable-row runs-grid ${selected ? 'vtable-row-selected' : ''}`} data-testid="run-row" data-run-id={r.id}>
      <span>
        <input type="checkbox" checked={selected} onChange={onToggle} aria-label={`select run ${r.label}`} data-testid="run-select" />
      </span>
      <RunLabel run={r} onRename={onRename} />
      <span className="small ellipsis" title={`${r.manifestFile} · ${r.kind}`} data-testid="run-subject">
        {r.subject}
      </span>
      <span className="small ellipsis" title={r.conditions.join(', ')} data-testid="run-methods">
        {r.conditions.length <= 3 ? r.conditions.join(', ') : `${r.conditions.length} conditions`}
      </span>
      <span className="small ellipsis" title={r.backend} data-testid="run-backend">
        {r.backend}
      </span>
      <span className="small tabular">{dateTime(r.createdAt)}</span>
      <span>
        <Badge tone={RUN_TONE[r.state]}>{r.state}</Badge>
      </span>
      <span className="num small" title={`${int(r.tasks)} tasks × ${r.conditions.length} conditions`}>
        {int(r.results)}
        {r.errors ? (
          <span className="text-warn" title="Pairs the infrastructure failed: left out of every figure, run again on resume">
            {' '}
            · {r.errors} unscored
          </span>
        ) : null}
      </span>
      <span>
        {r.state === 'interrupted' || r.state === 'cancelled' ? (
          <button type="button" className="btn btn-small" onClick={onResume} data-testid="run-resume">
            Resume
          </button>
        ) : null}
      </span>
    </div>
  );
}

/** The run's label, and its inline editor (Enter saves, Escape cancels, an empty label goes back to the automatic one). */
function RunLabel({ run: r, onRename }: { run: RunListItem; onRename: (label: string | null) => Promise<boolean> }) {
  const [draft, setDraft] = useState<string | null>(null);
  const save = async () => {
    if (draft === null) return;
    const label = draft.trim();
    if (label === r.label) return setDraft(null);
    if (await onRename(label && label !== r.autoLabel ? label : null)) setDraft(null);
  };
  if (draft !== null)
    return (
      <span className="run-label-edit">
        <input
          className="input input-small"
          value={draft}
          maxLength={200}
          autoFocus
          aria-label={`label of run ${r.id}`}
          placeholder={r.autoLabel}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void save();
            if (e.key === 'Escape') setDraft(null);
          }}
          onBlur={() => void save()}
          data-testid="run-label-input"
        />
      </span>
    );
  return (
    <button type="button" className="run-label" title={`${r.label}\n${r.id}\nClick to rename`} onClick={() => setDraft(r.label)} data-testid="run-label">
      <span className="run-label-text">{r.label}</span>
      <span className="run-id mono">{r.id}</span>
    </button>
  );
}
