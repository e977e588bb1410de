// Reports: HTML / Markdown / JSON / CSV for one run or two compared (the runs chosen in the Experiment view), rendered
// by the engine and offered as downloads with the engine's file names; every file of the session stays listed.

import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { CallError, RunListItem } from '../api/contract.ts';
import { Empty, ErrorBox, Field, Loading, Section, ViewHead } from '../components/ui.tsx';
import { humanSize, makeDownload, revoke, triggerDownload, type Download } from '../lib/download.ts';
import { dateTime } from '../lib/format.ts';
import { asCallError, engine, useApp } from '../store.ts';
import './ReportsView.css';

type Format = 'html' | 'md' | 'json' | 'csv';
const FORMATS: { id: Format; label: string; note: string }[] = [
  { id: 'html', label: 'HTML', note: 'one self-contained file with inline SVG charts' },
  { id: 'md', label: 'Markdown', note: 'tables for papers and READMEs' },
  { id: 'json', label: 'JSON', note: 'the full report model' },
  { id: 'csv', label: 'CSV', note: 'per task, plus candidates, conditions, effects, comparisons and runs' },
];

export function ReportsView() {
  const runs = useApp((s) => s.runs);
  // The runs chosen in the Experiment view are the report's (and the address bar holds them): one, or two compared.
  const selectedRuns = useApp((s) => s.selectedRuns);
  const selectRuns = useApp((s) => s.selectRuns);
  const refreshRuns = useApp((s) => s.refreshRuns);
  const list = useMemo(() => runs.data ?? [], [runs.data]);
  const runA = selectedRuns[0] ?? '';
  const runB = selectedRuns[1] ?? '';
  const exported = useReportExport(runA, runB);
  useEffect(() => {
    // None chosen yet: the newest run.
    if (!runA && list[0]) selectRuns([list[0].id]);
  }, [list, runA, selectRuns]);
  const setRunA = (id: string) => selectRuns(id && id !== runB ? [id, ...(runB ? [runB] : [])] : [id]);
  const setRunB = (id: string) => selectRuns(id ? [runA, id] : [runA]);

  return (
    <div className="view" data-testid="reports-view">
      <ViewHead title="Reports" sub="Regenerated from the store: the tables and charts cannot disagree with the runs." />
      <Section title="Export" testId="report-export">
        {runs.status === 'loading' && !runs.data ? <Loading label="Listing runs…" /> : null}
        {runs.status === 'error' ? <ErrorBox error={runs.error} title="Could not list runs" onRetry={() => void refreshRuns()} /> : null}
        {runs.data && !list.length ? (
          <Empty title="No runs to report on" testId="reports-empty">
            Start an experiment first.
          </Empty>
        ) : null}
        {list.length ? (
          <>
            <RunChoice list={list} runA={runA} runB={runB} setRunA={setRunA} setRunB={setRunB} />
            <div className="export-grid">
              {FORMATS.map((f) => (
                <button
                  key={f.id}
                  type="button"
                  className="card-btn export-btn"
                  onClick={() => void exported.render(f.id)}
                  disabled={!!exported.busy || !runA}
                  data-testid={`export-${f.id}`}
                >
                  <span className="export-label">{exported.busy === f.id ? 'Rendering…' : f.label}</span>
                  <span className="export-note">{f.note}</span>
                </button>
              ))}
            </div>
            <ErrorBox error={exported.error} title="Could not render the report" />
          </>
        ) : null}
        {exported.files.length ? <DownloadList files={exported.files} /> : null}
      </Section>
    </div>
  );
}

/** One file exported in this session: what it is, of which runs, when. */
interface Exported extends Download {
  format: Format;
  runIds: string[];
  /** When it was made (ISO). */
  at: string;
}

/**
 * Every file exported in this session, newest first: kept here, not in the view, so that leaving the Reports view
 * and coming back still lists them (their Blob URLs live as long as the page). At most EXPORTS_KEPT.
 */
const EXPORTS_KEPT = 100;
let exportedFiles: Exported[] = [];
const listeners = new Set<() => void>();
const subscribeExports = (fn: () => void) => {
  listeners.add(fn);
  return () => void listeners.delete(fn);
};
function addExports(files: Exported[]): void {
  const next = [...files, ...exportedFiles];
  revoke(next.slice(EXPORTS_KEPT));
  exportedFiles = next.slice(0, EXPORTS_KEPT);
  for (const fn of listeners) fn();
}

