// Small building blocks shared by the views: sections, states (empty / loading / error), badges, progress,
// fields, tabs and switches. Every state is designed, so a view never shows a blank area.

import { useId, useState, type CSSProperties, type InputHTMLAttributes, type ReactNode } from 'react';
import type { CallError, JobInfo, JobProgress } from '../api/contract.ts';
import { duration, usd } from '../lib/format.ts';
import { AllowHere } from './AllowHere.tsx';
import { rovingKeyDown } from './roving.ts';
import './ui.css';

export function Section(props: { title: ReactNode; actions?: ReactNode; children: ReactNode; testId?: string; subtitle?: ReactNode; className?: string }) {
  return (
    <section className={`card ${props.className ?? ''}`} data-testid={props.testId}>
      <header className="card-head">
        <div>
          <h2 className="card-title">{props.title}</h2>
          {props.subtitle ? <p className="card-sub">{props.subtitle}</p> : null}
        </div>
        {props.actions ? <div className="card-actions">{props.actions}</div> : null}
      </header>
      <div className="card-body">{props.children}</div>
    </section>
  );
}

export function Empty(props: { title: string; children?: ReactNode; testId?: string; action?: ReactNode }) {
  return (
    <div className="state state-empty" data-testid={props.testId ?? 'empty-state'}>
      <div className="state-icon" aria-hidden="true">
        ○
      </div>
      <div className="state-title">{props.title}</div>
      {props.children ? <div className="state-text">{props.children}</div> : null}
      {props.action ? <div className="state-action">{props.action}</div> : null}
    </div>
  );
}

export function Loading(props: { label?: string; testId?: string; inline?: boolean }) {
  return (
    <div className={props.inline ? 'loading-inline' : 'state state-loading'} role="status" aria-live="polite" data-testid={props.testId ?? 'loading'}>
      <span className="spinner" aria-hidden="true" />
      <span>{props.label ?? 'Loading…'}</span>
    </div>
  );
}

/**
 * A failed call: code, message and the offending fields; a refused path that may be allowed gets "Allow this folder"
 * in place (then `onAllowed`, typically the same action again).
 */
