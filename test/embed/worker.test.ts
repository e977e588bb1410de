import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHashEncoderSpec } from '../../main/embed/hash-encoder.ts';
import { openEncoderInThread } from '../../main/embed/in-thread.ts';
import { openEncoder } from '../../main/embed/open.ts';
import { siblingModule } from '../../main/util/worker.ts';
import type { HashEncoderSpec } from '../../main/embed/spec.ts';
import { loadUnixcoderSpec } from '../../main/embed/unixcoder.ts';
import { buildTinyUnixcoderModel, writeUnixcoderFolder } from '../../scripts/unixcoder-fixtures.ts';
import { makeTinyUnixcoder, type TinyUnixcoder } from './unixcoder-helpers.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const texts = [
  'def parse_http_response(resp):\n    return resp.json()',
  'parseHttpResponse',
  '',
  'class Checksum:\n    def update(self, data): self.crc = crc32(data, self.crc)',
];

describe('openEncoder (worker thread)', () => {
  let spec: HashEncoderSpec;
  beforeAll(async () => {
    spec = await loadHashEncoderSpec();
  });

  it("picks the worker module with the caller's own extension (sources vs a build)", () => {
    expect(siblingModule('file:///x/main/embed/open.ts', 'worker').href).toBe('file:///x/main/embed/worker.ts');
    expect(siblingModule('file:///x/dist/embed/open.js', 'worker').href).toBe('file:///x/dist/embed/worker.js');
  });

  it('gives the same vectors as the in-thread encoder, in input order', async () => {
    const worker = await openEncoder(spec, { threads: 1 });
    const local = await openEncoderInThread(spec, { threads: 1 });
    try {
      expect({ id: worker.id, name: worker.name, dim: worker.dim }).toEqual({ id: local.id, name: local.name, dim: local.dim });
      const a = await worker.embed(texts);
      const b = await local.embed(texts);
      expect(a).toHaveLength(texts.length);
      a.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(b[i]!)));
      // concurrent calls each get their own results
      const [x, y] = await Promise.all([worker.embed([texts[0]!]), worker.embed([texts[3]!, texts[1]!])]);
      expect(Array.from(x[0]!)).toEqual(Array.from(b[0]!));
      expect(Array.from(y[0]!)).toEqual(Array.from(b[3]!));
      expect(Array.from(y[1]!)).toEqual(Array.from(b[1]!));
      expect(await worker.embed([])).toEqual([]);
    } finally {
      await worker.dispose();
      await local.dispose();
    }
  });

  it('rejects with a clear message when the model cannot be loaded, without hanging', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bad-model-'));
    try {
      const bad = path.join(tmp, 'model.onnx');
      fs.writeFileSync(bad, 'this is not an onnx file');
      // A hang would run into the test's time limit; what is asserted is the message.
      await expect(openEncoder({ ...spec, modelPath: bad }, { threads: 1 })).rejects.toThrow(
        new RegExp(`cannot open encoder ${spec.id}: cannot load ONNX model ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('dispose() ends the worker; later calls reject', async () => {
    const enc = await openEncoder(spec, { threads: 1 });
    await enc.embed(['x = 1']);
    await enc.dispose();
    await expect(enc.embed(['x'])).rejects.toThrow(/disposed/);
    await enc.dispose(); // twice is fine
  });

  const runChild = (...args: string[]) => {
    const out = execFileSync(process.execPath, [path.join(repoRoot, 'bin/run-ts.js'), path.join(repoRoot, 'test/embed/fixtures/worker-child.ts'), ...args], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    return JSON.parse(out.trim().split('\n').pop()!) as { id: string; dim: number; head: number[] };
  };

  it('works when started by `node bin/run-ts.js`, from any working directory', async () => {
    const res = runChild();
    expect(res.id).toBe(spec.id);
    expect(res.dim).toBe(256);
    const local = await openEncoderInThread(spec, { threads: 1 });
    const [v] = await local.embed(['def parse_http_response(resp)']);
    await local.dispose();
    res.head.forEach((x, i) => expect(x).toBeCloseTo(v![i]!, 6));
  });

  it('does not keep the process alive when an idle encoder is never disposed', () => {
    // runChild waits for the child to exit (execFileSync kills it and throws after 30 s if it never does).
    expect(runChild('--no-dispose').dim).toBe(256);
  });
});

describe('openEncoder with UniXcoder (tiny model)', () => {
  let fx: TinyUnixcoder;
  beforeAll(() => {
    fx = makeTinyUnixcoder();
  });
  afterAll(() => fx?.cleanup());

  it('runs tokenizer and model in the worker with the same results as in-thread', async () => {
    const spec = await loadUnixcoderSpec(fx.modelsDir);
    const worker = await openEncoder(spec, { threads: 1, batchSize: 2 });
    const local = await openEncoderInThread(spec, { threads: 1 });
    try {
      expect(worker.dim).toBe(8);
      const a = await worker.embed(texts);
      const b = await local.embed(texts);
      a.forEach((v, i) => v.forEach((x, h) => expect(x).toBeCloseTo(b[i]![h]!, 6)));
    } finally {
      await worker.dispose();
      await local.dispose();
    }
  });

  it('rejects a failing run with its error and keeps working afterwards', async () => {
    // a model whose vocabulary ends before the merged tokens: single bytes work, merged tokens are out of range
    const small = buildTinyUnixcoderModel(261, 8);
    const dir = path.join(fx.modelsDir, 'small-vocab');
    writeUnixcoderFolder(dir, { model: small.bytes, tokenizer: fx.tokenizerJson });
    const enc = await openEncoder(await loadUnixcoderSpec(dir), { threads: 1 });
    try {
      await expect(enc.embed(['def parse_http_response(resp): return resp'])).rejects.toThrow(/encoder unixcoder-base@\w+: .*(indices|out of|bounds)/i);
      expect(await enc.embed(['x'])).toHaveLength(1);
    } finally {
      await enc.dispose();
    }
  });

  it('rejects with the interface problem when the export does not fit', async () => {
    const spec = await loadUnixcoderSpec(fx.modelsDir);
    const hashModel = (await loadHashEncoderSpec()).modelPath; // a valid ONNX file with other inputs
    await expect(openEncoder({ ...spec, modelPath: hashModel }, { threads: 1 })).rejects.toThrow(/does not look like a UniXcoder encoder export.*no input_ids/);
  });
});
