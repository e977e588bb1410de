// API keys at rest: encrypted with Electron's safeStorage (the OS keychain: Keychain on macOS, DPAPI on
// Windows, libsecret / KWallet on Linux) in <userData>/keys.json, decrypted only in the main process and
// handed to the engine process in memory. Without a working keychain nothing is written — keys live for
// this session only — because the alternative would be a key on disk in plain text. On Linux, safeStorage's
// `basic_text` backend (no secret service running) encrypts with a fixed, public password: that counts as
// no keychain too.
//
// No electron import: safeStorage is injected, so tests use a fake cipher.

import fs from 'node:fs';
import path from 'node:path';
import { PROVIDERS, type Provider } from './engine-protocol.ts';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron; absent or another value elsewhere. */
  getSelectedStorageBackend?(): string;
}

export interface KeyVault {
  /** 'keychain': encrypted in keys.json; 'session': memory only. */
  readonly kind: 'keychain' | 'session';
  /** Why keys are session-only, or which stored keys could not be read; null when all is well. */
  readonly notice: string | null;
  get(provider: Provider): string | undefined;
  /** Encrypts and persists (keychain) or just remembers (session); `null` removes the key. Throws when the file cannot be written. */
  set(provider: Provider, key: string | null): void;
  /** The decrypted keys, for the engine process. */
  snapshot(): Partial<Record<Provider, string>>;
}

interface KeyFile {
  format: 'opencoder-keys';
  version: 1;
  /** base64 of safeStorage ciphertext, per provider. */
  keys: Partial<Record<Provider, string>>;
}

export function keychainUnavailableReason(safe: SafeStorageLike, platform: NodeJS.Platform = process.platform): string | null {
  let available: boolean;
  try {
    available = safe.isEncryptionAvailable();
  } catch {
    available = false;
  }
  if (!available) return 'the operating system keychain is not available';
  if (platform === 'linux' && safe.getSelectedStorageBackend?.() === 'basic_text') {
    return 'no secret service (GNOME Keyring, KWallet) is running, so the keychain would only hide keys behind a publicly known password';
  }
  return null;
}

function readKeyFile(file: string): KeyFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const raw = JSON.parse(text) as Partial<KeyFile>;
  if (raw?.format !== 'opencoder-keys' || raw.version !== 1 || !raw.keys || typeof raw.keys !== 'object') throw new Error('not an OpenCoder key file');
  return raw as KeyFile;
}

function writeKeyFile(file: string, content: KeyFile): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(content, null, 2) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export function openKeyVault(file: string, safe: SafeStorageLike, platform: NodeJS.Platform = process.platform): KeyVault {
  const keys = new Map<Provider, string>();
  const unavailable = keychainUnavailableReason(safe, platform);

  if (unavailable) {
    // keys.json (from a session that had the keychain) is left untouched: it cannot be read now, and must not be
    // overwritten with anything readable.
    const notice = `API keys are kept for this session only and never written to disk: ${unavailable}.`;
    return {
      kind: 'session',
      notice,
      get: (p) => keys.get(p),
      set: (p, key) => {
        if (key === null) keys.delete(p);
        else keys.set(p, key);
      },
      snapshot: () => Object.fromEntries(keys),
    };
  }

  const stored: Partial<Record<Provider, string>> = {};
  const unreadable: string[] = [];
  let notice: string | null = null;
  try {
    const content = readKeyFile(file);
    for (const p of PROVIDERS) {
      const enc = content?.keys[p];
      if (typeof enc !== 'string') continue;
      try {
        const key = safe.decryptString(Buffer.from(enc, 'base64'));
        keys.set(p, key);
        stored[p] = enc;
      } catch {
        unreadable.push(p);
      }
    }
  } catch (err) {
    notice = `The stored API keys in ${file} could not be read (${(err as Error).message}); set them again in Settings.`;
  }
  if (unreadable.length) {
    notice = `The stored ${unreadable.join(' and ')} key${unreadable.length > 1 ? 's' : ''} could not be decrypted (the keychain may have changed); set ${unreadable.length > 1 ? 'them' : 'it'} again in Settings.`;
  }

  return {
    kind: 'keychain',
    notice,
    get: (p) => keys.get(p),
    set: (p, key) => {
      const next = { ...stored };
      if (key === null) delete next[p];
      else next[p] = safe.encryptString(key).toString('base64');
      writeKeyFile(file, { format: 'opencoder-keys', version: 1, keys: next });
      // Memory follows the file only once the file is written.
      if (key === null) {
        delete stored[p];
        keys.delete(p);
      } else {
        stored[p] = next[p];
        keys.set(p, key);
      }
    },
    snapshot: () => Object.fromEntries(keys),
  };
}
