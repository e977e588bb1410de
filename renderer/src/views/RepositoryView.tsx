// Repository: open a folder (native picker in Electron, a path field in browser mode), index it with live
// progress and pause / resume / cancel, see what the index holds and which files it skipped and why, and find tasks
// in it (repository/FindTasks.tsx: a mined benchmark, handed to the Experiment or Ablation view).

import { useEffect, useMemo, useState } from 'react';
import { PathSchema, type RepoSummary, type SkippedFile } from '../api/contract.ts';
import { AllowHere } from '../components/AllowHere.tsx';
import { Empty, ErrorBox, Field, JobCard, Loading, Section, Stats, ViewHead } from '../components/ui.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { dateTime, int } from '../lib/format.ts';
import { plural } from '../../../main/model/format.ts';
import { embeddableTexts, repositoryEmbeddedText, repositoryFilesText, TEXT_MEANING, unitCount } from '../../../main/model/index-counts.ts';
import { skipDetailText, skipReasonText } from '../../../main/model/skip-reasons.ts';
import { asCallError, engine, useApp } from '../store.ts';
import type { CallError } from '../api/contract.ts';
import { FindTasks } from './repository/FindTasks.tsx';
import { NoModelNotice } from './settings/NoModelNotice.tsx';
import './RepositoryView.css';

/** `7 test files left out of retrieval: 6 named as a test, 1 TestCase subclass`, or that there are none. */
export function testFilesText(byReason: Record<string, number>): string {
  const entries = Object.entries(byReason).filter(([, n]) => n > 0);
  const total = entries.reduce((a, [, n]) => a + n, 0);
  if (!total) return 'No test files: nothing is left out of retrieval as test code.';
  return `${plural(total, 'test file')} left out of retrieval (a task's tests would give its answer away): ${entries.map(([k, n]) => `${int(n)} ${k}`).join(', ')}.`;
}

export function RepositoryView() {
  const repos = useApp((s) => s.repos);
  const selected = useApp((s) => s.selectedRepoId);
  const setSelected = useApp((s) => s.selectRepo);
  const list = repos.data ?? [];
  const current = list.find((r) => r.id === selected) ?? list[0] ?? null;

  return (
    <div className="view" data-testid="repository-view">
      <ViewHead title="Repository" sub="Open a folder and index it on this machine: code units, context chunks, API entries and their embeddings." />

      <NoModelNotice />
      <OpenFolder />
      <IndexJobs />

      <div className="grid-2-1 grid-top">
        <RepoList current={current} onSelect={setSelected} />
        <EncoderCard />
      </div>

      {current ? <FindTasks key={current.root} repo={current} /> : null}
      {current ? <RepoDetail repo={current} /> : null}
    </div>
  );
}

/** The running and paused indexing jobs, then the last three finished ones; nothing when there are none. */
function IndexJobs() {
  const jobs = useApp((s) => s.jobs);
  const jobAction = useApp((s) => s.jobAction);
  const indexJobs = jobs.filter((j) => j.kind === 'index');
  const activeJobs = indexJobs.filter((j) => j.state === 'running' || j.state === 'paused');
  const recentJobs = indexJobs.filter((j) => !(j.state === 'running' || j.state === 'paused')).slice(0, 3);
  if (!activeJobs.length && !recentJobs.length) return null;
  return (
    <Section title="Indexing" testId="index-jobs" subtitle="Pausing stops after the current batch; resuming continues where it stopped.">
      <div className="job-list">
        {[...activeJobs, ...recentJobs].map((j) => (
          <JobCard key={j.id} job={j} onAction={(a) => void jobAction(j.id, a)} testId="index-job" />
        ))}
      </div>
    </Section>
  );
}

