import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assetHeaders, contentTypeOf, resolveAppAsset } from '../../app/app-protocol.ts';
import { appLayout, unpackedPath } from '../../app/layout.ts';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  CONTENT_SECURITY_POLICY,
  CSP_DIRECTIVES,
  isAllowedNavigation,
  isAppUrl,
  isPermissionAllowed,
  isSafeExternal,
  isTrustedSender,
  safeExternalUrl,
  windowWebPreferences,
  withCsp,
} from '../../app/security.ts';

describe('window web preferences', () => {
  it('isolates and sandboxes the renderer, with no Node, webviews or spellcheck', () => {
    const p = windowWebPreferences('/x/preload.cjs', { devTools: false });
    expect(p).toMatchObject({
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
    expect(windowWebPreferences('/p', { devTools: true }).devTools).toBe(true);
  });
});

describe('Content-Security-Policy', () => {
  const directive = (name: string) => CONTENT_SECURITY_POLICY.split('; ').find((d) => d.startsWith(`${name} `));

  it('allows scripts from the app only: no inline script, no eval, nothing remote', () => {
    expect(directive('default-src')).toBe("default-src 'none'");
    expect(directive('script-src')).toBe("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(CSP_DIRECTIVES['script-src']).not.toContain("'unsafe-inline'");
  });

  it('forbids objects, frames, framing, forms and base rewriting; connects only to itself', () => {
    expect(directive('object-src')).toBe("object-src 'none'");
    expect(directive('frame-src')).toBe("frame-src 'none'");
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive('form-action')).toBe("form-action 'none'");
    expect(directive('base-uri')).toBe("base-uri 'none'");
    expect(directive('connect-src')).toBe("connect-src 'self'");
  });

  it('replaces any CSP a response carried and keeps its other headers', () => {
    const h = withCsp({ 'content-security-policy': ['default-src *'], 'Content-Security-Policy-Report-Only': 'x', 'Content-Type': 'text/html' });
    expect(h['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    expect(Object.keys(h).filter((k) => /content-security-policy/i.test(k))).toEqual(['Content-Security-Policy']);
    expect(h['Content-Type']).toEqual(['text/html']);
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});

describe('navigation and external links', () => {
  it('keeps navigation on the app origin', () => {
    expect(APP_ENTRY_URL).toBe('app://opencoder/index.html');
    expect(isAllowedNavigation('app://opencoder/index.html', APP_ORIGIN)).toBe(true);
    expect(isAllowedNavigation('app://opencoder/runs?id=1#x')).toBe(true);
    for (const url of [
      'https://example.com/',
      'http://opencoder/',
      'file:///etc/passwd',
      'app://evil/index.html',
      'app://opencoder@evil/index.html',
      'app://opencoder:8080/',
      'APP://OPENCODER.evil/',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'about:blank',
      'not a url',
      '',
    ]) {
      expect(isAllowedNavigation(url), url).toBe(false);
    }
    // scheme and host compare case-insensitively, as URLs do
    expect(isAppUrl('APP://OpenCoder/index.html')).toBe(true);
  });

  it('opens only plain http(s) links externally, normalised', () => {
    expect(safeExternalUrl('https://arxiv.org/abs/2401.0001')).toBe('https://arxiv.org/abs/2401.0001');
    expect(safeExternalUrl('HTTP://Example.com')).toBe('http://example.com/');
    expect(isSafeExternal('https://github.com/org/repo/issues?q=1')).toBe(true);
    for (const url of [
      'file:///home/me/.ssh/id_rsa',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-msdt:/id PCWDiagnostic',
      'vscode://file/etc/passwd',
      'app://opencoder/index.html',
      'https://user:pass@example.com/',
      'mailto:a@b.c',
      'https://x.com/' + 'a'.repeat(3000),
      ' ',
    ]) {
      expect(isSafeExternal(url), url).toBe(false);
    }
    expect(isSafeExternal(42)).toBe(false);
    expect(isSafeExternal(null)).toBe(false);
  });
});

describe('permissions and IPC senders', () => {
  it('denies every permission but sanitized clipboard writes from the app page', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'hid', 'usb', 'serial', 'clipboard-read', 'openExternal', 'fullscreen', 'unknown']) {
      expect(isPermissionAllowed(p, 'app://opencoder/index.html'), p).toBe(false);
    }
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://opencoder/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(isPermissionAllowed('clipboard-sanitized-write', undefined)).toBe(false);
  });

  it('trusts only the app window main frame on the app origin', () => {
    const ok = { fromAppWindow: true, isMainFrame: true, frameUrl: 'app://opencoder/index.html' };
    expect(isTrustedSender(ok)).toBe(true);
    expect(isTrustedSender({ ...ok, fromAppWindow: false })).toBe(false);
    expect(isTrustedSender({ ...ok, isMainFrame: false })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: null })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'https://evil.example/' })).toBe(false);
    expect(isTrustedSender({ ...ok, frameUrl: 'file:///tmp/x.html' })).toBe(false);
  });
});

