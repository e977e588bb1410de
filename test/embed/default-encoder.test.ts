import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Encoder } from '../../main/model/encoder.ts';
import { hashFeatures } from '../../main/embed/features.ts';
import { createHashEncoder, DEFAULT_ENCODER_NAME, defaultEncoderDir, loadHashEncoderSpec } from '../../main/embed/hash-encoder.ts';
import { randomInt8Table, referenceEmbed } from '../../main/embed/hash-table.ts';
import { buildDefaultEncoder, configText, DEFAULT_BUILD } from '../../scripts/build-default-encoder.ts';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

describe('shipped default encoder files', () => {
  const dir = defaultEncoderDir();
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));

  it('lives in resources/models/<name> with a model under 4 MB', () => {
    expect(path.basename(dir)).toBe(DEFAULT_ENCODER_NAME);
    expect(config.name).toBe(DEFAULT_ENCODER_NAME);
    expect(fs.statSync(path.join(dir, config.model)).size).toBeLessThan(4_000_000);
  });

  it("model file's sha256 matches its config", () => {
    const sha = crypto
      .createHash('sha256')
      .update(fs.readFileSync(path.join(dir, config.model)))
      .digest('hex');
    expect(sha).toBe(config.modelSha256);
  });

  it('is exactly what scripts/build-default-encoder.ts builds (deterministic)', () => {
    const a = buildDefaultEncoder(DEFAULT_BUILD);
    const b = buildDefaultEncoder(DEFAULT_BUILD);
    expect(Buffer.from(a.model).equals(Buffer.from(b.model))).toBe(true);
    expect(a.config.modelSha256).toBe(config.modelSha256);
    expect(configText(a.config)).toBe(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  });

  it('says honestly what it is', () => {
    expect(config.description).toMatch(/not a neural model/);
    expect(config.dim).toBe(256);
  });
});

