// One task's results: a summary strip, then tabs for the decomposition, the evidence fusion, the uncertainty
// trace, the prompt, the candidates and the repairs. Several conditions → a condition switcher on top.

import { useEffect, useState } from 'react';
import { isOfflineBackend, OFFLINE_LABEL, SOURCES, type TaskResult, type Sources } from '../../api/contract.ts';
import { Badge, Collapsible, Empty, Stats, TabPanel, Tabs } from '../../components/ui.tsx';
import { duration, int, num, usd } from '../../lib/format.ts';
import { SOURCE_META } from '../../lib/sources.ts';
import { ApiSet, protocolF1 } from './ApiSet.tsx';
import { Candidates } from './Candidates.tsx';
import { Decomposition } from './Decomposition.tsx';
import { EvidenceFusion } from './EvidenceFusion.tsx';
import { Repairs } from './Repairs.tsx';
import { UncertaintyTrace } from './UncertaintyTrace.tsx';
import './ResultView.css';

type Tab = 'decomposition' | 'evidence' | 'api' | 'uncertainty' | 'prompt' | 'candidates' | 'repairs';

export function ResultView({ results, sources, methodLabel }: { results: TaskResult[]; sources?: Sources; methodLabel?: (id: string) => string }) {
  const [cond, setCond] = useState(results[0]?.condition ?? '');
  const [tab, setTab] = useState<Tab>('evidence');
  useEffect(() => {
    if (!results.some((r) => r.condition === cond)) setCond(results[0]?.condition ?? '');
  }, [results, cond]);
  const result = results.find((r) => r.condition === cond) ?? results[0];
  if (!result) return <Empty title="No results" testId="result-empty" />;
  const label = (id: string) => methodLabel?.(id) ?? id;
  const fusedBy = result.retrieval.fusedBySource;
  const sourcesOn: Sources =
    sources ??
    (Object.fromEntries(
      SOURCES.map((s) => [s, !(result.retrieval.sourceUncertainty[s] === null && fusedBy[s] === 0 && !result.detail?.evidence.some((e) => e.source === s))]),
    ) as Sources);

  return (
    <div className="result" data-testid="task-result" data-condition={result.condition}>
      {results.length > 1 ? (
        <Tabs
          label="Condition"
          value={result.condition}
          onChange={setCond}
          idBase="cond"
          testId="condition-tabs"
          items={results.map((r) => ({
            id: r.condition,
            testId: `condition-tab-${r.condition}`,
            label: (
              <span className="cond-tab">
                {label(r.condition)}{' '}
                <span className={`dot ${r.selected.correct ? 'dot-good' : 'dot-bad'}`} aria-label={r.selected.correct ? 'correct' : 'wrong'} />
              </span>
            ),
          }))}
        />
      ) : null}
      <ResultSummary result={result} />
      <Tabs<Tab>
        label="Result details"
        value={tab}
        onChange={setTab}
        idBase="result"
        testId="result-tabs"
        items={[
          { id: 'decomposition', label: `Decomposition (${result.retrieval.steps})`, testId: 'tab-decomposition' },
          { id: 'evidence', label: 'Evidence fusion', testId: 'tab-evidence' },
          { id: 'api', label: 'API set', testId: 'tab-api' },
          { id: 'uncertainty', label: 'Uncertainty', testId: 'tab-uncertainty' },
          { id: 'prompt', label: 'Prompt', testId: 'tab-prompt' },
          { id: 'candidates', label: `Candidates (${result.c}/${result.n})`, testId: 'tab-candidates' },
          { id: 'repairs', label: `Repairs (${result.repairs.length})`, testId: 'tab-repairs' },
        ]}
      />
      <TabPanel idBase="result" active={tab} testId={`panel-${tab}`}>
        <DetailTab tab={tab} result={result} sourcesOn={sourcesOn} />
      </TabPanel>
    </div>
  );
}

const items = (n: number, one: string, many = `${one}s`) => `${int(n)} ${n === 1 ? one : many}`;

/**
 * What the summary's counts are computed over, in one line: the fused top K (what the prompt showed) by source, and
 * the API sets the F1s score — the repository one is every API item retrieval kept, at any rank, so it can score
 * while no API item reached the fused top K.
 */
export function scopeText(result: TaskResult): string {
  const k = int(result.retrieval.fused);
  const by = result.retrieval.fusedBySource;
  const fused = `Fused top ${k}: ${int(by.api)} API · ${int(by.context)} context · ${items(by.similar, 'similar-code item')} (what the prompt showed).`;
  const api = result.retrieval.api;
  if (!api) return `${fused} No API set was scored.`;
  const repo = `API F1 repository: over ${items(api.predicted, 'API item')} retrieval kept, at any rank — not only those in the fused top ${k}${by.api === 0 && api.predicted > 0 ? ', where none is' : ''}.`;
  const tv = api.taskView ? ` API F1 task-view: over ${items(api.taskView.predicted, 'API')} predicted from the task’s own view.` : '';
  return `${fused} ${repo}${tv}`;
}

