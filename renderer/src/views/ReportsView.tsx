// Reports: HTML / Markdown / JSON / CSV for one run or two compared, rendered by the engine and offered as
// downloads with the engine's file names.

import { useEffect, useMemo, useRef, useState } from 'react';
import type { CallError, RunListItem } from '../api/contract.ts';
import { Empty, ErrorBox, Field, Loading, Section } from '../components/ui.tsx';
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
  const selectedRuns = useApp((s) => s.selectedRuns);
  const refreshRuns = useApp((s) => s.refreshRuns);
  const list = useMemo(() => runs.data ?? [], [runs.data]);
  const [runA, setRunA] = useState<string>(selectedRuns[0] ?? '');
  const [runB, setRunB] = useState<string>(selectedRuns[1] ?? '');
  const exported = useReportExport(runA, runB);
  useEffect(() => {
    if (!runA && list[0]) setRunA(selectedRuns[0] ?? list[0].id);
  }, [list, runA, selectedRuns]);

  return (
    <div className="view" data-testid="reports-view">
      <header className="view-head">
        <div>
          <h1>Reports</h1>
          <p className="view-sub">Regenerated from the store: the tables and charts cannot disagree with the runs.</p>
        </div>
      </header>
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
                  className="export-btn"
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
            {exported.downloads.length ? <DownloadList downloads={exported.downloads} /> : null}
          </>
        ) : null}
      </Section>
    </div>
  );
}

/** Rendering the report of run A (compared with B when chosen) in one format, and the files it gave as downloads. */
function useReportExport(runA: string, runB: string) {
  const [busy, setBusy] = useState<Format | null>(null);
  const [error, setError] = useState<CallError | null>(null);
  const [downloads, setDownloads] = useState<Download[]>([]);
  const held = useRef<Download[]>([]);
  useEffect(() => () => revoke(held.current), []);

  const render = async (format: Format) => {
    if (!runA) return;
    setBusy(format);
    setError(null);
    try {
      const runIds = runB && runB !== runA ? [runA, runB] : [runA];
      const { files } = await engine().call('report.render', { runIds, format });
      revoke(held.current);
      const ds = files.map(makeDownload);
      held.current = ds;
      setDownloads(ds);
      for (const d of ds) triggerDownload(d);
    } catch (err) {
      setError(asCallError(err));
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, downloads, render };
}

interface RunChoiceProps {
  list: RunListItem[];
  runA: string;
  runB: string;
  setRunA: (id: string) => void;
  setRunB: (id: string) => void;
}

/** A run as the menus name it: its label, then what tells it from the others (task or manifest, methods, backend, created, status). */
function runOption(r: RunListItem): string {
  const methods = r.conditions.length <= 3 ? r.conditions.join(', ') : `${r.conditions.length} conditions`;
  const parts = [r.label, r.subject, methods, r.backend, dateTime(r.createdAt), r.state];
  // The label is automatic unless renamed, and then already says the subject, methods and backend.
  return (r.label === r.autoLabel ? [r.label, dateTime(r.createdAt), r.state] : parts).join(' · ');
}

function RunChoice({ list, runA, runB, setRunA, setRunB }: RunChoiceProps) {
  return (
    <div className="form-row">
      <Field label="Run">
        {(id) => (
          <select id={id} className="input input-wide" value={runA} onChange={(e) => setRunA(e.target.value)} data-testid="report-run">
            {list.map((r) => (
              <option key={r.id} value={r.id} title={r.id}>
                {runOption(r)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Compare with (optional)">
        {(id) => (
          <select id={id} className="input input-wide" value={runB} onChange={(e) => setRunB(e.target.value)} data-testid="report-run-compare">
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
    </div>
  );
}

function DownloadList({ downloads }: { downloads: Download[] }) {
  return (
    <div className="downloads" data-testid="report-files">
      <div className="h4">Files (click to download again)</div>
      <ul>
        {downloads.map((d) => (
          <li key={d.url}>
            <a href={d.url} download={d.name} data-testid="report-file">
              {d.name}
            </a>{' '}
            <span className="muted small tabular">{humanSize(d.size)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
