// The API set of one task under each scoring protocol (docs/api-retrieval.md): the predicted set next to the
// truth, as hits (predicted and true), extras (predicted, not true) and misses (true, not predicted), each with
// why it was selected or dropped, its uncertainty u and, when the selector ran, its probability p. Results
// stored before the two protocols have neither per-API rows nor a task-view score, and say so.

import type { TaskResult } from '../../api/contract.ts';
import { Badge, Empty } from '../../components/ui.tsx';
import { isNum, num } from '../../lib/format.ts';
import './ApiSet.css';

type ApiScore = NonNullable<TaskResult['retrieval']['api']>;
type ProtocolScore = NonNullable<ApiScore['taskView']>;
type ApiItem = ProtocolScore['items'][number];
type Protocol = 'repository' | 'task-view';

const PROTOCOL: Record<Protocol, { title: string; matching: string; pool: string; emptyTruth: string }> = {
  repository: {
    title: 'Repository protocol',
    matching: 'strict module:qualname keys',
    pool: 'discovery in the whole repository; the run’s own retrieval (kept evidence)',
    emptyTruth: 'The truth is empty: the repository protocol leaves this task out of the condition’s figures.',
  },
  'task-view': {
    title: 'Task-view protocol',
    matching: 'bare names, case-insensitive',
    pool: 'the task’s own view is the API pool (RQ4)',
    emptyTruth: 'The truth is empty: an empty prediction scores 1, every predicted API is an extra.',
  },
};

const GROUPS: { status: ApiItem['status']; title: string; tone: 'good' | 'bad' | 'warn'; none: string }[] = [
  { status: 'hit', title: 'Hits — predicted and in the truth', tone: 'good', none: 'No predicted API is in the truth.' },
  { status: 'miss', title: 'Misses — in the truth, not predicted', tone: 'bad', none: 'Every API of the truth was predicted.' },
  { status: 'extra', title: 'Extras — predicted, not in the truth', tone: 'warn', none: 'Nothing predicted beyond the truth.' },
];

/** A protocol's score of one task: the repository one is the top level of `api`, the task-view one beside it. */
export function protocolScore(api: ApiScore | null, protocol: Protocol): ProtocolScore | null {
  if (!api) return null;
  return protocol === 'repository' ? api : (api.taskView ?? null);
}

/** The API F1 a task's summary shows for a protocol (null: not scored there, e.g. an empty truth under the repository protocol). */
export function protocolF1(api: ApiScore | null, protocol: Protocol): number | null {
  const s = protocolScore(api, protocol);
  if (!s) return null;
  if (protocol === 'repository' && s.truth === 0) return null;
  return s.f1;
}

export function ApiSet({ result }: { result: TaskResult }) {
  const api = result.retrieval.api;
  if (!api) {
    return (
      <Empty title="No API score for this result" testId="api-set-empty">
        The task has no reference or stated API truth, or API evidence was off for this condition.
      </Empty>
    );
  }
  const fused = { k: result.retrieval.fused, api: result.retrieval.fusedBySource.api };
  return (
    <div className="api-set" data-testid="api-set">
      <ProtocolPanel protocol="repository" score={api} fused={fused} />
      <ProtocolPanel protocol="task-view" score={api.taskView ?? null} fused={fused} />
    </div>
  );
}

/** The fused top K of the result and how many of its items are API items: what the predicted set is not limited to. */
interface FusedCount {
  k: number;
  api: number;
}

/** What a protocol's predicted set is, against the fused top K, so the two counts are not read as one. */
function predictedScope(protocol: Protocol, predicted: number, fused: FusedCount): string {
  if (protocol === 'task-view') return 'predicted from the task’s own view, not from the fused evidence';
  const apiInTop = `${fused.api} of the fused top ${fused.k} ${fused.api === 1 ? 'is an API item' : 'are API items'}`;
  return `${predicted === 1 ? 'the API item' : 'the API items'} retrieval kept, at any rank; ${apiInTop}`;
}

