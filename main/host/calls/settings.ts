// Calls over what the user configures: settings (settings.get, settings.set), the price table (prices.get,
// prices.set) and the providers' keys (keys.set; never returned, logged or stored in the settings).

import fs from 'node:fs';
import path from 'node:path';
import { SettingsSchema } from '../../../contract/index.ts';
import { PriceTableSchema } from '../../generate/cost.ts';
import { registerSecret } from '../../generate/errors.ts';
import type { Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

export function settingsCalls(ws: Workspace): CallTable<'settings.get' | 'settings.set' | 'prices.get' | 'prices.set' | 'keys.set'> {
  return {
    'settings.get': () => structuredClone(ws.settings),
    'settings.set': (patch) => {
      const next = SettingsSchema.parse({ ...ws.settings, ...patch });
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
