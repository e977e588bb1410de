// "Allow this folder", wherever a path was refused: an error that carries `allow` (a forbidden-path answer names the
// folder that would let the same call through) gets the action in place, so the analyst never has to leave the form
// for the Repository view. Confirming names the folder; the engine remembers it (allowed-folders.json) and still
// refuses the root and the system or secrets folders, saying why.

import { useState } from 'react';
import type { CallError } from '../api/contract.ts';
import { asCallError, engine, useApp } from '../store.ts';
import './AllowHere.css';

/** The folder a refused call may be let through by allowing, or null when the error offers none. */
export function folderOffered(error: CallError | string | null | undefined): string | null {
  if (!error || typeof error === 'string') return null;
  return error.code === 'forbidden-path' && error.allow ? error.allow : null;
}

export interface AllowHereProps {
  error: CallError | string | null | undefined;
  /** Called with the allowed folder (typically: try the refused action again). */
  onAllowed?: (folder: string) => void;
  /** The confirm button's label when `onAllowed` is given (default "Allow and try again"). */
  retryLabel?: string;
  /** Also offer allowing without going on (the Repository view: allow a folder without indexing it). */
  allowOnly?: boolean;
  testId?: string;
}

export function AllowHere({ error, onAllowed, retryLabel, allowOnly, testId = 'allow-here' }: AllowHereProps) {
  const refreshInfo = useApp((s) => s.refreshInfo);
  const folder = folderOffered(error);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<CallError | null>(null);
  const [allowed, setAllowed] = useState<string | null>(null);
  if (!folder) return null;
  if (allowed === folder)
    return (
      <p className="allow-here-done small" role="status" data-testid={`${testId}-done`}>
        Allowed <span className="mono break">{folder}</span>.
      </p>
    );

  const allow = async (goOn: boolean) => {
    setBusy(true);
    setFailure(null);
    try {
      const r = await engine().call('repo.allow', { folder });
      await refreshInfo();
      setConfirming(false);
      if (goOn && onAllowed) onAllowed(r.folder);
      else setAllowed(folder);
    } catch (err) {
      setFailure(asCallError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="allow-here" data-testid={testId}>
      {!confirming ? (
        <button type="button" className="btn btn-small" onClick={() => setConfirming(true)} data-testid={`${testId}-open`}>
          Allow this folder…
        </button>
      ) : (
        <div className="notice allow-here-confirm" role="alertdialog" aria-label="Allow this folder" data-testid={`${testId}-confirm`}>
          <p>
            Allow OpenCoder to read <strong className="mono break">{folder}</strong> and every folder inside it? It stays allowed after a restart (as{' '}
            <span className="mono break">opencoder serve --allow {folder}</span> would for one session).
          </p>
          <div className="row gap">
            {onAllowed ? (
              <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void allow(true)} data-testid={`${testId}-yes`}>
                {busy ? 'Allowing…' : (retryLabel ?? 'Allow and try again')}
              </button>
            ) : null}
            {allowOnly || !onAllowed ? (
              <button
                type="button"
                className={`btn ${onAllowed ? '' : 'btn-primary'}`}
                disabled={busy}
                onClick={() => void allow(false)}
                data-testid={`${testId}-only`}
              >
                {onAllowed ? 'Allow only' : busy ? 'Allowing…' : 'Allow'}
              </button>
            ) : null}
            <button type="button" className="btn btn-quiet" onClick={() => setConfirming(false)} data-testid={`${testId}-cancel`}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {failure ? (
        <p className="field-error" role="alert" data-testid={`${testId}-error`}>
          <span className="code-tag">{failure.code}</span> {failure.message}
        </p>
      ) : null}
    </div>
  );
}
