// The evidence-fusion view: every retrieved item of each source (API / context / similar code) with r, w, u and
// γ = r·w·max(0, 1 − α·u), whether it was kept and why not, and how the kept ones flow into the fused top K.
// Pointing at an item highlights its fused rank (and the reverse); items that are the same underlying unit
// found by another source or step are marked as well.

import { Fragment, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { SOURCES, type EvidenceRow, type Source, type TaskDetail } from '../../api/contract.ts';
import { rovingKeyDown } from '../../components/roving.ts';
import { Badge, Empty, Tabs } from '../../components/ui.tsx';
import { num } from '../../lib/format.ts';
import { evidenceStage, SOURCE_META, STAGE_LABEL, type EvidenceStage } from '../../lib/sources.ts';
import { shortName } from './short-name.ts';
import './EvidenceFusion.css';

export const evidenceId = (e: EvidenceRow) => `${e.source}:${e.step}:${e.rank}:${e.key}`;

/** Text with a line-break chance after each dot, ellipsis and underscore, so a long name wraps between its words. */
function breakable(text: string) {
  return text.split(/(?<=[.…_])/).map((piece, i) => (
    <Fragment key={i}>
      {piece}
      <wbr />
    </Fragment>
  ));
}

/** An item's name, shortened in the middle (short-name.ts) with its last segment whole; the full name in the tooltip. */
function Title({ title }: { title: string }) {
  const { lead, last, shortened } = shortName(title);
  return (
    <span className="ev-title" title={title} data-testid="evidence-name" data-shortened={shortened ? 'true' : undefined}>
      {lead ? <span className="ev-title-ns">{breakable(lead)}</span> : null}
      <span className="ev-title-last">{breakable(last)}</span>
    </span>
  );
}

type Show = 'all' | 'kept' | 'fused';

const STAGE_TONE: Record<EvidenceStage, 'good' | 'warn' | 'muted' | 'bad' | 'info'> = {
  fused: 'good',
  cut: 'warn',
  duplicate: 'muted',
  'below-keep': 'bad',
  refined: 'info',
  leak: 'bad',
  other: 'muted',
};

export interface EvidenceFusionProps {
  detail: Pick<TaskDetail, 'evidence' | 'steps'>;
  /** ū per source (from the result's retrieval summary), shown in the column heads. */
  sourceUncertainty?: Record<Source, number | null>;
  /** Sources the condition had switched on (off ones are shown as off, not as empty). */
  sourcesOn?: Record<Source, boolean>;
  /** The leakage audit of this retrieval (absent: results stored before it, or the policy off). */
  leak?: { policy: 'drop' | 'flag'; checked: number; suspects: number };
}

/** One line on the leakage audit: what it checked and what it found, or that it did not run. */
function LeakLine({ leak }: { leak: EvidenceFusionProps['leak'] }) {
  if (!leak)
    return (
      <p className="small muted" data-testid="leak-audit" data-suspects="">
        Leak audit: not run for this result (stored before the audit existed, or the policy was off).
      </p>
    );
  return (
    <p className={`small ${leak.suspects ? 'warn' : 'muted'}`} data-testid="leak-audit" data-suspects={leak.suspects}>
      Leak audit ({leak.policy}): {leak.suspects} leak suspect{leak.suspects === 1 ? '' : 's'} among {leak.checked} items checked against the reference and the
      task&apos;s tests{leak.suspects ? (leak.policy === 'drop' ? ' — dropped before the prompt (marked below).' : ' — flagged, left in the prompt.') : '.'}
    </p>
  );
}

export function EvidenceFusion({ detail, sourceUncertainty, sourcesOn, leak }: EvidenceFusionProps) {
  const [show, setShow] = useState<Show>('all');
  const pointer = useEvidencePointer(detail.evidence);

  const fused = useMemo(() => detail.evidence.filter((e) => e.fusedRank !== null).sort((a, b) => a.fusedRank! - b.fusedRank!), [detail.evidence]);
  const bySource = useMemo(() => {
    const m = new Map<Source, EvidenceRow[]>(SOURCES.map((s) => [s, []]));
    for (const e of detail.evidence) m.get(e.source)?.push(e);
    for (const list of m.values()) list.sort((a, b) => a.step - b.step || b.gamma - a.gamma || a.rank - b.rank);
    return m;
  }, [detail.evidence]);

  if (!detail.evidence.length) {
    return (
      <Empty title="No evidence was retrieved" testId="evidence-empty">
        This condition retrieved nothing (all sources off, or an empty index).
      </Empty>
    );
  }

  const { pinnedRow } = pointer;
  return (
    <div className="fusion" data-testid="evidence-fusion">
      <FlowSummary evidence={detail.evidence} fusedCount={fused.length} sourcesOn={sourcesOn} />
      <LeakLine leak={leak} />
      <div className="row between fusion-toolbar">
        <Tabs<Show>
          label="Which evidence to show"
          value={show}
          onChange={setShow}
          small
          idBase="ev-show"
          testId="evidence-filter"
          items={[
            { id: 'all', label: `All retrieved (${detail.evidence.length})`, testId: 'evidence-filter-all' },
            { id: 'kept', label: 'Kept', testId: 'evidence-filter-kept' },
            { id: 'fused', label: 'Fused only', testId: 'evidence-filter-fused' },
          ]}
        />
        <span className="muted small">γ = r · w · max(0, 1 − α·u) · point at an item to see where it went; click to pin its details.</span>
      </div>
      <div className="fusion-grid">
        {SOURCES.map((s) => (
          <SourceColumn
            key={s}
            source={s}
            all={bySource.get(s) ?? []}
            show={show}
            steps={detail.steps}
            uncertainty={sourceUncertainty?.[s]}
            off={sourcesOn ? !sourcesOn[s] : false}
            pointer={pointer}
          />
        ))}
        <FusedColumn fused={fused} pointer={pointer} />
      </div>
      {pinnedRow ? <EvidenceDetail row={pinnedRow} step={detail.steps[pinnedRow.step]} onClose={() => pointer.setPinned(null)} /> : null}
    </div>
  );
}

/** The item pointed at (hover or focus) or pinned (click), and the elements to scroll a counterpart into view. */
interface EvidencePointer {
  pinned: string | null;
  setPinned(id: string | null): void;
  /** The pointed-at item, else the pinned one. */
  focus: EvidenceRow | null;
  pinnedRow: EvidenceRow | null;
  /** Points at `id` and scrolls `counterpart` (its place in the other list) into view. */
  point(id: string | null, counterpart?: string | null): void;
  leave(): void;
  register(id: string): (el: HTMLElement | null) => void;
}

function useEvidencePointer(evidence: EvidenceRow[]): EvidencePointer {
  const [active, setActive] = useState<string | null>(null);
  const [pinned, setPinned] = useState<string | null>(null);
  const refs = useRef(new Map<string, HTMLElement>());
  const byId = useMemo(() => new Map(evidence.map((e) => [evidenceId(e), e])), [evidence]);

  const focusId = active ?? pinned;
  const reveal = (id: string) => refs.current.get(id)?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  return {
    pinned,
    setPinned,
    focus: focusId ? (byId.get(focusId) ?? null) : null,
    pinnedRow: pinned ? (byId.get(pinned) ?? null) : null,
    point: (id, counterpart) => {
      setActive(id);
      if (counterpart) reveal(counterpart);
    },
    leave: () => setActive(null),
    register: (id) => (el) => {
      if (el) refs.current.set(id, el);
      else refs.current.delete(id);
    },
  };
}

/** 'ev-active' for the focused item itself, 'ev-same' for the same unit found by another source or step. */
function focusClass(focus: EvidenceRow | null, e: EvidenceRow): string {
  if (focus && evidenceId(e) === evidenceId(focus)) return 'ev-active';
  if (focus && e.key === focus.key) return 'ev-same';
  return '';
}

/** The handlers every item button shares: pointing, leaving, and pinning on click. */
function pointerHandlers(pointer: EvidencePointer, id: string, counterpart: string | null) {
  return {
    onMouseEnter: () => pointer.point(id, counterpart),
    onMouseLeave: () => pointer.leave(),
    onFocus: () => pointer.point(id, counterpart),
    onBlur: () => pointer.leave(),
    onClick: () => pointer.setPinned(pointer.pinned === id ? null : id),
  };
}

interface SourceColumnProps {
  source: Source;
  /** Every item of this source, in step then γ order. */
  all: EvidenceRow[];
  show: Show;
  steps: TaskDetail['steps'];
  uncertainty: number | null | undefined;
  off: boolean;
  pointer: EvidencePointer;
}

function SourceColumn({ source: s, all, show, steps, uncertainty, off, pointer }: SourceColumnProps) {
  const rows = all.filter((e) => (show === 'all' ? true : show === 'fused' ? e.fusedRank !== null : e.kept || e.fusedRank !== null));
  const meta = SOURCE_META[s];
  let lastStep = -1;
  return (
    <div className="fusion-col" data-testid={`evidence-column-${s}`} data-source={s} style={{ '--src': meta.color, '--src-soft': meta.soft } as CSSProperties}>
      <div className="fusion-col-head">
        <span className="src-dot" aria-hidden="true" />
        <span className="fusion-col-title">{meta.label}</span>
        <span
          className="muted small tabular"
          data-testid="evidence-column-counts"
          title={`retrieved: every item found; kept: those retrieval kept${s === 'api' ? ' (the API set tab scores these)' : ''}; fused: those in the fused top K the prompt showed`}
        >
          {all.length} retrieved · {all.filter((e) => e.kept).length} kept · {all.filter((e) => e.fusedRank !== null).length} fused
          {uncertainty != null ? ` · ū ${num(uncertainty, 2)}` : ''}
        </span>
      </div>
      {off ? (
        <div className="fusion-off">Switched off for this condition</div>
      ) : !rows.length ? (
        <div className="fusion-off">{all.length ? 'Nothing of this source matches the filter' : 'Nothing retrieved'}</div>
      ) : (
        <ul className="scroll-list fusion-list" role="list" aria-label={`${meta.label} evidence`} onKeyDown={(e) => rovingKeyDown(e, 'vertical')}>
          {rows.map((e, i) => {
            const stepHead = e.step !== lastStep;
            lastStep = e.step;
            return <EvidenceItem key={evidenceId(e)} row={e} first={i === 0} stepHead={stepHead} step={steps[e.step]} pointer={pointer} />;
          })}
        </ul>
      )}
    </div>
  );
}

interface EvidenceItemProps {
  row: EvidenceRow;
  /** The first of its list (the roving tab stop). */
  first: boolean;
  /** The first item of its step: show the step's head above it. */
  stepHead: boolean;
  step: TaskDetail['steps'][number] | undefined;
  pointer: EvidencePointer;
}

function EvidenceItem({ row: e, first, stepHead, step, pointer }: EvidenceItemProps) {
  const id = evidenceId(e);
  const stage = evidenceStage(e);
  const meta = SOURCE_META[e.source];
  const fusedTarget = e.fusedRank !== null ? `fused:${e.fusedRank}` : null;
  return (
    <li>
      {stepHead ? (
        <div className="fusion-step" title={step?.text}>
          Step {e.step + 1}
          {step ? <span className="muted"> · w {num(step.weights[e.source], 2)}</span> : null}
        </div>
      ) : null}
      <button
        type="button"
        ref={pointer.register(id)}
        className={`ev ev-${stage} ${focusClass(pointer.focus, e)} ${pointer.pinned === id ? 'ev-pinned' : ''}`}
        data-roving
        tabIndex={first ? 0 : -1}
        data-testid="evidence-item"
        data-source={e.source}
        data-kept={e.kept ? 'true' : 'false'}
        data-stage={stage}
        data-fused-rank={e.fusedRank ?? ''}
        aria-pressed={pointer.pinned === id}
        aria-label={`${meta.short} step ${e.step + 1} rank ${e.rank + 1}: ${e.title}; γ ${num(e.gamma)}; ${e.fusedRank !== null ? `fused rank ${e.fusedRank + 1}` : e.reason}`}
        {...pointerHandlers(pointer, id, fusedTarget)}
      >
        <span className="ev-top">
          <span className="ev-rank tabular" title="rank within its step's list">
            {e.rank + 1}
          </span>
          <Title title={e.title} />
          {e.fusedRank !== null ? (
            <span className="ev-fused-pill tabular" data-testid="evidence-fused-rank" title={`fused rank ${e.fusedRank + 1}`}>
              → {e.fusedRank + 1}
            </span>
          ) : null}
        </span>
        <span className="ev-file mono" title={`${e.file}:${e.startLine}-${e.endLine}`}>
          {e.file}:{e.startLine}–{e.endLine}
        </span>
        <span className="ev-nums tabular">
          <span title="relevance (embedding cosine)">r {num(e.r, 2)}</span>
          <span title="source-intent weight of the step">w {num(e.w, 2)}</span>
          <span title="uncertainty">u {num(e.u, 2)}</span>
          <span className="ev-gamma" title="fusion score γ">
            γ {num(e.gamma, 3)}
          </span>
        </span>
        <span className={`ev-reason ev-reason-${stage}`} data-testid="evidence-reason">
          {e.reason}
        </span>
      </button>
    </li>
  );
}

function FusedColumn({ fused, pointer }: { fused: EvidenceRow[]; pointer: EvidencePointer }) {
  return (
    <div className="fusion-col fusion-col-fused" data-testid="fused-list">
      <div className="fusion-col-head">
        <span className="fusion-col-title">Fused top {fused.length}</span>
        <span className="muted small">in prompt order</span>
      </div>
      {fused.length ? (
        <ol className="scroll-list fusion-list" aria-label="Fused evidence" onKeyDown={(e: KeyboardEvent<HTMLOListElement>) => rovingKeyDown(e, 'vertical')}>
          {fused.map((e, i) => {
            const id = evidenceId(e);
            const meta = SOURCE_META[e.source];
            const fid = `fused:${e.fusedRank}`;
            return (
              <li key={fid}>
                <button
                  type="button"
                  ref={pointer.register(fid)}
                  className={`fz ${focusClass(pointer.focus, e)}`}
                  style={{ '--src': meta.color, '--src-soft': meta.soft } as CSSProperties}
                  data-roving
                  tabIndex={i === 0 ? 0 : -1}
                  data-testid="fused-item"
                  data-source={e.source}
                  data-fused-rank={e.fusedRank!}
                  aria-label={`fused rank ${e.fusedRank! + 1}: ${e.title} from ${meta.short}, step ${e.step + 1}`}
                  {...pointerHandlers(pointer, id, id)}
                >
                  <span className="fz-rank tabular">{e.fusedRank! + 1}</span>
                  <span className="fz-main">
                    <Title title={e.title} />
                    <span className="fz-from small">
                      <span className="src-tag">{meta.short}</span> step {e.step + 1} · #{e.rank + 1} · γ <span className="tabular">{num(e.gamma, 3)}</span>
                    </span>
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      ) : (
        <div className="fusion-off">Nothing made it into the prompt</div>
      )}
    </div>
  );
}

function FlowSummary({ evidence, fusedCount, sourcesOn }: { evidence: EvidenceRow[]; fusedCount: number; sourcesOn?: Record<Source, boolean> }) {
  const stages: EvidenceStage[] = ['fused', 'cut', 'duplicate', 'below-keep', 'refined', 'leak', 'other'];
  return (
    <div className="flow" data-testid="evidence-flow">
      {SOURCES.map((s) => {
        const rows = evidence.filter((e) => e.source === s);
        const counts = Object.fromEntries(stages.map((st) => [st, rows.filter((e) => evidenceStage(e) === st).length])) as Record<EvidenceStage, number>;
        const meta = SOURCE_META[s];
        const off = sourcesOn ? !sourcesOn[s] : false;
        return (
          <div key={s} className="flow-row" data-testid={`flow-${s}`}>
            <span className="flow-label" style={{ color: meta.color }}>
              {meta.short}
            </span>
            <div className="flow-bar" aria-hidden="true">
              {off || !rows.length
                ? null
                : stages.map((st) =>
                    counts[st] ? (
                      <span
                        key={st}
                        className={`flow-seg flow-${st}`}
                        style={{ flexGrow: counts[st], ...(st === 'fused' ? { background: meta.color } : {}) }}
                        title={`${STAGE_LABEL[st]}: ${counts[st]}`}
                      />
                    ) : null,
                  )}
            </div>
            <span className="flow-text small tabular">
              {off ? 'off' : `${rows.length} retrieved → ${counts.fused} fused`}
              {!off && rows.length ? (
                <span className="muted">
                  {' '}
                  (
                  {stages
                    .filter((st) => st !== 'fused' && counts[st])
                    .map((st) => `${counts[st]} ${STAGE_LABEL[st]}`)
                    .join(', ') || 'none dropped'}
                  )
                </span>
              ) : null}
            </span>
          </div>
        );
      })}
      <div className="flow-total small muted tabular">{fusedCount} items fused into the prompt</div>
    </div>
  );
}

function EvidenceDetail({ row, step, onClose }: { row: EvidenceRow; step: TaskDetail['steps'][number] | undefined; onClose: () => void }) {
  const meta = SOURCE_META[row.source];
  const stage = evidenceStage(row);
  return (
    <div className="ev-detail" data-testid="evidence-detail" style={{ '--src': meta.color } as CSSProperties}>
      <div className="row between">
        <div>
          <span className="src-tag">{meta.short}</span> <strong>{row.title}</strong>{' '}
          <span className="mono muted small">
            {row.file}:{row.startLine}–{row.endLine}
          </span>
        </div>
        <button type="button" className="btn btn-small btn-quiet" onClick={onClose}>
          Close
        </button>
      </div>
      <div className="ev-detail-grid">
        <div>
          <div className="kv tabular">
            <span>step</span>
            <span>
              {row.step + 1}
              {step ? <span className="muted"> — {step.text}</span> : null}
            </span>
            <span>rank in step</span>
            <span>{row.rank + 1}</span>
            <span>r · w · u</span>
            <span>
              {num(row.r)} · {num(row.w)} · {num(row.u)}
            </span>
            <span>γ</span>
            <span>{num(row.gamma, 4)}</span>
            <span>outcome</span>
            <span>
              <Badge tone={STAGE_TONE[stage]}>{STAGE_LABEL[stage]}</Badge> {row.reason}
            </span>
            {step ? (
              <>
                <span>query</span>
                <span className="small">{step.queries[row.source]}</span>
              </>
            ) : null}
          </div>
        </div>
        <div>
          <div className="h4">Uncertainty signals (higher = less trustworthy)</div>
          {row.signals.length ? (
            <ul className="signals" data-testid="evidence-signals">
              {row.signals.map((sg) => (
                <li key={sg.name}>
                  <span className="sig-name">{sg.name}</span>
                  <span className="hbar" aria-hidden="true">
                    <span className="hbar-fill" style={{ width: `${Math.max(0, Math.min(1, sg.value)) * 100}%`, background: meta.color }} />
                  </span>
                  <span className="tabular sig-val">{num(sg.value, 2)}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">No signals recorded.</p>
          )}
        </div>
      </div>
      {row.text ? <pre className="code code-small">{row.text}</pre> : <p className="muted small">The text of this item is kept only for interactive runs.</p>}
    </div>
  );
}
