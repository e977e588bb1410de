// Browser mode's session token: the server prints a URL ending in `#token=…`. The token is moved into
// sessionStorage (it survives a reload of this tab, not the browser) and removed from the address bar, so it
// does not linger in history, screenshots or a copied link.

export const TOKEN_KEY = 'opencoder.token';

export interface TokenEnv {
  location: { hash: string; pathname: string; search: string };
  history: { replaceState(data: unknown, unused: string, url?: string | null): void; state?: unknown };
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
}

export function tokenFromHash(hash: string): string | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h) return null;
  const t = new URLSearchParams(h).get('token');
  return t && t.trim() ? t.trim() : null;
}

/** Takes the token from the hash (storing it and cleaning the address bar), else the one stored for this tab. */
export function takeToken(env: TokenEnv): string | null {
  const fromHash = tokenFromHash(env.location.hash);
  if (fromHash) {
    try {
      env.storage.setItem(TOKEN_KEY, fromHash);
    } catch {
      // storage may be disabled; the token still works for this page's lifetime
    }
    env.history.replaceState(env.history.state ?? null, '', env.location.pathname + env.location.search);
    return fromHash;
  }
  try {
    return env.storage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function forgetToken(env: Pick<TokenEnv, 'storage'>): void {
  try {
    env.storage.removeItem(TOKEN_KEY);
  } catch {
    // nothing stored
  }
}
