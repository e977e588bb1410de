import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keychainUnavailableReason, openKeyVault, type SafeStorageLike } from '../../app/keychain.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function keysFile(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-keys-'));
  dirs.push(d);
  return path.join(d, 'nested', 'keys.json');
}

/** A stand-in for safeStorage: XOR with a secret pad plus a header, so ciphertext shares nothing readable with the key. */
function fakeSafe(over: Partial<SafeStorageLike> = {}): SafeStorageLike & { pad: number } {
  const pad = 0x5a;
  return {
    pad,
    isEncryptionAvailable: () => true,
    encryptString: (s) => Buffer.concat([Buffer.from('v10'), Buffer.from(Buffer.from(s, 'utf8').map((b) => b ^ pad))]),
    decryptString: (b) => {
      if (b.subarray(0, 3).toString() !== 'v10') throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return Buffer.from(b.subarray(3).map((x) => x ^ pad)).toString('utf8');
    },
    ...over,
  };
}

const KEY = 'sk-proj-THIS-IS-THE-SECRET-0123456789';

function assertNoPlaintext(file: string, key: string) {
  const raw = fs.readFileSync(file);
  const text = raw.toString('utf8');
  for (const form of [key, Buffer.from(key).toString('base64'), Buffer.from(key).toString('hex'), key.slice(8, 24)])
    expect(text.includes(form), form).toBe(false);
  expect(raw.includes(Buffer.from(key))).toBe(false);
}

describe('key vault with a working keychain', () => {
  it('stores keys encrypted at rest: the file never contains the key, and a new vault reads it back', () => {
    const file = keysFile();
    const safe = fakeSafe();
    const v = openKeyVault(file, safe, 'linux');
    expect(v.kind).toBe('keychain');
    expect(v.notice).toBeNull();
    v.set('openai', KEY);
    v.set('gemini', 'AIza-gemini-secret-987654321');
    assertNoPlaintext(file, KEY);
    assertNoPlaintext(file, 'AIza-gemini-secret-987654321');
    const content = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(content.format).toBe('opencoder-keys');
    expect(Object.keys(content.keys).sort()).toEqual(['gemini', 'openai']);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o077).toBe(0);

    const again = openKeyVault(file, safe, 'linux');
    expect(again.get('openai')).toBe(KEY);
    expect(again.snapshot()).toEqual({ openai: KEY, gemini: 'AIza-gemini-secret-987654321' });
  });

  it('removes a key with null, and leaves no temporary files behind', () => {
    const file = keysFile();
    const v = openKeyVault(file, fakeSafe(), 'darwin');
    v.set('openai', KEY);
    v.set('openai', null);
    expect(v.get('openai')).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).keys).toEqual({});
    expect(fs.readdirSync(path.dirname(file))).toEqual(['keys.json']);
  });

  it('keeps memory unchanged when the key cannot be encrypted or the file cannot be written', () => {
    const file = keysFile();
    const v = openKeyVault(file, fakeSafe(), 'linux');
    v.set('openai', KEY);
    const broken = openKeyVault(
      file,
      fakeSafe({
        encryptString: () => {
          throw new Error('keychain locked');
        },
      }),
      'linux',
    );
    expect(() => broken.set('openai', 'sk-other-12345678')).toThrow('keychain locked');
    expect(broken.get('openai')).toBe(KEY);

    // keys.json replaced by a folder: the rename fails, the temporary file is removed, memory keeps the old key
    fs.rmSync(file);
    fs.mkdirSync(path.join(file, 'x'), { recursive: true });
    expect(() => v.set('openai', 'sk-other-12345678')).toThrow();
    expect(v.get('openai')).toBe(KEY);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['keys.json']);
  });

  it('drops keys it cannot decrypt (keychain changed) with a notice, and survives a corrupt file', () => {
    const file = keysFile();
    openKeyVault(file, fakeSafe(), 'linux').set('openai', KEY);
    const other = openKeyVault(
      file,
      fakeSafe({
        decryptString: () => {
          throw new Error('bad key');
        },
      }),
      'linux',
    );
    expect(other.kind).toBe('keychain');
    expect(other.get('openai')).toBeUndefined();
    expect(other.notice).toMatch(/openai key could not be decrypted/);

    fs.writeFileSync(file, '{not json');
    const corrupt = openKeyVault(file, fakeSafe(), 'linux');
    expect(corrupt.notice).toMatch(/could not be read/);
    corrupt.set('gemini', 'AIza-gemini-secret-987654321');
    expect(openKeyVault(file, fakeSafe(), 'linux').get('gemini')).toBe('AIza-gemini-secret-987654321');
  });
});

describe('key vault without a keychain', () => {
  it('keeps keys for the session only, writes nothing, and says so', () => {
    const file = keysFile();
    const v = openKeyVault(file, fakeSafe({ isEncryptionAvailable: () => false }), 'linux');
    expect(v.kind).toBe('session');
    expect(v.notice).toMatch(/this session only.*never written to disk/);
    v.set('openai', KEY);
    expect(v.get('openai')).toBe(KEY);
    expect(v.snapshot()).toEqual({ openai: KEY });
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(path.dirname(file))).toBe(false);
    v.set('openai', null);
    expect(v.get('openai')).toBeUndefined();
  });

  it("treats Linux's basic_text backend (a public password) as no keychain", () => {
    const safe = fakeSafe({ getSelectedStorageBackend: () => 'basic_text' });
    expect(keychainUnavailableReason(safe, 'linux')).toMatch(/no secret service/);
    expect(keychainUnavailableReason(fakeSafe({ getSelectedStorageBackend: () => 'gnome_libsecret' }), 'linux')).toBeNull();
    expect(keychainUnavailableReason(safe, 'darwin')).toBeNull();
    const file = keysFile();
    const v = openKeyVault(file, safe, 'linux');
    expect(v.kind).toBe('session');
    v.set('gemini', 'AIza-gemini-secret-987654321');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('leaves an existing key file from a keychain session untouched', () => {
    const file = keysFile();
    openKeyVault(file, fakeSafe(), 'linux').set('openai', KEY);
    const before = fs.readFileSync(file, 'utf8');
    const v = openKeyVault(
      file,
      fakeSafe({
        isEncryptionAvailable: () => {
          throw new Error('not ready');
        },
      }),
      'linux',
    );
    expect(v.kind).toBe('session');
    v.set('openai', 'sk-session-only-12345678');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
