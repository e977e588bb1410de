// app://opencoder/<path> → a file under dist/renderer, and nothing else: no other host, no escaping the folder
// (.., encoded separators, NUL), extension-less paths fall back to index.html for client-side routes.

import path from 'node:path';
import { contentTypeOf } from '../main/host/mime.ts';
import { APP_ORIGIN, CONTENT_SECURITY_POLICY, isAppUrl } from './security.ts';

export { contentTypeOf };

export type AssetResolution = { ok: true; file: string; contentType: string } | { ok: false; status: 400 | 403 | 404 };

export function resolveAppAsset(requestUrl: string, root: string, appOrigin: string = APP_ORIGIN): AssetResolution {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400 };
  }
  if (!isAppUrl(requestUrl, appOrigin)) return { ok: false, status: 404 };
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    return { ok: false, status: 400 };
  }
  if (rel.includes('\0')) return { ok: false, status: 400 };
  const base = path.resolve(root);
  let file = path.resolve(base, `.${path.posix.normalize(`/${rel}`)}`);
  if (file !== base && !file.startsWith(base + path.sep)) return { ok: false, status: 403 };
  if (file === base || !path.extname(file)) file = path.join(base, 'index.html');
  return { ok: true, file, contentType: contentTypeOf(file) };
}

export function assetHeaders(contentType: string): Record<string, string> {
  const h: Record<string, string> = {
    'Content-Type': contentType,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
  if (contentType.startsWith('text/html')) h['Content-Security-Policy'] = CONTENT_SECURITY_POLICY;
  return h;
}