function RepoList({ current, onSelect }: { current: RepoSummary | null; onSelect: (id: number) => void }) {
  const info = useApp((s) => s.info);
  const repos = useApp((s) => s.repos);
  const refreshRepos = useApp((s) => s.refreshRepos);
  const list = repos.data ?? [];
  return (
    <Section
      title="Indexed repositories"
      testId="repo-list"
      actions={
        <button type="button" className="btn btn-small btn-quiet" onClick={() => void refreshRepos()} data-testid="repo-refresh">
          Refresh
        </button>
      }
    >
      {repos.status === 'loading' && !repos.data ? <Loading label="Reading the workspace…" /> : null}
      {repos.status === 'error' ? <ErrorBox error={repos.error} title="Could not list repositories" onRetry={() => void refreshRepos()} /> : null}
      {repos.data && !list.length ? (
        <Empty title="No repository indexed yet" testId="repo-empty">
          Open a folder above{info.data?.sampleRepo ? ' — or start with the bundled sample repository' : ''}.
        </Empty>
      ) : null}
      {list.length ? (
        <ul className="repo-list" role="list">
          {list.map((r) => (
            <li key={r.id}>
              <button
                type="button"
                className={`repo-item ${current?.id === r.id ? 'repo-item-current' : ''}`}
                aria-pressed={current?.id === r.id}
                onClick={() => onSelect(r.id)}
                data-testid="repo-item"
                data-repo-id={r.id}
              >
                <span className="repo-name">{r.name}</span>
                <span className="repo-root" title={r.root}>
                  {r.root}
                </span>
                <span className="repo-meta tabular">
                  {plural(r.files, 'code file')}
                  {r.otherFiles ? ` (+${int(r.otherFiles)} other)` : ''} · {plural(unitCount(r.units), 'unit')} ·{' '}
                  {r.lastIndexedAt ? `indexed ${dateTime(r.lastIndexedAt)}` : 'not indexed yet'}
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

/** Starting an index: the path check, the call, and the native picker; errors about the path go to the field. */
function useIndexFolder() {
  const refreshRepos = useApp((s) => s.refreshRepos);
  const refreshJobs = useApp((s) => s.refreshJobs);
  const [path, setPath] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<CallError | null>(null);
  const [busy, setBusy] = useState(false);
  const [pickNote, setPickNote] = useState<string | null>(null);
  /** The engine's refusal of a folder outside the allowed roots: "Allow this folder" offers the folder it names. */
  const [refused, setRefused] = useState<{ path: string; error: CallError } | null>(null);

  const index = async (p: string) => {
    setError(null);
    setRefused(null);
    const check = PathSchema.safeParse(p.trim());
    if (!check.success) {
      setFieldError(check.error.issues[0]?.message ?? 'not a valid path');
      return;
    }
    setFieldError(null);
    setBusy(true);
    try {
      await engine().call('repo.index', { path: check.data });
      await refreshJobs();
      void refreshRepos();
    } catch (err) {
      const e = asCallError(err);
      const pathIssue = e.issues?.find((i) => i.path === 'path');
      if (e.code === 'forbidden-path') setRefused({ path: check.data, error: e });
      if (pathIssue) setFieldError(pathIssue.message);
      else if (e.code === 'forbidden-path') setFieldError(e.message);
      else setError(e);
    } finally {
      setBusy(false);
    }
  };

  const pick = async () => {
    setPickNote(null);
    setError(null);
    try {
      const r = await engine().call('repo.pick', {});
      if (r.path) {
        setPath(r.path);
        await index(r.path);
      } else if (r.reason) setPickNote(r.reason);
    } catch (err) {
      setError(asCallError(err));
    }
  };
  return { path, setPath, fieldError, error, busy, pickNote, refused, setRefused, index, pick };
}

type IndexFolder = ReturnType<typeof useIndexFolder>;

function OpenFolder() {
  const info = useApp((s) => s.info);
  const folder = useIndexFolder();

  if (info.status === 'loading' && !info.data) return <Loading label="Connecting to the engine…" />;
  if (info.status === 'error') return <ErrorBox error={info.error} title="The engine did not answer" />;
  const picker = info.data?.folderPicker;
  const sampleRepo = info.data?.sampleRepo;

  return (
    <Section
      title="Open a folder"
      testId="open-folder"
      subtitle={
        picker ? 'Choose a repository folder to index.' : 'Browser mode: type the folder’s absolute path. Only folders inside the allowed roots can be opened.'
      }
    >
      {picker ? (
        <div className="row gap">
          <button type="button" className="btn btn-primary" onClick={() => void folder.pick()} data-testid="repo-pick">
            Choose folder…
          </button>
          {sampleRepo ? (
            <button type="button" className="btn" onClick={() => void folder.index(sampleRepo)} data-testid="repo-index-sample">
              Index the sample repository
            </button>
          ) : null}
          {folder.pickNote ? <span className="muted">{folder.pickNote}</span> : null}
        </div>
      ) : (
        <PathForm folder={folder} roots={info.data?.allowedRoots ?? []} sampleRepo={sampleRepo} />
      )}
      <ErrorBox error={folder.error} title="Could not start indexing" />
    </Section>
  );
}

/** Browser mode: the folder typed as a path (an allowed root fills the field), indexed on submit. */
function PathForm({ folder, roots, sampleRepo }: { folder: IndexFolder; roots: string[]; sampleRepo: string | undefined }) {
  const { path, setPath, fieldError, busy, index } = folder;
  return (
    <form
      className="form-row"
      onSubmit={(e) => {
        e.preventDefault();
        void index(path);
      }}
    >
      <Field
        label="Repository folder"
        error={fieldError}
        hint={
          roots.length ? (
            <span>
              Allowed roots:{' '}
              {roots.map((r, i) => (
                <button key={r} type="button" className="link-btn" onClick={() => setPath(r.endsWith('/') ? r : `${r}/`)} data-testid="allowed-root">
                  {r}
                  {i < roots.length - 1 ? '' : ''}
                </button>
              ))}
            </span>
          ) : null
        }
      >
        {(id, describedBy) => (
          <input
            id={id}
            aria-describedby={describedBy}
            aria-invalid={!!fieldError}
            className="input input-wide mono"
            value={path}
            placeholder="/home/you/projects/my-repo"
            onChange={(e) => setPath(e.target.value)}
            data-testid="repo-path"
            spellCheck={false}
            autoComplete="off"
          />
        )}
      </Field>
      {folder.refused ? (
        <AllowHere error={folder.refused.error} onAllowed={() => void index(folder.refused!.path)} retryLabel="Allow and index" allowOnly testId="repo-allow" />
      ) : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="repo-index">
          {busy ? 'Starting…' : 'Index'}
        </button>
        {sampleRepo ? (
          <button
            type="button"
            className="btn"
            onClick={() => {
              setPath(sampleRepo);
              void index(sampleRepo);
            }}
            data-testid="repo-index-sample"
          >
            Index the sample repository
          </button>
        ) : null}
      </div>
    </form>
  );
}

function EncoderCard() {
  const info = useApp((s) => s.info.data);
  return (
    <Section title="Encoder" testId="encoder-card">
      {info ? (
        <>
          <div className="encoder-name mono" data-testid="encoder-name">
            {info.encoder.name}
          </div>
          {info.encoder.notice ? (
            <EncoderNotice text={info.encoder.notice} />
          ) : (
            <p className="muted small">Embeddings are computed on this machine; nothing leaves it.</p>
          )}
          <div className="kv small">
            <span>Sandbox</span>
            <span data-testid="sandbox-mode">{info.sandbox}</span>
            <span>Workspace</span>
            <span className="mono break">{info.dbPath}</span>
          </div>
        </>
      ) : (
        <Loading inline label="…" />
      )}
    </Section>
  );
}

function EncoderNotice({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const long = text.length > 160;
  return (
    <div className="notice notice-warn small" data-testid="encoder-notice">
      <div className={long && !open ? 'clamp-3' : ''}>
        <strong>Fallback encoder. </strong>
        {text}
      </div>
      {long ? (
        <button type="button" className="link-btn notice-more" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Show less' : 'Show the whole notice'}
        </button>
      ) : null}
    </div>
  );
}

function RepoDetail({ repo }: { repo: RepoSummary }) {
  const unitKinds = Object.entries(repo.units).sort((a, b) => b[1] - a[1]);
  const skippedReasons = Object.entries(repo.skipped).sort((a, b) => b[1] - a[1]);
  const totalUnits = unitCount(repo.units);
  const embeddable = embeddableTexts(repo);
  return (
    <Section title={repo.name} subtitle={<span className="mono">{repo.root}</span>} testId="repo-detail">
      <Stats
        testId="repo-counts"
        items={[
          { label: 'Code files', value: int(repo.files), testId: 'count-files', hint: 'files in a supported language, indexed' },
          {
            label: 'Other files',
            value: repo.otherFiles === null ? '—' : int(repo.otherFiles),
            testId: 'count-other-files',
            hint: 'walked, but in no supported language (not indexed)',
          },
          { label: 'Code units', value: int(totalUnits), testId: 'count-units' },
          { label: 'Context chunks', value: int(repo.chunks), testId: 'count-chunks' },
          { label: 'API entries', value: int(repo.apiEntries), testId: 'count-api' },
          {
            label: 'Embedded texts',
            value: (
              <>
                {int(repo.embedded)}
                <span className="muted small"> / {int(embeddable)}</span>
              </>
            ),
            testId: 'count-embedded',
            hint: TEXT_MEANING,
          },
          { label: 'Encoder', value: <span className="mono small">{repo.encoder ?? '—'}</span>, testId: 'repo-encoder' },
          { label: 'Last indexed', value: <span className="small">{dateTime(repo.lastIndexedAt)}</span> },
        ]}
      />
      <p className="small muted repo-count-line" data-testid="repo-count-line">
        {repositoryFilesText(repo)}; {repositoryEmbeddedText(repo)} ({TEXT_MEANING}).
      </p>
      <p className="small muted" data-testid="repo-test-files">
        {testFilesText(repo.testFiles ?? {})}
      </p>
      <div className="grid-2">
        <div>
          <h3 className="h3">Units by kind</h3>
          {unitKinds.length ? (
            <table className="table table-compact" data-testid="units-by-kind">
              <tbody>
                {unitKinds.map(([k, n]) => (
                  <tr key={k}>
                    <td>{k}</td>
                    <td className="num">{int(n)}</td>
                    <td className="bar-cell">
                      <span className="mini-bar" style={{ width: `${totalUnits ? (100 * n) / totalUnits : 0}%` }} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">No units yet.</p>
          )}
        </div>
        <div>
          <h3 className="h3">Skipped by reason</h3>
          {skippedReasons.length ? (
            <table className="table table-compact" data-testid="skipped-by-reason">
              <tbody>
                {skippedReasons.map(([k, n]) => (
                  <tr key={k} data-reason={k}>
                    <td>{skipReasonText(k)}</td>
                    <td className="num">{int(n)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">Nothing was skipped.</p>
          )}
        </div>
      </div>
      <SkippedFiles repo={repo} />
    </Section>
  );
}

function SkippedFiles({ repo }: { repo: RepoSummary }) {
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; rows: SkippedFile[]; error: CallError | null }>({
    status: 'loading',
    rows: [],
    error: null,
  });
  const [filter, setFilter] = useState('');
  const total = Object.values(repo.skipped).reduce((a, b) => a + b, 0);
  useEffect(() => {
    let live = true;
    setState({ status: 'loading', rows: [], error: null });
    engine()
      .call('repo.skipped', { repoId: repo.id, limit: 10_000 })
      .then((rows) => live && setState({ status: 'ready', rows, error: null }))
      .catch((err) => live && setState({ status: 'error', rows: [], error: asCallError(err) }));
    return () => {
      live = false;
    };
  }, [repo.id, repo.lastIndexedAt, total]);
  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q
      ? state.rows.filter(
          (r) => r.path.toLowerCase().includes(q) || r.reason.toLowerCase().includes(q) || skipReasonText(r.reason, r.detail).toLowerCase().includes(q),
        )
      : state.rows;
  }, [state.rows, filter]);
  return (
    <div className="subsection" data-testid="skipped-files">
      <div className="row between">
        <h3 className="h3">Skipped files</h3>
        <input
          className="input input-small"
          placeholder="Filter by path or reason"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter skipped files"
          data-testid="skipped-filter"
        />
      </div>
      {state.status === 'loading' ? <Loading label="Loading skipped files…" /> : null}
      {state.status === 'error' ? <ErrorBox error={state.error} title="Could not list skipped files" /> : null}
      {state.status === 'ready' && !state.rows.length ? <Empty title="No skipped files" testId="skipped-empty" /> : null}
      {state.status === 'ready' && state.rows.length ? (
        <VirtualList
          items={rows}
          rowHeight={34}
          height={Math.min(360, Math.max(120, rows.length * 34))}
          getKey={(r, i) => `${r.path}-${i}`}
          label="Skipped files"
          testId="skipped-list"
          role="table"
          header={
            <div className="vtable-head skipped-grid">
              <span>Path</span>
              <span>Reason</span>
              <span>Detail</span>
            </div>
          }
          renderRow={(r) => (
            <div className="vtable-row skipped-grid">
              <span className="mono ellipsis" title={r.path}>
                {r.path}
              </span>
              <span className="small ellipsis" title={skipReasonText(r.reason, r.detail)} data-testid="skipped-reason" data-reason={r.reason}>
                {skipReasonText(r.reason, r.detail)}
              </span>
              <span className="muted ellipsis" title={r.detail ?? ''}>
                {skipDetailText(r.reason, r.detail)}
              </span>
            </div>
          )}
        />
      ) : null}
      {state.status === 'ready' && state.rows.length && rows.length === 0 ? <p className="muted">No skipped file matches “{filter}”.</p> : null}
    </div>
  );
}
