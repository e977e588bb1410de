// Calls over what the user configures: settings (settings.get, settings.set), the price table (prices.get,
// prices.set) and the providers' keys (keys.set; never returned, logged or stored in the settings).

import fs from 'node:fs';
import path from 'node:path';
import { SettingsSchema, type Settings } from '../../../contract/index.ts';
import { QUEUE_PASSWORD_ENV, parseQueueUrl } from '../../experiment/queue/url.ts';
import { PriceTableSchema } from '../../generate/cost.ts';
import { registerSecret } from '../../generate/errors.ts';
import { messageOf } from '../jobs.ts';
import { fail, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

export function settingsCalls(ws: Workspace): CallTable<'settings.get' | 'settings.set' | 'prices.get' | 'prices.set' | 'keys.set'> {
  return {
    'settings.get': () => structuredClone(ws.settings),
    'settings.set': (patch) => {
      const next = withQueue(SettingsSchema.parse({ ...ws.settings, ...patch }), 'queue' in patch, ws.env);
      const encoderChanged = next.encoder !== ws.settings.encoder;
      ws.saveSettings(next);
      if (encoderChanged)
        ws.emit({
          type: 'notice',
          level: 'info',
          message: `The encoder preference (${next.encoder}) takes effect the next time OpenCoder starts; ${ws.encoder.name} stays in use until then.`,
        });
      return structuredClone(ws.settings);
    },
    'prices.get': () => ws.pricesInfo(),
    'prices.set': ({ models }) => {
      const table = PriceTableSchema.parse({ version: 1, currency: 'USD', models });
      const file = ws.pricesFile;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(table, null, 2) + '\n');
      return ws.pricesInfo();
    },
    'keys.set': ({ provider, key }) => {
      const k = key?.trim() || null;
      if (k) registerSecret(k);
      ws.keys.set(provider, k);
      return ws.keyFlags();
    },
  };
}

/**
 * The settings with their queue URL checked when the patch sets one (parseQueueUrl: redis:// or rediss://, a
 * password for a Redis off loopback), and refused when it holds a password: the settings file is plain text, so
 * the password comes from OPENCODER_REDIS_PASSWORD in the app's environment. An empty or null queue is dropped
 * (run in this process).
 */
function withQueue(next: Settings, changed: boolean, env: NodeJS.ProcessEnv): Settings {
  const text = next.queue?.trim();
  const rest: Settings = { ...next };
  delete rest.queue;
  if (!text) return rest;
  if (changed) {
    const refuse = (message: string): never => fail('invalid-input', message, [{ path: 'queue', message }]);
    try {
      parseQueueUrl(text, env);
    } catch (err) {
      const message = messageOf(err).replace(/^--queue(?=[\s:])/, 'the queue URL');
      refuse(/without a password/.test(message) ? `${message} Settings keep no password: set ${QUEUE_PASSWORD_ENV} where OpenCoder starts.` : message);
    }
    if (new URL(text).password) {
      refuse(
        `the queue URL holds a password, and the settings file is plain text: remove it from the URL and set ${QUEUE_PASSWORD_ENV} in the environment OpenCoder starts in instead.`,
      );
    }
  }
  return { ...rest, queue: text };
}
