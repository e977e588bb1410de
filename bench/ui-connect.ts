// How long a new window takes to connect while a large repository is being indexed (issue 17's bound: 2 s), beside
// the same measurement with the engine idle. `opencoder serve` (browser mode, offline) serves the renderer that
// benchUi built; a headless Debian Chromium opens the app, and an observer installed before the page's scripts notes
// when the connection state first reads "open" (the browser's clock, from the start of the navigation).
// The repository: 120 generated modules of 1,500 small functions each (15 MB), the size that once made the engine's
// long SQLite transactions block its event loop for seconds. Needs /usr/bin/chromium; says so and records nothing
// without it.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const TARGET_MS = 2_000;

function largeRepo(dest: string): void {
  fs.mkdirSync(dest, { recursive: true });
  for (let m = 0; m < 120; m++) {
    const fns = Array.from({ length: 1500 }, (_, i) => `def f${m}_${i}(x, y=${i}):\n    """Add ${i} to x, then y."""\n    return x + ${i} + y\n`);
    fs.writeFileSync(path.join(dest, `mod${m}.py`), fns.join('\n'));
  }
}

export async function benchUiConnect(record: Record, put: Put, rendererDir: string): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) {
    console.warn(`[bench] ui connect: ${CHROMIUM} not found (apt-get install chromium); not measured`);
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-connect-'));
  const server = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'opencoder.js'), 'serve', '--port', '0', '--json', '--no-demo', '--db', path.join(home, 'w.db'), '--renderer', rendererDir],
    { cwd: ROOT, env: { ...process.env, OPENCODER_HOME: home, OPENAI_API_KEY: '', GEMINI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const info = await new Promise<{ url: string; openUrl: string }>((resolve, reject) => {
      let buf = '';
      server.stdout.on('data', (d) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)) as { url: string; openUrl: string });
      });
      server.on('exit', (code) => reject(new Error(`opencoder serve exited with ${code}: ${stderr}`)));
    });
    const token = new URLSearchParams(new URL(info.openUrl).hash.slice(1)).get('token')!;
    const call = async (name: string, input: object): Promise<unknown> => {
      const res = await fetch(`${info.url}/api/call/${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(input),
      });
      const body = (await res.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
      if (!body.ok) throw new Error(`${name}: ${body.error?.message}`);
      return body.value;
    };
    const connectMs = async (): Promise<number> => {
      const context = await browser.newContext({ viewport: { width: 1440, height: 960 } });
      try {
        const p = await context.newPage();
        await p.addInitScript(() => {
          const w = globalThis as unknown as { __openAt?: number; document: { querySelector(s: string): unknown } };
          new MutationObserver(() => {
            if (w.__openAt === undefined && w.document.querySelector('[data-testid="connection-state"][data-state="open"]')) w.__openAt = performance.now();
          }).observe(w.document as unknown as Node, { subtree: true, childList: true, attributes: true });
        });
        await p.goto(info.openUrl);
        await p.waitForSelector('[data-testid="connection-state"][data-state="open"]', { timeout: 60_000 });
        return await p.evaluate(() => (globalThis as unknown as { __openAt?: number }).__openAt ?? Number.NaN);
      } finally {
        await context.close();
      }
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    await connectMs(); // the first page load fills the browser's caches for both conditions alike
    const idle: number[] = [];
    for (let i = 0; i < 3; i++) idle.push(await connectMs());

    const repo = path.join(home, 'large');
    largeRepo(repo);
    const { jobId } = (await call('repo.index', { path: repo })) as { jobId: string };
    const job = async () =>
      ((await call('job.list', {})) as { id: string; state: string; progress: { phase: string; done: number } | null }[]).find((j) => j.id === jobId)!;
    for (let t = Date.now(); ;) {
      const j = await job();
      if (j.progress?.phase === 'parse' && j.progress.done >= 20) break;
      if (j.state !== 'running' || Date.now() - t > 120_000) throw new Error(`the index job never reached parsing (state ${j.state})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const busy: number[] = [];
    for (let i = 0; i < 3; i++) busy.push(await connectMs());
    const stillRunning = (await job()).state === 'running';
    await call('job.cancel', { jobId });
    if (!stillRunning) throw new Error('the index finished before the last page connected: the bench needs a larger repository');

    const idleMs = median(idle);
    const busyMs = median(busy);
    record(
      'UI connect while a 15 MB repository is indexed (navigation start to "open", median of 3)',
      `${busyMs.toFixed(0)} ms (max ${Math.max(...busy).toFixed(0)})`,
      `idle engine ${idleMs.toFixed(0)} ms`,
      `${(busyMs / idleMs).toFixed(2)}× idle`,
      `≤ ${TARGET_MS} ms`,
    );
    put('ui.connectWhileIndexingMs', Math.round(busyMs));
    put('ui.connectIdleMs', Math.round(idleMs));
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
}
