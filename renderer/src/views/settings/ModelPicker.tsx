// The model picker in Settings: the GGUF files in the models folder (choosing one picks the llama-cpp backend with
// its path), the local OpenAI-compatible servers found on 127.0.0.1 / ::1 with their models (choosing one picks
// the OpenAI-compatible backend with that base URL and model), and the hosted providers with their key status. A
// choice fills the form; Save settings keeps it. Detect looks for local servers again (only when pressed).

import type { ReactNode } from 'react';
import type { GgufFileInfo, LocalServerInfo, ModelSources, ProviderStatus } from '../../api/contract.ts';
import { Badge, ErrorBox, Loading } from '../../components/ui.tsx';
import { dateTime } from '../../lib/format.ts';
import { bytes } from '../../../../main/model/format.ts';
import { useApp } from '../../store.ts';
import { useModelSources } from './model-sources.ts';
import './ModelPicker.css';

/** The backend part of the Settings form, as the picker reads and sets it. */
export interface BackendPick {
  backend: 'offline' | 'openai' | 'gemini' | 'local' | 'llama-cpp';
  model: string;
  baseURL: string;
}

export function ModelPicker({ current, onChoose }: { current: BackendPick; onChoose: (p: BackendPick) => void }) {
  const { sources, error, loading, detecting, detect } = useModelSources();
  return (
    <div className="model-picker" data-testid="model-picker">
      <div className="picker-head">
        <h3 className="picker-title">Models you can use</h3>
        <button type="button" className="btn btn-small" onClick={() => void detect()} disabled={detecting} data-testid="models-detect">
          {detecting ? 'Detecting…' : 'Detect'}
        </button>
        <span className="muted small" data-testid="models-detected-at">
          {sources?.detectedAt
            ? `Local servers looked for ${dateTime(sources.detectedAt)} on 127.0.0.1 and ::1, ports ${sources.ports.join(', ')}`
            : 'Local servers not looked for yet: press Detect (only this machine is asked: 127.0.0.1 and ::1)'}
        </span>
      </div>
      {loading && !sources ? <Loading inline label="Reading the models folder…" /> : null}
      <ErrorBox error={error} title="Could not list the models" onRetry={() => void detect()} testId="models-error" />
      {sources ? (
        <div className="picker-groups">
          <GgufGroup sources={sources} current={current} onChoose={onChoose} />
          <ServerGroup servers={sources.servers} current={current} onChoose={onChoose} />
          <ProviderGroup providers={sources.providers} current={current} onChoose={onChoose} />
        </div>
      ) : null}
    </div>
  );
}

interface GroupProps {
  current: BackendPick;
  onChoose: (p: BackendPick) => void;
}

function PickButton(props: { on: boolean; onClick: () => void; testId: string; children: ReactNode; title?: string }) {
  return (
    <button
      type="button"
      className={`pick ${props.on ? 'pick-on' : ''}`}
      aria-pressed={props.on}
      onClick={props.onClick}
      data-testid={props.testId}
      title={props.title}
    >
      {props.children}
    </button>
  );
}

function GgufGroup({ sources, current, onChoose }: GroupProps & { sources: ModelSources }) {
  const dir = sources.modelsDir;
  const chosen = (f: GgufFileInfo) => current.backend === 'llama-cpp' && (current.model === f.path || current.model === f.name);
  return (
    <div className="picker-group" data-testid="picker-gguf">
      <h4 className="picker-group-title">
        GGUF files <span className="muted small">run here by llama.cpp · </span>
        <span className="mono small" data-testid="models-dir">
          {dir.path}
        </span>
      </h4>
      {sources.ggufFiles.length ? (
        <ul className="pick-list" role="list">
          {sources.ggufFiles.map((f) => (
            <li key={f.path}>
              <PickButton on={chosen(f)} onClick={() => onChoose({ backend: 'llama-cpp', model: f.path, baseURL: '' })} testId="pick-gguf" title={f.path}>
                <span className="mono">{f.name}</span> <span className="muted small tabular">{bytes(f.bytes)}</span>
              </PickButton>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small" data-testid="gguf-empty">
          None yet{dir.exists ? '' : ' (the folder does not exist yet)'}: put a .gguf file in this folder, then press Detect.
        </p>
      )}
    </div>
  );
}

function ServerGroup({ servers, current, onChoose }: GroupProps & { servers: LocalServerInfo[] }) {
  const chosen = (s: LocalServerInfo, m: string) => current.backend === 'local' && current.baseURL === s.baseURL && current.model === m;
  return (
    <div className="picker-group" data-testid="picker-servers">
      <h4 className="picker-group-title">
        Local servers <span className="muted small">OpenAI-compatible, on this machine</span>
      </h4>
      {servers.length ? (
        servers.map((s) => (
          <div key={s.baseURL} className="server" data-testid="local-server" data-tool={s.tool}>
            <div className="small">
              <strong>{s.label}</strong> <span className="mono muted">{s.baseURL}</span>
            </div>
            {s.models.length ? (
              <ul className="pick-list" role="list">
                {s.models.map((m) => (
                  <li key={m}>
                    <PickButton on={chosen(s, m)} onClick={() => onChoose({ backend: 'local', baseURL: s.baseURL, model: m })} testId="pick-server-model">
                      <span className="mono">{m}</span>
                    </PickButton>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted small">No models on it yet ({s.tool === 'ollama' ? 'ollama pull a model' : 'load a model in it'}, then press Detect).</p>
            )}
          </div>
        ))
      ) : (
        <p className="muted small" data-testid="servers-empty">
          None found. Start Ollama, LM Studio, llama.cpp’s llama-server or vLLM, then press Detect.
        </p>
      )}
    </div>
  );
}

function ProviderGroup({ providers, current, onChoose }: GroupProps & { providers: ProviderStatus[] }) {
  // The key flags of app.info follow keys.set at once; the listing's are as of when it was read.
  const keys = useApp((s) => s.info.data?.keys);
  return (
    <div className="picker-group" data-testid="picker-providers">
      <h4 className="picker-group-title">
        Hosted providers <span className="muted small">metered; a key is needed</span>
      </h4>
      <ul className="pick-list" role="list">
        {providers.map((p) => {
          const keyed = keys ? keys[p.id] : p.keyPresent;
          return (
            <li key={p.id} className="provider">
              <PickButton on={current.backend === p.id} onClick={() => onChoose({ backend: p.id, model: '', baseURL: '' })} testId={`pick-provider-${p.id}`}>
                {p.label} <span className="muted small mono">{p.defaultModel}</span>
              </PickButton>
              <Badge tone={keyed ? 'good' : 'muted'} testId={`provider-${p.id}-key`}>
                {keyed ? 'key set' : 'no key: add one under API keys'}
              </Badge>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