/** The strip above the tabs: the verdict of the selected output and the run's numbers. */
function ResultSummary({ result }: { result: TaskResult }) {
  const fusedBy = result.retrieval.fusedBySource;
  return (
    <div className="summary" data-testid="result-summary">
      {result.unscored ? (
        <div className="notice notice-warn" role="note" data-testid="result-unscored" data-cause={result.unscored.cause}>
          <strong>Unscored ({result.unscored.cause}).</strong> The infrastructure, not the model, decided a verdict here: {result.unscored.detail}. This pair is
          left out of Pass@k and selected-output correctness; resuming the run runs it again.
        </div>
      ) : null}
      <div className="summary-main">
        <Badge tone={result.selected.correct ? 'good' : 'bad'} testId="selected-verdict">
          {result.selected.correct ? 'selected output correct' : 'selected output wrong'}
        </Badge>
        <span className="small">
          {result.selected.origin === 'repair' ? `from repair round ${result.selected.repairRound}` : `candidate ${(result.selected.candidateIndex ?? 0) + 1}`}
          {result.selected.verified === null ? ' · not verified by the method' : result.selected.verified ? ' · verified' : ' · verification failed'}
        </span>
      </div>
      <Stats
        testId="summary-stats"
        className="summary-stats"
        items={[
          { label: 'Raw passing', value: `${result.c} / ${result.n}`, testId: 'stat-raw' },
          { label: 'Gen. uncertainty', value: num(result.generation.uncertainty.aggregate), testId: 'stat-uncertainty' },
          {
            label: `Fused top ${int(result.retrieval.fused)} by source`,
            hint: `How many of the fused top ${int(result.retrieval.fused)} — the evidence the prompt showed — came from each source`,
            value: (
              <span className="fused-by">
                {SOURCES.map((s) => (
                  <span key={s} style={{ color: SOURCE_META[s].color }} title={SOURCE_META[s].label}>
                    {SOURCE_META[s].letter} {fusedBy[s]}
                  </span>
                ))}
              </span>
            ),
            testId: 'stat-fused',
          },
          {
            label: 'API F1 repository',
            value: num(protocolF1(result.retrieval.api, 'repository')),
            hint: 'Repository protocol: the API items retrieval kept (at any rank, not only the fused top K) vs the truth, strict module:qualname keys (— : no truth, or not scored)',
            testId: 'stat-api-repository',
          },
          {
            label: 'API F1 task-view',
            value: num(protocolF1(result.retrieval.api, 'task-view')),
            hint: 'Task-view protocol: the task’s own view as the pool, bare names (an empty prediction of an empty truth scores 1)',
            testId: 'stat-api-task-view',
          },
          {
            label: 'Model',
            value: (
              <span className="small ellipsis block" title={result.generation.backend}>
                {isOfflineBackend({ id: result.generation.backend }) ? OFFLINE_LABEL : result.generation.model || result.generation.backend}
              </span>
            ),
          },
          { label: 'Tokens in/out', value: `${int(result.generation.inputTokens)} / ${int(result.generation.outputTokens)}` },
          { label: 'Cost', value: usd(result.generation.costUsd) },
          {
            label: 'Time',
            value: duration(result.timingsMs.total),
            hint: `retrieve ${duration(result.timingsMs.retrieve)}, generate ${duration(result.timingsMs.generate)}, validate ${duration(result.timingsMs.validate)}`,
          },
        ]}
      />
      <p className="small muted summary-scope" data-testid="summary-scope">
        {scopeText(result)}
      </p>
      {result.generation.warnings.length ? (
        <div className="notice notice-warn small" data-testid="generation-warnings">
          {result.generation.warnings.join(' · ')}
        </div>
      ) : null}
    </div>
  );
}

/** The content of the chosen details tab. */
function DetailTab({ tab, result, sourcesOn }: { tab: Tab; result: TaskResult; sourcesOn: Sources }) {
  switch (tab) {
    case 'decomposition':
      return result.detail ? <Decomposition steps={result.detail.steps} method={result.retrieval.decomposition} /> : <NoDetail />;
    case 'evidence':
      return result.detail ? (
        <EvidenceFusion detail={result.detail} sourceUncertainty={result.retrieval.sourceUncertainty} sourcesOn={sourcesOn} leak={result.retrieval.leak} />
      ) : (
        <NoDetail />
      );
    case 'api':
      return <ApiSet result={result} />;
    case 'uncertainty':
      return <UncertaintyTrace result={result} />;
    case 'prompt':
      return <PromptView result={result} />;
    case 'candidates':
      return (
        <>
          <Candidates result={result} />
          <Collapsible title="Selection trace" testId="selection-trace">
            <ol className="trace small">
              {result.selectionTrace.map((s, i) => (
                <li key={i}>
                  <span className="mono">{s.kind}</span> — {s.note}
                </li>
              ))}
            </ol>
            <p className="muted small">Candidates are numbered from 0 in the trace.</p>
          </Collapsible>
        </>
      );
    default:
      return <Repairs result={result} />;
  }
}

function NoDetail() {
  return (
    <Empty title="No detail stored for this result" testId="no-detail">
      The run kept only its metrics for this task. Re-run the task from the Task view to see its trace.
    </Empty>
  );
}

function PromptView({ result }: { result: TaskResult }) {
  const prompt = result.detail?.prompt;
  return (
    <div data-testid="prompt">
      <p className="small muted">
        Prompt <span className="mono">{result.generation.promptVersion}</span> · {result.generation.promptKind} · {int(result.retrieval.promptEvidenceChars)}{' '}
        characters of evidence
      </p>
      {prompt && prompt.length ? (
        prompt.map((m, i) => (
          <Collapsible
            key={i}
            title={
              <span>
                {m.role} · <span className="muted tabular">{int(m.content.length)} chars</span>
              </span>
            }
            defaultOpen={m.role !== 'system'}
            testId={`prompt-message-${i}`}
          >
            <pre className="code prompt-text">{m.content}</pre>
          </Collapsible>
        ))
      ) : (
        <Empty title="The prompt is kept only for interactive runs" testId="prompt-empty">
          Experiments store a compact trace. Run this task from the Task view to see the full prompt.
        </Empty>
      )}
    </div>
  );
}
