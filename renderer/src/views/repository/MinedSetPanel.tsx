// A mined set (repo.mined): the counts, the drops by reason, the manifest handed to the Experiment or Ablation
// view, and two tables: the kept tasks (target, tests, mutation score, isolation, context level) and the dropped
// candidates (target, reason, detail), each with a filter. A stopped run shows what it decided so far.

import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { CallError, JobInfo, MinedDrop, MinedSet, MinedTask } from '../../api/contract.ts';
import { Badge, Empty, ErrorBox, Loading, Section, Stats } from '../../components/ui.tsx';
import { VirtualList } from '../../components/VirtualList.tsx';
import { int, rate } from '../../lib/format.ts';
import { asCallError, engine } from '../../store.ts';
import { openInAblation, openInExperiment } from '../manifest-handoff.ts';
import './MinedSetPanel.css';

/** The set in `out`, read again whenever the job that writes it changes state. */
function useMinedSet(out: string, job: JobInfo): { set: MinedSet | null; error: CallError | null; reload: () => void } {
  const [state, setState] = useState<{ key: string; set: MinedSet | null; error: CallError | null } | null>(null);
  const [attempt, setAttempt] = useState(0);
  const key = `${out}\n${job.id}\n${job.state}\n${job.finishedAt ?? ''}\n${attempt}`;
  useEffect(() => {
    let stale = false;
    engine()
      .call('repo.mined', { out })
      .then(
        (set) => !stale && setState({ key, set, error: null }),
        (err: unknown) => !stale && setState({ key, set: null, error: asCallError(err) }),
      );
    return () => {
      stale = true;
    };
  }, [key, out]);
  const current = state?.key === key ? state : null;
  return { set: current?.set ?? null, error: current?.error ?? null, reload: () => setAttempt((n) => n + 1) };
}

export function MinedSetPanel({ out, folder, job }: { out: string; folder: string; job: JobInfo }) {
  const { set, error, reload } = useMinedSet(out, job);
  const subtitle = (
    <>
      from <span className="mono break">{folder}</span> into <span className="mono break">{out}</span>
    </>
  );
  return (
    <Section title="Mined tasks" subtitle={subtitle} testId="mined-set">
      {error ? (
        error.code === 'not-found' ? (
          <Empty title="Nothing decided yet" testId="mined-none">
            The run stopped before it decided any function.
          </Empty>
        ) : (
          <ErrorBox error={error} title="Cannot read the mined set" onRetry={reload} testId="mined-error" />
        )
      ) : !set ? (
        <Loading label="Reading the mined set…" testId="mined-loading" />
      ) : (
        <MinedSetBody set={set} />
      )}
    </Section>
  );
}