describe('default encoder', () => {
  let enc: Encoder;
  beforeAll(async () => {
    enc = await createHashEncoder(await loadHashEncoderSpec(), { threads: 1 });
  });
  afterAll(async () => enc?.dispose());

  it('has a versioned id, name and dimension', () => {
    expect(enc.id).toMatch(/^opencoder-subtoken-hash-256@[0-9a-f]{12}$/);
    expect(enc.name).toBe('opencoder-subtoken-hash-256');
    expect(enc.dim).toBe(256);
  });

  it('returns unit vectors, one per text, also for empty and feature-less texts', async () => {
    const v = await enc.embed(['def f(x): return x', '', '   ', '1 + 2', 'parseHttpResponse']);
    expect(v).toHaveLength(5);
    for (const x of v) {
      expect(x).toHaveLength(256);
      expect(norm(x)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic across calls and instances', async () => {
    const texts = ['class Foo:\n    def bar(self): pass', 'function add(a, b) { return a + b; }'];
    const a = await enc.embed(texts);
    const b = await enc.embed(texts);
    const other = await createHashEncoder(await loadHashEncoderSpec(), { threads: 1 });
    const c = await other.embed(texts);
    await other.dispose();
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('matches a hand computation of the projection (plain JS over the same table)', async () => {
    const spec = await loadHashEncoderSpec();
    const table = randomInt8Table(spec.config.table.rows, spec.config.table.dim, spec.config.table.seed);
    const text = 'def parse_http_response(resp):\n    return json.loads(resp.text)';
    const [v] = await enc.embed([text]);
    const ref = referenceEmbed(hashFeatures(text, spec.config.features), table, spec.dim, spec.config.table.scale);
    for (let d = 0; d < spec.dim; d++) expect(v![d]).toBeCloseTo(ref[d]!, 5);
  });

  it('gives each text the same vector in a large mixed batch (several runs, padded rows) as alone', async () => {
    // widths from 1 to ~1500 features: the batch spans several runs under the cell bound, with padding
    const texts = Array.from({ length: 40 }, (_, i) => Array.from({ length: 1 + ((i * 37) % 400) }, (_, j) => `name${i}_${j}Word`).join(' '));
    const together = await enc.embed(texts);
    for (const i of [0, 7, 19, 39]) {
      const [alone] = await enc.embed([texts[i]!]);
      for (let d = 0; d < alone!.length; d++) expect(together[i]![d]).toBeCloseTo(alone![d]!, 5);
    }
  });

  it('ranks code with the same identifiers above unrelated code', async () => {
    const [q, same, other] = await enc.embed(['def parse_http_response(resp)', 'parseHttpResponse', 'def compute_checksum(data)']);
    expect(cos(q!, same!)).toBeGreaterThan(cos(q!, other!) + 0.3);
  });

  it('ranks morphological variants above unrelated words', async () => {
    const [a, b, c] = await enc.embed(['format_value(x)', 'valueFormatter', 'open_socket(port)']);
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!) + 0.2);
  });

  it('retrieves the right function for a natural-language query among several', async () => {
    const docs = [
      'def compute_checksum(data):\n    crc = 0\n    for byte in data:\n        crc = update_crc(crc, byte)\n    return crc',
      'def parse_http_response(raw):\n    header, body = raw.split(b"\\r\\n\\r\\n", 1)\n    return HttpResponse(parse_headers(header), body)',
      'def read_config_file(path):\n    with open(path) as fh:\n        return yaml.safe_load(fh)',
      'async function fetchUserProfile(userId) { const res = await api.get(`/users/${userId}`); return res.profile; }',
    ];
    const queries = ['checksum of the data', 'parse an http response', 'load the config file', 'fetch a user profile'];
    const dv = await enc.embed(docs);
    const qv = await enc.embed(queries);
    qv.forEach((q, i) => {
      const scores = dv.map((d) => cos(q, d));
      expect(scores.indexOf(Math.max(...scores)), queries[i]).toBe(i);
    });
  });

  it('returns results in input order whatever the batching', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `def f${i}(x):\n` + '    y = transform(x)\n'.repeat((i * 7) % 11));
    const together = await enc.embed(texts);
    const small = await createHashEncoder(await loadHashEncoderSpec(), { threads: 1, batchSize: 3 });
    const batched = await small.embed(texts);
    await small.dispose();
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await enc.embed([texts[i]!]);
      for (let d = 0; d < 256; d++) {
        expect(together[i]![d]).toBeCloseTo(alone![d]!, 6);
        expect(batched[i]![d]).toBeCloseTo(alone![d]!, 6);
      }
    }
  });
});

describe('default encoder id and integrity', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-hash-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function writeModel(name: string, seed: number, tweak?: (c: Record<string, unknown>) => void): string {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir, { recursive: true });
    const { model, config } = buildDefaultEncoder({ ...DEFAULT_BUILD, seed });
    tweak?.(config as unknown as Record<string, unknown>);
    fs.writeFileSync(path.join(dir, 'model.onnx'), model);
    fs.writeFileSync(path.join(dir, 'config.json'), configText(config));
    return dir;
  }

  it('changes when the model file or the config changes', async () => {
    const base = await loadHashEncoderSpec(writeModel('base', 1));
    const again = await loadHashEncoderSpec(writeModel('again', 1));
    const otherTable = await loadHashEncoderSpec(writeModel('table', 2));
    const otherFeatures = await loadHashEncoderSpec(writeModel('features', 1, (c) => ((c.features as { trigramWeight: number }).trigramWeight = 0.3)));
    expect(again.id).toBe(base.id);
    expect(otherTable.id).not.toBe(base.id);
    expect(otherFeatures.id).not.toBe(base.id);
    expect(new Set([base.id, otherTable.id, otherFeatures.id]).size).toBe(3);
  });

  it('refuses a model file that does not match its config', async () => {
    const dir = writeModel('tampered', 1);
    const bytes = fs.readFileSync(path.join(dir, 'model.onnx'));
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 1;
    fs.writeFileSync(path.join(dir, 'model.onnx'), bytes);
    await expect(loadHashEncoderSpec(dir)).rejects.toThrow(/does not match/);
  });

  it('names the missing file when the folder is incomplete', async () => {
    await expect(loadHashEncoderSpec(path.join(tmp, 'nowhere'))).rejects.toThrow(/config not found: .*nowhere/);
  });
});
