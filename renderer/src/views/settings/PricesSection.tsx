// The Settings view's price table: USD per million tokens for each model, read from the engine, edited row by
// row, checked before it is saved (the engine uses it for cost estimates and spend). Styled by SettingsView.css,
// which the view imports.

import { useEffect, useState } from 'react';
import { PricesSchema, type CallError, type ModelPrice, type PricesInfo } from '../../api/contract.ts';
import { ErrorBox, Loading, Section } from '../../components/ui.tsx';
import { asCallError, engine } from '../../store.ts';
import { OFFLINE_IN_SENTENCE } from '../../../../main/model/backend-label.ts';

interface PriceRow {
  model: string;
  input: string;
  output: string;
  asOf: string;
  /** Fields the table keeps but this form does not edit. */
  rest: Pick<ModelPrice, 'cachedInputPerMTok' | 'source' | 'note'>;
}

const today = () => new Date().toISOString().slice(0, 10);

function toRows(models: Record<string, ModelPrice>): PriceRow[] {
  return Object.entries(models).map(([model, p]) => ({
    model,
    input: String(p.inputPerMTok),
    output: String(p.outputPerMTok),
    asOf: p.asOf,
    rest: {
      ...(p.cachedInputPerMTok !== undefined ? { cachedInputPerMTok: p.cachedInputPerMTok } : {}),
      ...(p.source ? { source: p.source } : {}),
      ...(p.note ? { note: p.note } : {}),
    },
  }));
}

/** Rows → the price table, or the first problem in words (row and field named). */
export function fromPriceRows(rows: PriceRow[]): { ok: true; value: Record<string, ModelPrice> } | { ok: false; error: string } {
  const models: Record<string, ModelPrice> = {};
  for (const [i, r] of rows.entries()) {
    const name = r.model.trim();
    const where = `row ${i + 1}${name ? ` (${name})` : ''}`;
    if (!name) return { ok: false, error: `${where}: a model name is required` };
    if (models[name]) return { ok: false, error: `${where}: ${name} is listed twice` };
    const input = Number(r.input);
    const output = Number(r.output);
    if (r.input.trim() === '' || !Number.isFinite(input) || input < 0) return { ok: false, error: `${where}: the input price must be a number ≥ 0` };
    if (r.output.trim() === '' || !Number.isFinite(output) || output < 0) return { ok: false, error: `${where}: the output price must be a number ≥ 0` };
    models[name] = { inputPerMTok: input, outputPerMTok: output, asOf: r.asOf.trim(), ...r.rest };
  }
  const checked = PricesSchema.safeParse(models);
  if (!checked.success) {
    const i = checked.error.issues[0]!;
    return { ok: false, error: `${i.path.join(' · ')}: ${i.message}` };
  }
  return { ok: true, value: checked.data };
}

/** The price table as the engine holds it and as edited here, with loading and saving. */
function usePriceTable() {
  const [info, setInfo] = useState<PricesInfo | null>(null);
  const [rows, setRows] = useState<PriceRow[]>([]);
  const [loadError, setLoadError] = useState<CallError | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    setLoadError(null);
    try {
      const p = await engine().call('prices.get', {});
      setInfo(p);
      setRows(toRows(p.models));
    } catch (err) {
      setLoadError(asCallError(err));
    }
  };
  useEffect(() => {
    void load();
  }, []);
  /** Any edit: the rows change and the "Saved." note goes. */
  const edit = (next: PriceRow[]) => {
    setSaved(false);
    setRows(next);
  };
  const save = async () => {
    setError(null);
    const table = fromPriceRows(rows);
    if (!table.ok) return setError(table.error);
    setBusy(true);
    try {
      const p = await engine().call('prices.set', { models: table.value });
      setInfo(p);
      setRows(toRows(p.models));
      setSaved(true);
    } catch (err) {
      setError(asCallError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return {
    info,
    rows,
    loadError,
    error,
    saved,
    busy,
    load,
    save,
    update: (i: number, patch: Partial<PriceRow>) => edit(rows.map((r, j) => (j === i ? { ...r, ...patch } : r))),
    remove: (i: number) => edit(rows.filter((_, j) => j !== i)),
    add: () => edit([...rows, { model: '', input: '', output: '', asOf: today(), rest: {} }]),
  };
}

export function PricesSection() {
  const t = usePriceTable();
  const { info } = t;
  return (
    <Section
      title="Prices"
      testId="settings-prices"
      subtitle={
        info ? (
          <span data-testid="prices-source">
            USD per million tokens, used for cost estimates and spend. Read from{' '}
            {info.source === 'built-in defaults' ? (
              'the built-in defaults (check them against the providers’ price pages)'
            ) : (
              <span className="mono">{info.source}</span>
            )}
            ; saving writes <span className="mono">{info.file}</span>. Local servers, GGUF models and {OFFLINE_IN_SENTENCE} cost 0.
          </span>
        ) : null
      }
    >
      {t.loadError ? <ErrorBox error={t.loadError} title="Could not read the price table" onRetry={() => void t.load()} /> : null}
      {!info && !t.loadError ? <Loading inline /> : null}
      {info ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void t.save();
          }}
          noValidate
        >
          <PriceTable rows={t.rows} update={t.update} remove={t.remove} />
          {t.error ? (
            <div className="field-error" role="alert" data-testid="prices-error">
              {t.error}
            </div>
          ) : null}
          <div className="form-actions">
            <button type="button" className="btn" onClick={t.add} data-testid="price-add">
              Add a model
            </button>
            <button type="submit" className="btn btn-primary" disabled={t.busy} data-testid="prices-save">
              {t.busy ? 'Saving…' : 'Save prices'}
            </button>
            {t.saved ? (
              <span className="small muted" data-testid="prices-saved">
                Saved.
              </span>
            ) : null}
          </div>
        </form>
      ) : null}
    </Section>
  );
}

function PriceTable({ rows, update, remove }: { rows: PriceRow[]; update: (i: number, patch: Partial<PriceRow>) => void; remove: (i: number) => void }) {
  return (
    <div className="table-scroll">
      <table className="table" data-testid="prices-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Input $/M
            </th>
            <th scope="col" className="num">
              Output $/M
            </th>
            <th scope="col">As of</th>
            <th scope="col">
              <span className="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} data-testid="price-row">
              <td>
                <input
                  className="input mono"
                  value={r.model}
                  onChange={(e) => update(i, { model: e.target.value })}
                  aria-label={`model of row ${i + 1}`}
                  data-testid="price-model"
                  spellCheck={false}
                />
              </td>
              <td className="num">
                <input
                  className="input input-num"
                  inputMode="decimal"
                  value={r.input}
                  onChange={(e) => update(i, { input: e.target.value })}
                  aria-label={`input price of ${r.model || `row ${i + 1}`}`}
                  data-testid="price-input"
                />
              </td>
              <td className="num">
                <input
                  className="input input-num"
                  inputMode="decimal"
                  value={r.output}
                  onChange={(e) => update(i, { output: e.target.value })}
                  aria-label={`output price of ${r.model || `row ${i + 1}`}`}
                  data-testid="price-output"
                />
              </td>
              <td>
                <input
                  className="input mono"
                  value={r.asOf}
                  onChange={(e) => update(i, { asOf: e.target.value })}
                  aria-label={`date of the price of ${r.model || `row ${i + 1}`}`}
                  data-testid="price-asof"
                />
              </td>
              <td>
                <button type="button" className="btn btn-quiet btn-danger-quiet" onClick={() => remove(i)} data-testid="price-remove">
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