function MinedSetBody({ set }: { set: MinedSet }) {
  const dropped = set.candidates - set.kept.length;
  return (
    <>
      {!set.complete ? (
        <p className="notice notice-warn small" data-testid="mined-partial">
          This run stopped before it finished: the tables show the {int(set.candidates)} functions it decided. The manifest is written when a run finishes.
        </p>
      ) : null}
      <Stats
        className="mined-stats"
        testId="mined-counts"
        items={[
          { label: 'Candidates', value: int(set.candidates), testId: 'mined-candidates', hint: 'functions and methods decided: kept plus dropped' },
          { label: 'Kept', value: int(set.kept.length), testId: 'mined-kept-count' },
          { label: 'Judged isolated', value: int(set.isolated), testId: 'mined-isolated', hint: 'the others run in-process, with hardening' },
          { label: 'Dropped', value: int(dropped), testId: 'mined-dropped-count' },
          { label: 'Median mutation score', value: rate(set.mutationScore.median), testId: 'mined-median-score', hint: 'of the kept tasks' },
        ]}
      />
      <div className="mined-by-reason">
        <h3 className="h4">Dropped, by reason</h3>
        {set.droppedBy.length ? (
          <ul className="mined-reasons" data-testid="mined-reasons">
            {set.droppedBy.map((r) => (
              <li key={r.reason} data-reason={r.reason}>
                <Badge tone="muted">{int(r.count)}</Badge> <span>{r.label}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="small muted">none</p>
        )}
      </div>
      <MinedNext set={set} />
      <KeptTable rows={set.kept} />
      <DroppedTable rows={set.dropped} />
    </>
  );
}

/** The manifest handed on, once a finished run wrote it with at least one task. */
function MinedNext({ set }: { set: MinedSet }) {
  const usable = set.complete && set.manifest !== null && set.kept.length > 0;
  const why = !set.complete ? 'The manifest is written when the run finishes' : !set.kept.length ? 'No task was kept' : '';
  return (
    <div className="mined-next" data-testid="mined-next">
      <div className="row gap">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!usable}
          title={why}
          onClick={() => openInExperiment(set.manifest!)}
          data-testid="mined-use-experiment"
        >
          Use in an experiment
        </button>
        <button type="button" className="btn" disabled={!usable} title={why} onClick={() => openInAblation(set.manifest!)} data-testid="mined-use-ablation">
          Use in an ablation
        </button>
      </div>
      {set.manifest ? (
        <div className="kv mined-files">
          <span>Manifest</span>
          <span className="mono break" data-testid="mined-manifest">
            {set.manifest}
          </span>
          {set.report ? (
            <>
              <span>Report</span>
              <span className="mono break">{set.report}</span>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** A table of rows with a filter over the text each row gives. */
function FilteredTable<T extends { id: string }>(props: {
  title: string;
  rows: T[];
  text: (row: T) => string;
  header: ReactNode;
  row: (row: T) => ReactNode;
  rowHeight: number;
  testId: string;
  empty: string;
}) {
  const [filter, setFilter] = useState('');
  const { rows, text } = props;
  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? rows.filter((r) => text(r).toLowerCase().includes(q)) : rows;
  }, [rows, text, filter]);
  return (
    <div className="subsection mined-table" data-testid={props.testId}>
      <div className="row between">
        <h3 className="h3">
          {props.title} <span className="muted tabular">{int(rows.length)}</span>
        </h3>
        {rows.length ? (
          <input
            className="input input-small"
            placeholder="Filter by id, file or text"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            aria-label={`Filter ${props.title.toLowerCase()}`}
            data-testid={`${props.testId}-filter`}
          />
        ) : null}
      </div>
      {!rows.length ? <p className="small muted">{props.empty}</p> : null}
      {rows.length && !shown.length ? <p className="small muted">Nothing matches “{filter}”.</p> : null}
      {shown.length ? (
        <VirtualList
          items={shown}
          rowHeight={props.rowHeight}
          height={Math.min(340, shown.length * props.rowHeight + 2)}
          getKey={(r) => r.id}
          label={props.title}
          role="table"
          testId={`${props.testId}-list`}
          header={props.header}
          renderRow={props.row}
        />
      ) : null}
    </div>
  );
}

/** A task's target: its id, and where it is (file and line); the qualified name is the id's tail. */
function Target({ id, file, line }: { id: string; file: string; line: number | null }) {
  const where = line ? `${file}:${line}` : file;
  return (
    <span className="mined-target" title={`${id}\n${where}`}>
      <span className="mono ellipsis">{id}</span>
      <span className="mono small muted ellipsis">{where}</span>
    </span>
  );
}

/** A reason's label without its explanation in brackets (the whole label is the cell's title). */
const shortLabel = (label: string) => label.replace(/\s*\(.*\)$/, '');

const keptText = (t: MinedTask) => `${t.id} ${t.file} ${t.qualname} ${t.isolation ?? ''} ${t.context ?? ''}`;

function KeptTable({ rows }: { rows: MinedTask[] }) {
  return (
    <FilteredTable
      title="Kept tasks"
      rows={rows}
      text={keptText}
      rowHeight={46}
      testId="mined-kept"
      empty="No function passed every check."
      header={
        <div className="vtable-head mined-kept-grid" role="row">
          <span>Target</span>
          <span className="num">Tests</span>
          <span className="num" title="mutants of the reference its tests kill, of those made">
            Mutation score
          </span>
          <span>Isolation</span>
          <span>Context</span>
        </div>
      }
      row={(t) => (
        <div className="vtable-row mined-kept-grid" role="row" data-testid="mined-task" data-task-id={t.id}>
          <Target id={t.id} file={t.file} line={t.line} />
          <span className="num" data-testid="mined-tests">
            {int(t.tests)}
          </span>
          <span className="num" data-testid="mined-score">
            {t.mutants ? (
              <>
                {rate(t.mutants.score)}{' '}
                <span className="muted small">
                  ({int(t.mutants.killed)}/{int(t.mutants.made)})
                </span>
              </>
            ) : (
              '—'
            )}
          </span>
          <span data-testid="mined-isolation">
            {t.isolation ? (
              <Badge
                tone={t.isolation === 'isolated' ? 'good' : 'warn'}
                title={t.isolation === 'isolated' ? 'tests and candidate in two processes' : 'best-effort hardening in one process'}
              >
                {t.isolation}
              </Badge>
            ) : (
              '—'
            )}
          </span>
          <span className="small muted ellipsis" title={t.context ?? ''}>
            {t.context?.replace(/_/g, ' ') ?? '—'}
          </span>
        </div>
      )}
    />
  );
}

const dropText = (d: MinedDrop) => `${d.id} ${d.file} ${d.qualname} ${d.label} ${d.detail}`;

function DroppedTable({ rows }: { rows: MinedDrop[] }) {
  return (
    <FilteredTable
      title="Dropped"
      rows={rows}
      text={dropText}
      rowHeight={46}
      testId="mined-dropped"
      empty="Every function decided was kept."
      header={
        <div className="vtable-head mined-dropped-grid" role="row">
          <span>Target</span>
          <span>Reason</span>
          <span>Detail</span>
        </div>
      }
      row={(d) => (
        <div className="vtable-row mined-dropped-grid" role="row" data-testid="mined-drop" data-task-id={d.id} data-reason={d.reason}>
          <Target id={d.id} file={d.file} line={d.line} />
          <span className="small mined-clamp" title={d.label} data-testid="mined-reason">
            {shortLabel(d.label)}
          </span>
          <span className="small muted mined-clamp" title={d.detail}>
            {d.detail}
          </span>
        </div>
      )}
    />
  );
}
