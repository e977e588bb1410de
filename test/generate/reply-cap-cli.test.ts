// Issue 15, bounded model replies, through the CLI: a server that answers with a 50 MB completion (it ignores
// max_tokens) must not fill the database, the terminal or the memory. `opencoder generate` stops reading at the
// reply's cap, refuses the reply (kind `oversized`, not retried), and stores only a short error row.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { REPO_ROOT } from '../validate/helpers.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { SAMPLE_MANIFEST } from './trace-fixture.ts';
import { GOOD_OPENAI_KEY, openAiError, oversizedOpenAiReply } from './wire.ts';

const BIN = path.join(REPO_ROOT, 'bin', 'opencoder.js');
const HUGE = 50_000_000;

let dir: string;
let db: string;
let server: MockServer;

beforeAll(async () => {
  dir = tmpDir('oc-reply-cap-');
  db = await copyIndexedSample(path.join(dir, 'w.db'), { encoder: 'default' });
  server = await startMock((req) =>
    req.url === '/v1/chat/completions' ? oversizedOpenAiReply('gpt-4o-mini', HUGE) : openAiError(404, `no ${req.url}`, 'invalid_request_error', null),
  );
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, OPENAI_API_KEY: GOOD_OPENAI_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('opencoder generate against a server that sends 50 MB replies', () => {
  it('refuses each reply at its cap, stops reading, keeps stdout and the database small, and does not retry', async () => {
    const r = await cli([
      'generate',
      ...['--manifest', SAMPLE_MANIFEST, '--id', 'inventory/add_tax', '--db', db, '--encoder', 'default', '--quiet'],
      ...['--backend', 'openai', '--model', 'gpt-4o-mini', '--base-url', `${server.origin}/v1`, '--candidates', '2'],
    ]);
    expect(r.code, r.stderr.slice(0, 2000)).toBe(1);
    // the refusal is named, with the backend, the model, the cap and how it was derived
    expect(r.stderr).toMatch(
      /error: the server at http:\/\/127\.0\.0\.1:\d+\/v1 sent a reply for gpt-4o-mini over the size cap: .*the cap is .*max_tokens 1024/,
    );
    expect(r.stderr).toMatch(/not retried/);
    // the decomposition call was refused too; retrieval fell back and generation went on to its own refusal
    expect(r.stdout.length + r.stderr.length).toBeLessThan(64 * 1024);

    // two calls (decomposition, generation), each answered once: an oversized reply is not retried
    expect(server.requests.map((q) => q.body.n)).toEqual([1, 2]);
    expect(server.streams).toHaveLength(2);
    for (const s of server.streams) {
      await s.closed;
      expect(s.cutShort).toBe(true); // the client hung up before the server had written everything
      expect(s.written).toBeLessThan(s.total / 2);
    }

    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      const rows = conn
        .prepare(`SELECT status, error, length(CAST(response AS BLOB)) AS response, length(CAST(request AS BLOB)) AS request FROM llm_exchanges`)
        .all() as { status: string; error: string | null; response: number | null; request: number }[];
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.status).toBe('error');
        expect(row.error).toMatch(/OversizedReplyError: .*over the size cap/);
        expect(row.response).toBeNull();
        expect(row.error!.length + row.request).toBeLessThan(64 * 1024);
      }
    } finally {
      conn.close();
    }
  });
});