describe('app:// serves dist/renderer and nothing else', () => {
  const root = path.resolve('/srv/oc/dist/renderer');

  it('maps paths under the root, with index.html for / and client-side routes', () => {
    expect(resolveAppAsset('app://opencoder/index.html', root)).toEqual({
      ok: true,
      file: path.join(root, 'index.html'),
      contentType: 'text/html; charset=utf-8',
    });
    expect(resolveAppAsset('app://opencoder/', root)).toMatchObject({ ok: true, file: path.join(root, 'index.html') });
    expect(resolveAppAsset('app://opencoder/assets/index-abc.js?v=1', root)).toMatchObject({
      ok: true,
      file: path.join(root, 'assets', 'index-abc.js'),
      contentType: 'text/javascript; charset=utf-8',
    });
    expect(resolveAppAsset('app://opencoder/runs/abc', root)).toMatchObject({ ok: true, file: path.join(root, 'index.html') });
    expect(resolveAppAsset('app://opencoder/a%20b.css', root)).toMatchObject({ ok: true, file: path.join(root, 'a b.css') });
  });

  it('refuses other hosts, traversal, encoded separators and NUL', () => {
    expect(resolveAppAsset('app://other/index.html', root)).toEqual({ ok: false, status: 404 });
    expect(resolveAppAsset('https://opencoder/index.html', root)).toEqual({ ok: false, status: 404 });
    for (const u of ['app://opencoder/../../etc/passwd', 'app://opencoder/%2e%2e/%2e%2e/etc/passwd.txt', 'app://opencoder/assets/..%2f..%2f..%2fsecret.js']) {
      const r = resolveAppAsset(u, root);
      if (r.ok) expect(r.file.startsWith(root + path.sep), u).toBe(true);
    }
    expect(resolveAppAsset('app://opencoder/%00.js', root)).toEqual({ ok: false, status: 400 });
    expect(resolveAppAsset('app://opencoder/%E0%A4%A.js', root)).toEqual({ ok: false, status: 400 });
    if (path.sep === '\\') expect(resolveAppAsset('app://opencoder/..%5C..%5Csecret.js', root)).toEqual({ ok: false, status: 403 });
  });

  it('sends the CSP with HTML and nosniff with everything', () => {
    expect(assetHeaders('text/html; charset=utf-8')['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(assetHeaders('text/javascript; charset=utf-8')['Content-Security-Policy']).toBeUndefined();
    expect(assetHeaders('image/png')['X-Content-Type-Options']).toBe('nosniff');
    expect(contentTypeOf('x.wasm')).toBe('application/wasm');
    expect(contentTypeOf('x.unknown')).toBe('application/octet-stream');
  });
});

describe('layout', () => {
  it('runs the engine from app.asar.unpacked and finds resources beside the asar when packaged', () => {
    const appDir = path.join('/opt', 'OpenCoder', 'resources', 'app.asar', 'dist', 'app');
    const l = appLayout(appDir, { isPackaged: true, resourcesPath: path.join('/opt', 'OpenCoder', 'resources') });
    expect(l.engineEntry).toBe(path.join('/opt', 'OpenCoder', 'resources', 'app.asar.unpacked', 'dist', 'app', 'engine-process.js'));
    expect(l.preload).toBe(path.join(appDir, 'preload.cjs'));
    expect(l.rendererDir).toBe(path.join('/opt', 'OpenCoder', 'resources', 'app.asar', 'dist', 'renderer'));
    expect(l.resourcesDir).toBe(path.join('/opt', 'OpenCoder', 'resources'));
  });

  it('uses the checkout as is in development', () => {
    const appDir = path.join('/work', 'oc', 'dist', 'app');
    const l = appLayout(appDir, { isPackaged: false, resourcesPath: '/electron/resources' });
    expect(l.engineEntry).toBe(path.join(appDir, 'engine-process.js'));
    expect(l.resourcesDir).toBe(path.join('/work', 'oc', 'resources'));
    expect(unpackedPath('C:\\Program Files\\OpenCoder\\resources\\app.asar\\dist\\app')).toBe(
      'C:\\Program Files\\OpenCoder\\resources\\app.asar.unpacked\\dist\\app',
    );
    expect(unpackedPath('/x/app.asarx/y')).toBe('/x/app.asarx/y');
  });
});
