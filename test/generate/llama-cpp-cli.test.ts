// Issue 16, local models, through the CLI: `opencoder generate --backend llama-cpp --model FILE.gguf` on the sample
// repository's task runs a GGUF model in process (the tiny random-weight model of scripts/tiny-gguf.ts), prints
// and records candidates whose token entropy comes from log-probabilities, gives the estimate in time instead of
// money, and records each candidate's time. A model file name is looked up in --models; one that is not there
// is an error naming the path and the .gguf files found.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/tiny-gguf.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { REPO_ROOT } from '../validate/helpers.ts';
import { SAMPLE_MANIFEST } from './trace-fixture.ts';

const BIN = path.join(REPO_ROOT, 'bin', 'opencoder.js');

let dir: string;
let db: string;
let models: string;

beforeAll(async () => {
  dir = tmpDir('oc-llama-cli-');
  db = await copyIndexedSample(path.join(dir, 'w.db'), { encoder: 'default' });
  models = path.join(dir, 'models');
  fs.mkdirSync(models);
  // its vocabulary is small, so the sample task's prompt is ~4400 tokens: a training context to hold it
  writeTinyGguf(path.join(models, 'tiny-coder.gguf'), { contextLength: 8192 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const TASK = ['--manifest', SAMPLE_MANIFEST, '--id', 'inventory/add_tax', '--db', () => db, '--encoder', 'default', '--quiet'];
const args = (...more: string[]) => ['generate', ...TASK.map((a) => (typeof a === 'function' ? a() : a)), ...more];
/** One thread, a context for the long prompt, three seeded candidates of 24 tokens. */
const LOCAL = ['--backend', 'llama-cpp', '--threads', '1', '--context-size', '6144', '--candidates', '3', '--max-tokens', '24', '--seed', '5', '--json'];

describe('opencoder generate --backend llama-cpp', () => {
  it('runs a GGUF model on this machine: candidates with token entropy from log-probabilities, time per candidate, the estimate in time', async () => {
    const model = path.join(models, 'tiny-coder.gguf');
    const r = await cli(args('--model', model, ...LOCAL));
    expect(r.code, r.stderr.slice(0, 2000)).toBe(0);
    expect(r.stderr).toMatch(
      /Estimate before the run: 1 call\(s\), .*; time ≈ .* \(at most .*\) on this machine, not billed\. .*speed not measured yet: a rough guess/,
    );
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out.backend).toBe('llama-cpp:tiny-coder');
    expect(out.estimate.secondsExpected).toBeGreaterThan(0);
    expect(out.estimate.secondsMax).toBeGreaterThanOrEqual(out.estimate.secondsExpected);
    const set = out.result;
    expect(set.backend).toMatchObject({ provider: 'llama-cpp', model: 'tiny-coder', replayed: false });
    expect(set.candidates).toHaveLength(3);
    for (const c of set.candidates) {
      expect(c.tokens).toBe(24);
      expect(c.logprobs.tokens).toBe(24);
      expect(c.logprobs.meanEntropy).toBeGreaterThan(0);
    }
    expect(set.uncertainty.entropy.method).toBe('token-logprobs (top-k entropy, normalised; 3/3 candidates)');
    expect(set.cost).toMatchObject({ usd: 0 });
    expect(set.cost.note).toMatch(/local model tiny-coder: 0/);

    // the run was recorded: every exchange's response has each candidate's log-probabilities and time
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      const rows = conn.prepare(`SELECT provider, model, status, response FROM llm_exchanges WHERE run_id = ?`).all(out.run.id) as {
        provider: string;
        model: string;
        status: string;
        response: string;
      }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ provider: 'llama-cpp', model: 'tiny-coder' });
      const response = JSON.parse(rows[0]!.response);
      expect(response.billing).toBe('local');
      for (const ch of response.choices) {
        expect(ch.logprobs).toHaveLength(24);
        expect(ch.logprobs[0].top).toHaveLength(5);
        expect(ch.timing.wallMs).toBeGreaterThan(0);
        expect(ch.timing.tokensPerSecond).toBeGreaterThan(0);
      }
    } finally {
      conn.close();
    }

    // the same request again gives the same candidates (seeded), found by file name in --models this time
    const again = await cli(args('--model', 'tiny-coder', '--models', models, ...LOCAL));
    expect(again.code, again.stderr.slice(0, 2000)).toBe(0);
    const second = JSON.parse(again.stdout.trim().split('\n').at(-1)!).result;
    expect(second.candidates.map((c: { reply: string }) => c.reply)).toEqual(set.candidates.map((c: { reply: string }) => c.reply));

    // and the recorded run replays from the store with no model at all
    const moved = path.join(dir, 'moved.gguf');
    fs.renameSync(model, moved);
    try {
      const replay = await cli(args('--backend', 'replay', '--replay-run', out.run.id, '--candidates', '3', '--max-tokens', '24', '--seed', '5', '--json'));
      expect(replay.code, replay.stderr.slice(0, 2000)).toBe(0);
      const replayed = JSON.parse(replay.stdout.trim().split('\n').at(-1)!).result;
      expect(replayed.backend).toMatchObject({ provider: 'llama-cpp', model: 'tiny-coder', replayed: true });
      expect(replayed.candidates).toEqual(set.candidates);
    } finally {
      fs.renameSync(moved, model);
    }
  }, 120_000);

  it('names a model file that is not in the models folder and lists the ones that are', async () => {
    const r = await cli(args('--backend', 'llama-cpp', '--model', 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf', '--models', models));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: No GGUF model at ${path.join(models, 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf')}.`);
    expect(r.stderr).toContain(`The models folder ${models} holds: tiny-coder.gguf.`);
    const none = await cli(args('--backend', 'llama-cpp'));
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--backend llama-cpp needs --model FILE\.gguf/);
  }, 60_000);
});
