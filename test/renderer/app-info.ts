// The app.info a browser-mode engine answers, for renderer tests against a fake engine API: the hashing-encoder
// notice, one allowed root, a Gemini key and no OpenAI key, keys kept for the session.

import type { AppInfo } from '../../contract/index.ts';

export const APP_INFO: AppInfo = {
  contract: 1,
  version: '0.1.0',
  mode: 'browser',
  dbPath: '/tmp/ui.db',
  encoder: { name: 'opencoder-subtoken-hash-256', notice: 'Using the hashing encoder instead of unixcoder-base' },
  sandbox:
    'strong: bubblewrap — no network, read-only root, private /tmp and workspace, unprivileged uid 65534 (uid 0 only inside its own user namespace), own PID namespace, no capabilities, rlimits',
  sampleRepo: '/opt/oc/resources/sample-repo',
  sampleManifest: '/opt/oc/resources/sample-repo/tasks.jsonl',
  allowedRoots: ['/home/me'],
  keys: { openai: false, gemini: true },
  keyStorage: 'session',
  folderPicker: false,
};
