// Published sample sets: another system's generations with official verdicts (RepoExec's phi-2 results folder,
// CoderEval's *_out.jsonl, …) and the Pass@k they give, computed by the engine exactly as `opencoder passk` does.
// Shown with 3 decimals like every other rate (the full value in the tooltip). The Import view's "Compute Pass@k"
// hands its set over: the box shows it filled in and computed.

import { useEffect, useRef, useState } from 'react';
import { PathSchema, type CallError, type SamplePassK } from '../../api/contract.ts';
import { ErrorBox, Section, TextField } from '../../components/ui.tsx';
import { int, num } from '../../lib/format.ts';
import { asCallError, engine } from '../../store.ts';
import { takePassK } from '../import-handoff.ts';

export function SampleSets() {
  const [handed] = useState(takePassK);
  const [path, setPath] = useState(handed ?? '');
  const [humaneval, setHumaneval] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CallError | null>(null);
  const [pathError, setPathError] = useState<string | null>(null);
  const [result, setResult] = useState<SamplePassK | null>(null);

  const load = async (input = path) => {
    const p = PathSchema.safeParse(input.trim());
    setPathError(p.success ? null : (p.error.issues[0]?.message ?? 'not a path'));
    if (!p.success) return;
    setBusy(true);
    setError(null);
    try {
      setResult(await engine().call('samples.passk', { path: p.data, kOverN: humaneval ? 'humaneval' : 'refuse' }));
    } catch (err) {
      setError(asCallError(err));
      setResult(null);
    } finally {
      setBusy(false);
    }
  };

  // A set handed over by the Import view is computed once, and the box brought into view.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!handed) return;
    box.current?.scrollIntoView?.({ block: 'start' });
    void load(handed);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, for the set handed over when the box first shows
  }, [handed]);

  return (
    <div ref={box}>
      <Section
        title="Published sample sets"
        subtitle="Pass@k of another system's samples from their official labels (RepoExec results folder, CoderEval *_out.jsonl, bigcode, EvalPlus, or a set from opencoder samples import)"
        testId="sample-sets"
      >
        <div className="form-row">
          <TextField
            label="Sample file or folder"
            error={pathError}
            className="input input-wide mono"
            value={path}
            onText={setPath}
            spellCheck={false}
            data-testid="samples-path"
            placeholder="/path/to/phi-2-results"
          />
          <label className="check">
            <input type="checkbox" checked={humaneval} onChange={(e) => setHumaneval(e.target.checked)} data-testid="samples-humaneval" /> count tasks with n
            &lt; k as the HumanEval harness does
          </label>
          <button type="button" className="btn btn-primary" onClick={() => void load()} disabled={busy} data-testid="samples-load">
            {busy ? 'Reading…' : 'Compute Pass@k'}
          </button>
        </div>
        <ErrorBox error={error} title="Cannot read the sample set" onAllowed={() => void load()} testId="samples-error" />
        {result ? (
          <div data-testid="samples-result">
            <p className="small">
              <code>{result.path}</code> ({result.format}): {int(result.tasks)} tasks, {int(result.samples)} samples (n{' '}
              {result.n.min === result.n.max ? result.n.min : `${result.n.min}–${result.n.max}`}), official labels
            </p>
            <table className="table" data-testid="samples-passk">
              <thead>
                <tr>
                  {result.ks.map((k) => (
                    <th key={k} className="num">
                      pass@{k}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  {result.ks.map((k) => (
                    <td key={k} className="num mono" data-testid={`samples-pass-${k}`} title={String(result.passAtK[String(k)])}>
                      {num(result.passAtK[String(k)], 3)}
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
            <p className="small muted">Computed over: {result.computedOver}.</p>
          </div>
        ) : null}
      </Section>
    </div>
  );
}