function ProtocolPanel({ protocol, score, fused }: { protocol: Protocol; score: ProtocolScore | null; fused: FusedCount }) {
  const meta = PROTOCOL[protocol];
  const head = (
    <div className="api-set-head">
      <strong>{meta.title}</strong>
      <span className="small muted">
        {meta.pool} · matching: {meta.matching}
      </span>
    </div>
  );
  if (!score) {
    return (
      <section className="api-set-protocol" data-testid={`api-items-${protocol}`} data-protocol={protocol} data-scored="false">
        {head}
        <p className="small muted" data-testid="api-set-none">
          No task-view score: this result was stored before the task-view protocol, or the run did not score it.
        </p>
      </section>
    );
  }
  const items: ApiItem[] = Array.isArray(score.items) ? score.items : [];
  return (
    <section
      className="api-set-protocol"
      data-testid={`api-items-${protocol}`}
      data-protocol={protocol}
      data-scored="true"
      data-matching={score.matching ?? (protocol === 'repository' ? 'strict' : 'bare')}
    >
      {head}
      <ScoreLine score={score} items={items} scope={predictedScope(protocol, score.predicted, fused)} />
      {score.truth === 0 ? (
        <p className="small muted" data-testid="api-set-empty-truth">
          {meta.emptyTruth}
        </p>
      ) : null}
      {!items.length && (score.predicted > 0 || score.truth > 0) ? (
        <p className="small muted" data-testid="api-set-no-items">
          This result was stored before per-API rows were kept: only the figures above are known.
        </p>
      ) : (
        <div className="api-set-grid">
          {GROUPS.map((g) => (
            <ApiGroup key={g.status} group={g} rows={items.filter((i) => i.status === g.status)} />
          ))}
        </div>
      )}
    </section>
  );
}

/** The protocol's figures: predicted (and what it is taken from), truth (and where it came from), P, R, F1, exact, count, hits. */
function ScoreLine({ score, items, scope }: { score: ProtocolScore; items: ApiItem[]; scope: string }) {
  const hits = items.filter((i) => i.status === 'hit').length;
  return (
    <div className="api-set-score small tabular" data-testid="api-set-score">
      <span>
        predicted <strong>{score.predicted}</strong>
        <span className="muted" data-testid="api-set-predicted-scope">
          {' '}
          ({scope})
        </span>
      </span>
      <span>
        truth <strong>{score.truth}</strong>
        {score.truthFrom ? (
          <span className="muted"> (from the {score.truthFrom === 'manifest' ? 'manifest’s ground_truth_apis' : 'reference’s calls'})</span>
        ) : null}
      </span>
      <span>P {num(score.precision)}</span>
      <span>R {num(score.recall)}</span>
      <span>F1 {num(score.f1)}</span>
      <span>{score.exact ? 'exact set' : 'not the exact set'}</span>
      <span>count {score.count}</span>
      {items.length ? (
        <span className="muted">
          {hits} hit(s) of {score.truth}
        </span>
      ) : null}
    </div>
  );
}

/** One column (hits, misses or extras): each API with its reason and its u and p when known. */
function ApiGroup({ group: g, rows }: { group: (typeof GROUPS)[number]; rows: ApiItem[] }) {
  return (
    <div className={`api-set-col api-set-col-${g.status}`} data-testid={`api-group-${g.status}`}>
      <div className="api-set-col-head">
        <Badge tone={g.tone}>{rows.length}</Badge> <span className="small">{g.title}</span>
      </div>
      {rows.length ? (
        <ul className="scroll-list api-set-list">
          {rows.map((i, n) => (
            <li key={`${i.key}-${n}`} className="api-set-item" data-testid={`api-item-${i.status}`} data-key={i.key} data-status={i.status}>
              <div className="mono small api-set-key" title={i.title && i.title !== i.key ? i.title : undefined}>
                {i.key}
              </div>
              {i.title && i.title !== i.key ? <div className="small muted">{i.title}</div> : null}
              <div className="api-set-reason small" data-testid="api-item-reason">
                {i.reason}
              </div>
              {isNum(i.u) || isNum(i.p) ? (
                <div className="small muted tabular" data-testid="api-item-signals">
                  {isNum(i.u) ? `u ${num(i.u, 2)}` : null}
                  {isNum(i.u) && isNum(i.p) ? ' · ' : null}
                  {isNum(i.p) ? `p ${num(i.p, 2)}` : null}
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="small muted api-set-col-none">{g.none}</p>
      )}
    </div>
  );
}