export function ErrorBox(props: {
  error: CallError | string | null;
  title?: string;
  onRetry?: () => void;
  onAllowed?: (folder: string) => void;
  testId?: string;
}) {
  if (!props.error) return null;
  const e = typeof props.error === 'string' ? { code: 'engine', message: props.error } : props.error;
  // An issue that only repeats the message is not listed again; nor is a refused path's (its message names the field,
  // the path and how to allow it).
  const issues = e.code === 'forbidden-path' ? [] : ('issues' in e && e.issues ? e.issues : []).filter((i) => !e.message.includes(i.message));
  return (
    <div className="state state-error" role="alert" data-testid={props.testId ?? 'error-box'}>
      <div className="state-title">{props.title ?? 'Something went wrong'}</div>
      <div className="state-text">
        <span className="code-tag">{e.code}</span> {e.message}
      </div>
      {issues.length ? (
        <ul className="issue-list">
          {issues.map((i, k) => (
            <li key={k}>
              <code>{i.path}</code>: {i.message}
            </li>
          ))}
        </ul>
      ) : null}
      <AllowHere error={props.error} onAllowed={props.onAllowed} testId={`${props.testId ?? 'error-box'}-allow`} />
      {props.onRetry ? (
        <button type="button" className="btn btn-small" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export type Tone = 'neutral' | 'good' | 'bad' | 'warn' | 'info' | 'muted';

export function Badge(props: { tone?: Tone; children: ReactNode; testId?: string; title?: string }) {
  return (
    <span className={`badge badge-${props.tone ?? 'neutral'}`} data-testid={props.testId} title={props.title}>
      {props.children}
    </span>
  );
}

/**
 * A bar of `done` of `total`. Only running work moves: `indeterminate` (or an unknown total while running) sweeps;
 * paused, stopped and finished work stands still, a finished one full.
 */
export function ProgressBar(props: {
  done: number;
  total: number;
  label?: string;
  testId?: string;
  indeterminate?: boolean;
  state?: 'running' | 'paused' | 'done' | 'stopped';
}) {
  const state = props.state ?? 'running';
  const known = props.total > 0;
  const frac = state === 'done' ? 1 : known ? Math.min(1, Math.max(0, props.done / props.total)) : 0;
  const sweeping = state === 'running' && (props.indeterminate ?? !known);
  return (
    <div
      className={`progress progress-${state} ${sweeping ? 'progress-indeterminate' : ''}`}
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={known ? props.total : undefined}
      aria-valuenow={known ? props.done : undefined}
      aria-valuetext={state === 'done' ? 'done' : state === 'paused' ? 'paused' : undefined}
      aria-label={props.label ?? 'progress'}
      data-testid={props.testId}
      data-state={state}
      data-animated={sweeping ? 'true' : 'false'}
    >
      <div className="progress-fill" style={{ width: sweeping ? undefined : `${(frac * 100).toFixed(1)}%` }} />
    </div>
  );
}

const JOB_TONE: Record<JobInfo['state'], Tone> = { running: 'info', paused: 'warn', done: 'good', cancelled: 'muted', failed: 'bad' };

/** The kinds of job that pause (job.pause): indexing stops after its batch, mining keeps every task it decided. */
const PAUSABLE: ReadonlySet<JobInfo['kind']> = new Set(['index', 'mine']);

const count = (n: number) => n.toLocaleString('en-US');

/** What the phase was doing, for "nothing to …": the last word of `index parse`. */
const phaseVerb = (phase: string) => phase.trim().split(/\s+/).pop() || 'do';

/**
 * A job's count in words, true to its state: `12 / 40`, `12 so far, total not known yet`, `paused at 12 / 40`,
 * `done: 40 / 40`, `done: nothing to embed`, `stopped at 12 / 40`.
 */
export function jobCountText(state: JobInfo['state'], p: JobProgress): string {
  const known = p.total > 0;
  const of = known ? `${count(p.done)} / ${count(p.total)}` : null;
  switch (state) {
    case 'running':
      return of ?? (p.done > 0 ? `${count(p.done)} so far, total not known yet` : 'total not known yet');
    case 'paused':
      return of ? `paused at ${of}` : `paused after ${count(p.done)}`;
    case 'done':
      return of ? `done: ${of}` : p.done > 0 ? `done: ${count(p.done)}` : `done: nothing to ${phaseVerb(p.phase)}`;
    default:
      return of ? `stopped at ${of}` : `stopped after ${count(p.done)}`;
  }
}

/** A job with its progress and the actions its kind allows. */
export function JobCard(props: { job: JobInfo; onAction?: (a: 'cancel' | 'pause' | 'resume') => void; testId?: string; compact?: boolean }) {
  const { job } = props;
  const p = job.progress;
  const active = job.state === 'running' || job.state === 'paused';
  const running = job.state === 'running';
  const barState = running ? 'running' : job.state === 'paused' ? 'paused' : job.state === 'done' ? 'done' : 'stopped';
  // Asked to pause or cancel, finishing its current step: said at once, and not asked again.
  const stopping = job.state === 'running' && job.stopping ? (job.stopping === 'paused' ? 'pausing' : 'cancelling') : null;
  return (
    <div
      className={`job ${props.compact ? 'job-compact' : ''}`}
      data-testid={props.testId ?? 'job-card'}
      data-state={job.state}
      data-stopping={stopping ?? undefined}
      data-job-id={job.id}
    >
      <div className="job-head">
        <span className="job-title" title={job.title}>
          {job.title}
        </span>
        <Badge tone={stopping ? 'warn' : JOB_TONE[job.state]} testId="job-state">
          {stopping ? `${stopping}…` : job.state}
        </Badge>
      </div>
      {p ? (
        <>
          <ProgressBar done={p.done} total={p.total} label={`${job.title}: ${p.phase}`} testId="job-progress" state={barState} />
          <div className="job-meta tabular">
            <span data-testid="job-phase">{p.phase}</span>
            <span data-testid="job-count">{jobCountText(job.state, p)}</span>
            {p.etaMs != null && running ? <span>ETA {duration(p.etaMs)}</span> : null}
            {p.spentUsd != null ? <span>spent {usd(p.spentUsd)}</span> : null}
          </div>
          {p.message ? (
            <div className="job-message" title={p.message}>
              {p.message}
            </div>
          ) : null}
          {p.workers ? <JobWorkers workers={p.workers} queued={p.queued} active={active} /> : null}
        </>
      ) : (
        <>
          <ProgressBar done={0} total={0} label={job.title} testId="job-progress" state={barState} />
          <div className="job-meta">
            <span data-testid="job-count">
              {running ? 'starting…' : job.state === 'paused' ? 'paused before it started' : job.state === 'done' ? 'done' : 'stopped before it started'}
            </span>
          </div>
        </>
      )}
      {job.error ? <div className="job-error">{job.error}</div> : null}
      {props.onAction && active ? (
        <div className="job-actions">
          {PAUSABLE.has(job.kind) && job.state === 'running' ? (
            <button type="button" className="btn btn-small" onClick={() => props.onAction!('pause')} disabled={!!stopping} data-testid="job-pause">
              Pause
            </button>
          ) : null}
          {job.state === 'paused' ? (
            <button type="button" className="btn btn-small" onClick={() => props.onAction!('resume')} data-testid="job-resume">
              Resume
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-small btn-danger-quiet"
            onClick={() => props.onAction!('cancel')}
            disabled={job.stopping === 'cancelled' && job.state === 'running'}
            data-testid="job-cancel"
          >
            Cancel
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** A queued run's workers: the jobs waiting, and per worker the jobs it runs now and has finished for this run. */
function JobWorkers(props: { workers: NonNullable<JobProgress['workers']>; queued: number | undefined; active: boolean }) {
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    <div className="job-workers tabular" data-testid="job-workers">
      {props.queued !== undefined ? <div className="job-queued">queue: {n(props.queued)} waiting</div> : null}
      {props.workers.length === 0 ? (
        <div className="job-workers-none">
          {props.active ? (
            <>
              no worker has taken a job yet — start one with: <code>opencoder worker --queue URL</code>
            </>
          ) : (
            'no worker took a job'
          )}
        </div>
      ) : (
        <ul className="job-worker-list">
          {props.workers.map((w) => (
            <li key={w.name} className="job-worker" data-testid="job-worker">
              <span className="job-worker-name mono" title={w.name}>
                {w.name}
              </span>{' '}
              — {n(w.active)} running, {n(w.done)} done
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Field(props: {
  label: ReactNode;
  error?: string | null;
  hint?: ReactNode;
  children: (id: string, describedBy: string | undefined) => ReactNode;
  testId?: string;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? errId : null, props.hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${props.error ? 'field-invalid' : ''}`} data-testid={props.testId}>
      <label className="field-label" htmlFor={id}>
        {props.label}
      </label>
      {props.children(id, describedBy)}
      {props.hint ? (
        <div className="field-hint" id={hintId}>
          {props.hint}
        </div>
      ) : null}
      {props.error ? (
        <div className="field-error" id={errId} role="alert" data-testid="field-error">
          {props.error}
        </div>
      ) : null}
    </div>
  );
}

/** A view's heading: its name and a line on what it is for. */
export function ViewHead({ title, sub }: { title: string; sub: string }) {
  return (
    <header className="view-head">
      <div>
        <h1>{title}</h1>
        <p className="view-sub">{sub}</p>
      </div>
    </header>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'aria-describedby'>;

/** A Field holding one text input: `onText` gets what is typed; the other props go to the input as they are. */
export function TextField({
  label,
  error,
  hint,
  onText,
  ...input
}: { label: ReactNode; error?: string | null; hint?: ReactNode; onText: (text: string) => void } & InputProps) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(id, d) => <input id={id} aria-describedby={d} {...input} onChange={(e) => onText(e.target.value)} />}
    </Field>
  );
}

/** A Field holding one select of `options` (value, then the text shown). */
export function SelectField<V extends string>(props: {
  label: ReactNode;
  hint?: ReactNode;
  value: V;
  options: readonly (readonly [V, string])[];
  onPick: (value: V) => void;
  testId: string;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id, d) => (
        <select
          id={id}
          aria-describedby={d}
          className="input"
          value={props.value}
          onChange={(e) => props.onPick(e.target.value as V)}
          data-testid={props.testId}
        >
          {props.options.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export interface TabItem<T extends string> {
  id: T;
  label: ReactNode;
  testId?: string;
  disabled?: boolean;
}

/** A WAI-ARIA tab list: one tab stop, arrows move, Enter / Space select. */
export function Tabs<T extends string>(props: {
  items: TabItem<T>[];
  value: T;
  onChange: (id: T) => void;
  label: string;
  testId?: string;
  idBase?: string;
  small?: boolean;
}) {
  const base = props.idBase ?? 'tabs';
  return (
    <div
      role="tablist"
      aria-label={props.label}
      className={`tabs ${props.small ? 'tabs-small' : ''}`}
      data-testid={props.testId}
      onKeyDown={(e) => rovingKeyDown(e, 'horizontal')}
    >
      {props.items.map((t) => {
        const selected = t.id === props.value;
        return (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={selected}
            aria-controls={`${base}-panel`}
            tabIndex={selected ? 0 : -1}
            data-roving
            disabled={t.disabled}
            className={`tab ${selected ? 'tab-selected' : ''}`}
            onClick={() => props.onChange(t.id)}
            data-testid={t.testId}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}

export function TabPanel(props: { idBase?: string; active: string; children: ReactNode; testId?: string }) {
  const base = props.idBase ?? 'tabs';
  return (
    <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${props.active}`} className="tab-panel" data-testid={props.testId}>
      {props.children}
    </div>
  );
}

export function Switch(props: {
  checked: boolean;
  onChange: (v: boolean) => void;
  label: ReactNode;
  testId?: string;
  color?: string;
  disabled?: boolean;
  description?: ReactNode;
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={props.checked}
      className={`switch ${props.checked ? 'switch-on' : ''}`}
      onClick={() => props.onChange(!props.checked)}
      data-testid={props.testId}
      disabled={props.disabled}
      style={props.color ? ({ '--switch-color': props.color } as CSSProperties) : undefined}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      <span className="switch-text">
        <span className="switch-label">{props.label}</span>
        {props.description ? <span className="switch-desc">{props.description}</span> : null}
      </span>
    </button>
  );
}

/** A checkbox chip group (method selection). */
export function ChipGroup(props: {
  options: { id: string; label: string; title?: string }[];
  value: string[];
  onChange: (ids: string[]) => void;
  label: string;
  testId?: string;
}) {
  return (
    <div role="group" aria-label={props.label} className="chips" data-testid={props.testId}>
      {props.options.map((o) => {
        const on = props.value.includes(o.id);
        return (
          <label key={o.id} className={`chip ${on ? 'chip-on' : ''}`} title={o.title} data-testid={`method-${o.id}`}>
            <input type="checkbox" checked={on} onChange={() => props.onChange(on ? props.value.filter((x) => x !== o.id) : [...props.value, o.id])} />
            <span>{o.label}</span>
          </label>
        );
      })}
    </div>
  );
}

export function Collapsible(props: { title: ReactNode; children: ReactNode; defaultOpen?: boolean; testId?: string }) {
  const [open, setOpen] = useState(!!props.defaultOpen);
  const id = useId();
  return (
    <div className={`collapsible ${open ? 'open' : ''}`} data-testid={props.testId}>
      <button
        type="button"
        className="collapsible-toggle"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        data-testid={props.testId ? `${props.testId}-toggle` : undefined}
      >
        <span className="chev" aria-hidden="true">
          ▸
        </span>
        {props.title}
      </button>
      {open ? (
        <div id={id} className="collapsible-body">
          {props.children}
        </div>
      ) : null}
    </div>
  );
}

/** Label + value pairs in a compact grid. */
/** A text value with a word too long for a grid cell (a subset's name, a path) takes a whole row of the grid. */
const longWord = (v: ReactNode) => typeof v === 'string' && v.split(/\s+/).some((w) => w.length > 12);

/** Figures in a grid; a value never breaks inside a word (see longWord). */
export function Stats(props: { items: { label: ReactNode; value: ReactNode; testId?: string; hint?: string }[]; testId?: string; className?: string }) {
  return (
    <dl className={props.className ? `stats ${props.className}` : 'stats'} data-testid={props.testId}>
      {props.items.map((it, i) => (
        <div key={i} className={longWord(it.value) ? 'stat stat-wide' : 'stat'} data-testid={it.testId} title={it.hint}>
          <dt>{it.label}</dt>
          <dd className="tabular">{it.value}</dd>
        </div>
      ))}
    </dl>
  );
}