/** Rendering the report of run A (compared with B when chosen) in one format, and the files it gave as downloads. */
function useReportExport(runA: string, runB: string) {
  const [busy, setBusy] = useState<Format | null>(null);
  const [error, setError] = useState<CallError | null>(null);
  const files = useSyncExternalStore(subscribeExports, () => exportedFiles);

  const render = async (format: Format) => {
    if (!runA) return;
    setBusy(format);
    setError(null);
    try {
      const runIds = runB && runB !== runA ? [runA, runB] : [runA];
      const { files: rendered } = await engine().call('report.render', { runIds, format });
      const at = new Date().toISOString();
      const ds = rendered.map((f) => ({ ...makeDownload(f), format, runIds, at }));
      addExports(ds);
      for (const d of ds) triggerDownload(d);
    } catch (err) {
      setError(asCallError(err));
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, files, render };
}

interface RunChoiceProps {
  list: RunListItem[];
  runA: string;
  runB: string;
  setRunA: (id: string) => void;
  setRunB: (id: string) => void;
}

/**
 * A run as the menus name it: its label, then what tells it from the others (task or manifest, methods, backend),
 * when it was made, its id and how it stands. An automatic label already says the subject, methods and backend.
 */
function runOption(r: RunListItem): string {
  const methods = r.conditions.length <= 3 ? r.conditions.join(', ') : `${r.conditions.length} conditions`;
  const what = r.label === r.autoLabel ? [] : [r.subject, methods, r.backend];
  return [r.label, ...what, dateTime(r.createdAt), r.id, r.state].join(' · ');
}

/** The chosen run in full under its menu: label, id, created, what it ran, its backend and state. */
function RunFacts({ run: r, testId }: { run: RunListItem | undefined; testId: string }) {
  if (!r) return null;
  const methods = r.conditions.length <= 3 ? r.conditions.join(', ') : `${r.conditions.length} conditions`;
  return (
    <div className="report-run-facts small" data-testid={testId}>
      <strong className="report-run-label">{r.label}</strong> <span className="mono">{r.id}</span> · created {dateTime(r.createdAt)}
      <div className="muted">
        {r.subject} · {methods} · {r.backend} · {r.state} · {r.results.toLocaleString('en-US')} results
      </div>
    </div>
  );
}

function RunChoice({ list, runA, runB, setRunA, setRunB }: RunChoiceProps) {
  return (
    <div className="report-runs">
      <Field label="Run">
        {(id) => (
          <select id={id} className="input report-run-select" value={runA} onChange={(e) => setRunA(e.target.value)} data-testid="report-run">
            {list.map((r) => (
              <option key={r.id} value={r.id} title={r.id}>
                {runOption(r)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <RunFacts run={list.find((r) => r.id === runA)} testId="report-run-facts" />
      <Field label="Compare with (optional)">
        {(id) => (
          <select id={id} className="input report-run-select" value={runB} onChange={(e) => setRunB(e.target.value)} data-testid="report-run-compare">
            <option value="">— none —</option>
            {list
              .filter((r) => r.id !== runA)
              .map((r) => (
                <option key={r.id} value={r.id} title={r.id}>
                  {runOption(r)}
                </option>
              ))}
          </select>
        )}
      </Field>
      <RunFacts run={runB ? list.find((r) => r.id === runB) : undefined} testId="report-run-compare-facts" />
    </div>
  );
}

const FORMAT_LABEL = Object.fromEntries(FORMATS.map((f) => [f.id, f.label])) as Record<Format, string>;

function DownloadList({ files }: { files: Exported[] }) {
  return (
    <div className="downloads" data-testid="report-files">
      <div className="h4">Files exported in this session, newest first (click to download again)</div>
      <table className="table downloads-table">
        <thead>
          <tr>
            <th>File</th>
            <th>Format</th>
            <th>Runs</th>
            <th className="num">Size</th>
            <th>Made</th>
          </tr>
        </thead>
        <tbody>
          {files.map((d) => (
            <tr key={d.url} data-testid="report-file-row">
              <td>
                <a href={d.url} download={d.name} data-testid="report-file">
                  {d.name}
                </a>
              </td>
              <td>{FORMAT_LABEL[d.format]}</td>
              <td className="mono small">{d.runIds.join(' vs ')}</td>
              <td className="num tabular">{humanSize(d.size)}</td>
              <td className="tabular small">{timeOf(d.at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** `14:03:27`: files of one session differ by the time of day. */
function timeOf(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
