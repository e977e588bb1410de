// Find tasks: mine a checked, frozen benchmark from the open repository and its own tests (repo.mine, a job with its
// phases, pause, resume and cancel), then show the mined set (MinedSetPanel.tsx). The options are those of
// `opencoder mine` the analyst most often sets; every other one keeps its default.

import { useState } from 'react';
import type { CallError, JobInfo, RepoSummary } from '../../api/contract.ts';
import { Collapsible, ErrorBox, JobCard, Section, TextField } from '../../components/ui.tsx';
import { asCallError, engine, useApp } from '../../store.ts';
import { EMPTY_MINE_DRAFT, mineOptions, type MineDraft } from './mine-options.ts';
import { MinedSetPanel } from './MinedSetPanel.tsx';
import './FindTasks.css';

/** The newest mining job of this repository: the one started here, else one the jobs list names it in. */
function useMineJob(root: string, started: string | null): JobInfo | null {
  return useApp((s) => s.jobs.find((j) => j.id === started) ?? s.jobs.find((j) => j.kind === 'mine' && j.result?.mined?.folder === root) ?? null);
}

export function FindTasks({ repo }: { repo: RepoSummary }) {
  const refreshJobs = useApp((s) => s.refreshJobs);
  const jobAction = useApp((s) => s.jobAction);
  const [started, setStarted] = useState<{ root: string; jobId: string; out: string } | null>(null);
  const job = useMineJob(repo.root, started?.root === repo.root ? started.jobId : null);
  const [draft, setDraft] = useState<MineDraft>(EMPTY_MINE_DRAFT);
  const [errors, setErrors] = useState<Partial<Record<keyof MineDraft, string>>>({});
  const [error, setError] = useState<CallError | null>(null);
  const [busy, setBusy] = useState(false);
  const running = job?.state === 'running';
  const out = job?.result?.mined?.out ?? (started?.root === repo.root ? started.out : null);

  const start = async () => {
    setError(null);
    const opts = mineOptions(draft);
    setErrors(opts.errors);
    if (!opts.value) return;
    setBusy(true);
    try {
      const r = await engine().call('repo.mine', { path: repo.root, ...opts.value });
      setStarted({ root: repo.root, ...r });
      await refreshJobs();
    } catch (err) {
      setError(asCallError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Section
        title="Find tasks"
        testId="find-tasks"
        subtitle={`A benchmark from ${repo.name}'s own tests: each documented function they call, checked (its code passes them twice, a stub fails them, mutants are run) and frozen in a manifest.`}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy || running} data-testid="find-tasks-start">
            {running ? 'Finding tasks…' : busy ? 'Starting…' : 'Find tasks'}
          </button>
        }
      >
        <MineOptionsForm draft={draft} errors={errors} onChange={setDraft} />
        <ErrorBox error={error} title="Could not start finding tasks" onAllowed={() => void start()} testId="find-tasks-error" />
        {job ? (
          <>
            <JobCard job={job} onAction={(a) => void jobAction(job.id, a)} testId="mine-job" />
            {job.state === 'paused' || job.state === 'cancelled' ? (
              <p className="small muted">Every task decided so far is kept: resume it, or find tasks again, to go on from there.</p>
            ) : null}
          </>
        ) : (
          <p className="small muted find-tasks-note">
            Each function's tests run several times, in the sandbox Settings names: expect a minute or more. Pausing or cancelling keeps every decision made.
          </p>
        )}
      </Section>
      {job && out && job.state !== 'running' && job.state !== 'failed' ? <MinedSetPanel out={out} folder={repo.root} job={job} /> : null}
    </>
  );
}

function MineOptionsForm({
  draft,
  errors,
  onChange,
}: {
  draft: MineDraft;
  errors: Partial<Record<keyof MineDraft, string>>;
  onChange: (d: MineDraft) => void;
}) {
  const set = (key: keyof MineDraft) => (text: string) => onChange({ ...draft, [key]: text });
  const invalid = Object.keys(errors).length > 0;
  return (
    <Collapsible title="Options" defaultOpen={invalid} key={invalid ? 'invalid' : 'valid'} testId="find-tasks-options">
      <div className="find-tasks-options">
        <TextField
          label="Test command"
          hint="unittest or pytest; found from the repository when empty"
          className="input mono"
          value={draft.testCommand}
          onText={set('testCommand')}
          placeholder="python3 -m unittest discover -s tests"
          spellCheck={false}
          data-testid="mine-test-command"
        />
        <TextField
          label="Check at most"
          hint="tasks, picked with the seed; all when empty"
          error={errors.limit}
          className="input input-num"
          inputMode="numeric"
          value={draft.limit}
          onText={set('limit')}
          data-testid="mine-limit"
        />
        <TextField
          label="Docstring words, at least"
          hint="default 3"
          error={errors.minDocWords}
          className="input input-num"
          inputMode="numeric"
          value={draft.minDocWords}
          onText={set('minDocWords')}
          data-testid="mine-min-doc-words"
        />
        <TextField
          label="Seed"
          hint="default 0"
          error={errors.seed}
          className="input input-num"
          inputMode="numeric"
          value={draft.seed}
          onText={set('seed')}
          data-testid="mine-seed"
        />
      </div>
    </Collapsible>
  );
}
