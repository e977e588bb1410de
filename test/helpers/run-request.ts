// The stored request of a plain offline run on a manifest (model/run-request.ts), for tests that start runs directly.

import { parseRunRequest, type RunRequest } from '../../main/model/run-request.ts';

export function offlineRequest(manifest: string, kind: RunRequest['kind'] = 'run'): RunRequest {
  return parseRunRequest({ kind, manifest, backend: { kind: 'offline' }, decompose: 'fallback', sandbox: 'auto', parallel: 2 });
}
