// The shell: left navigation, the connection banner, notices, and the chosen view.

import { useEffect, useState } from 'react';
import { rovingKeyDown } from './components/roving.ts';
import type { JobKind } from './api/contract.ts';
import { useApp, getStore, type ViewId } from './store.ts';
import { AblationPart, ExperimentPart, SettingsPart, TaskPart } from './lazy/parts.tsx';
import { sandboxSummary } from './lib/sandbox.ts';
import { Toasts } from './components/Toasts.tsx';
import { ImportView } from './views/ImportView.tsx';
import { RepositoryView } from './views/RepositoryView.tsx';
import { ReportsView } from './views/ReportsView.tsx';
import './App.css';

const NAV: { id: ViewId; label: string; hint: string; icon: string }[] = [
  { id: 'repository', label: 'Repository', hint: 'open and index a folder', icon: '▤' },
  { id: 'task', label: 'Task', hint: 'run one task and inspect its trace', icon: '◇' },
  { id: 'ablation', label: 'Ablation', hint: 'switch evidence sources and compare', icon: '◐' },
  { id: 'experiment', label: 'Experiment', hint: 'runs, progress and charts', icon: '▥' },
  { id: 'reports', label: 'Reports', hint: 'export HTML, Markdown, JSON, CSV', icon: '⇩' },
  { id: 'import', label: 'Import', hint: 'benchmarks and published sample sets', icon: '⇥' },
  { id: 'settings', label: 'Settings', hint: 'backend, keys, sandbox, constants', icon: '⚙' },
];

/** The jobs a view's navigation entry counts while they run. */
const JOBS_OF_VIEW: Partial<Record<ViewId, readonly JobKind[]>> = {
  repository: ['index', 'mine'],
  task: ['task'],
  experiment: ['experiment'],
  import: ['import'],
};

function Nav() {
  const view = useApp((s) => s.view);
  const setView = useApp((s) => s.setView);
  const jobs = useApp((s) => s.jobs);
  const running = jobs.filter((j) => j.state === 'running' || j.state === 'paused');
  const info = useApp((s) => s.info.data);
  return (
    <nav className="nav" aria-label="Views">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        OpenCoder
      </div>
      <ul className="nav-list" role="list" onKeyDown={(e) => rovingKeyDown(e, 'vertical')} data-testid="nav">
        {NAV.map((n) => {
          const current = n.id === view;
          const busy = running.filter((j) => JOBS_OF_VIEW[n.id]?.includes(j.kind)).length;
          return (
            <li key={n.id}>
              <button
                type="button"
                className={`nav-item ${current ? 'nav-item-current' : ''}`}
                aria-current={current ? 'page' : undefined}
                tabIndex={current ? 0 : -1}
                data-roving
                onClick={() => setView(n.id)}
                data-testid={`nav-${n.id}`}
                title={n.hint}
              >
                <span className="nav-icon" aria-hidden="true">
                  {n.icon}
                </span>
                <span className="nav-label">{n.label}</span>
                {busy ? (
                  <span className="nav-busy" aria-label={`${busy} running`} title={`${busy} running`}>
                    {busy}
                  </span>
                ) : null}
              </button>
            </li>
          );
        })}
      </ul>
      <div className="nav-foot">
        <ConnectionDot />
        {info ? (
          <div className={`nav-meta nav-sandbox nav-sandbox-${sandboxSummary(info.sandbox).mode}`} title={info.sandbox} data-testid="nav-sandbox">
            {sandboxSummary(info.sandbox).short}
          </div>
        ) : null}
        {info ? (
          <div className="nav-meta" title={info.dbPath}>
            v{info.version} · {info.mode === 'electron' ? 'desktop' : 'browser mode'}
          </div>
        ) : null}
      </div>
    </nav>
  );
}

function ConnectionDot() {
  const c = useApp((s) => s.connection);
  const label = c.state === 'open' ? 'connected' : c.state === 'connecting' ? 'connecting…' : 'disconnected — reconnecting';
  return (
    <div className={`conn conn-${c.state}`} data-testid="connection-state" data-state={c.state}>
      <span className="conn-dot" aria-hidden="true" />
      {label}
    </div>
  );
}

function ReconnectBanner() {
  const c = useApp((s) => s.connection);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (c.state !== 'reconnecting') return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [c.state]);
  if (c.state !== 'reconnecting') return null;
  const secs = c.retryAt ? Math.max(0, Math.ceil((c.retryAt - now) / 1000)) : null;
  return (
    <div className="banner banner-warn" role="status" aria-live="polite" data-testid="reconnect-banner">
      <strong>Disconnected — reconnecting.</strong> Live progress is paused; the engine keeps working.{' '}
      {secs !== null ? `Next attempt ${secs > 0 ? `in ${secs} s` : 'now'}` : ''} (attempt {c.attempt}).
    </div>
  );
}

/** Where the sandbox notice's dismissal is remembered, per label: a new mode (or reason) is said again. */
const SANDBOX_SEEN_KEY = 'opencoder.sandbox-notice-seen';

function seenSandboxNotice(label: string): boolean {
  try {
    return window.localStorage.getItem(SANDBOX_SEEN_KEY) === label;
  } catch {
    return false;
  }
}

/** Says once, plainly, which sandbox validates candidates and what that means; "Got it" keeps it said. */
function SandboxBanner() {
  const info = useApp((s) => s.info.data);
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (!info || dismissed === info.sandbox || seenSandboxNotice(info.sandbox)) return null;
  const s = sandboxSummary(info.sandbox);
  const dismiss = () => {
    try {
      window.localStorage.setItem(SANDBOX_SEEN_KEY, info.sandbox);
    } catch {
      /* private mode: said again next time */
    }
    setDismissed(info.sandbox);
  };
  return (
    <div className={`banner ${s.mode === 'strong' ? 'banner-info' : 'banner-warn'}`} role="status" data-testid="sandbox-banner" data-mode={s.mode}>
      <span>{s.message}</span>{' '}
      <button type="button" className="banner-action" onClick={dismiss} data-testid="sandbox-banner-ok">
        Got it
      </button>
    </div>
  );
}

export function App() {
  const view = useApp((s) => s.view);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Alt+1…7 jump between views.
      if (e.altKey && !e.ctrlKey && !e.metaKey && /^[1-7]$/.test(e.key)) {
        getStore()
          .getState()
          .setView(NAV[Number(e.key) - 1]!.id);
        e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="app" data-testid="app">
      <Nav />
      <main className="main" id="main" data-testid={`view-${view}`}>
        <ReconnectBanner />
        <SandboxBanner />
        {view === 'repository' ? <RepositoryView /> : null}
        {view === 'task' ? <TaskPart /> : null}
        {view === 'ablation' ? <AblationPart /> : null}
        {view === 'experiment' ? <ExperimentPart /> : null}
        {view === 'reports' ? <ReportsView /> : null}
        {view === 'import' ? <ImportView /> : null}
        {view === 'settings' ? <SettingsPart /> : null}
      </main>
      <Toasts />
    </div>
  );
}
