import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredEncoder, resolveEncoderSpec } from '../../main/embed/select.ts';
import { writeUnixcoderFolder } from '../../scripts/unixcoder-fixtures.ts';
import { makeTinyUnixcoder, type TinyUnixcoder } from './unixcoder-helpers.ts';

describe('resolveEncoderSpec', () => {
  let empty: string;
  let fx: TinyUnixcoder;
  beforeAll(() => {
    empty = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-no-models-'));
    fx = makeTinyUnixcoder();
  });
  afterAll(() => {
    fs.rmSync(empty, { recursive: true, force: true });
    fx?.cleanup();
  });

  it("'auto' without UniXcoder files: the default encoder, with a notice naming it and the missing file", async () => {
    const { spec, notice } = await resolveEncoderSpec({ prefer: 'auto', modelsDir: empty });
    expect(spec.kind).toBe('subtoken-hash');
    expect(spec.name).toBe('opencoder-subtoken-hash-256');
    expect(notice).not.toBeNull();
    expect(notice).toContain('opencoder-subtoken-hash-256');
    expect(notice).toContain(spec.id);
    expect(notice).toContain(path.join(empty, 'unixcoder-base', 'model.onnx'));
    expect(notice).toContain(path.join(empty, 'unixcoder-base', 'tokenizer.json'));
    expect(notice).toMatch(/not a neural model/);
  });

  it("'auto' is the default preference", async () => {
    const { spec, notice } = await resolveEncoderSpec({ modelsDir: empty });
    expect(spec.kind).toBe('subtoken-hash');
    expect(notice).toContain('unixcoder-base');
  });

  it("'auto' names only the file that is missing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-half-'));
    try {
      fs.mkdirSync(path.join(dir, 'unixcoder-base'));
      fs.writeFileSync(path.join(dir, 'unixcoder-base', 'model.onnx'), 'x');
      const { notice } = await resolveEncoderSpec({ modelsDir: dir });
      expect(notice).toContain(path.join(dir, 'unixcoder-base', 'tokenizer.json'));
      expect(notice).not.toContain('model.onnx');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("'auto' with UniXcoder files: UniXcoder, no notice", async () => {
    const { spec, notice } = await resolveEncoderSpec({ prefer: 'auto', modelsDir: fx.modelsDir });
    expect(spec.kind).toBe('unixcoder');
    expect(spec.id).toMatch(/^unixcoder-base@/);
    expect(notice).toBeNull();
  });

  it("'default': the default encoder even when UniXcoder is there, no notice", async () => {
    const { spec, notice } = await resolveEncoderSpec({ prefer: 'default', modelsDir: fx.modelsDir });
    expect(spec.kind).toBe('subtoken-hash');
    expect(notice).toBeNull();
  });

  it("'unixcoder' without its files: an error naming them", async () => {
    await expect(resolveEncoderSpec({ prefer: 'unixcoder', modelsDir: empty })).rejects.toThrow(
      new RegExp(`UniXcoder encoder requested but .*${path.join(empty, 'unixcoder-base', 'model.onnx')}`),
    );
  });

  it('rejects an unknown preference', async () => {
    await expect(resolveEncoderSpec({ prefer: 'bert' as 'auto', modelsDir: empty })).rejects.toThrow(/unknown encoder preference/);
  });
});

describe('openConfiguredEncoder', () => {
  let broken: string;
  let fx: TinyUnixcoder;
  beforeAll(() => {
    fx = makeTinyUnixcoder();
    broken = path.join(fx.modelsDir, 'broken');
    writeUnixcoderFolder(broken, { model: new TextEncoder().encode('garbage'), tokenizer: fx.tokenizerJson });
  });
  afterAll(() => fx?.cleanup());

  it("'auto' with a broken UniXcoder export falls back to the default encoder and says why", async () => {
    const { encoder, spec, notice } = await openConfiguredEncoder({ prefer: 'auto', modelsDir: broken, threads: 1 });
    try {
      expect(spec.kind).toBe('subtoken-hash');
      expect(encoder.dim).toBe(256);
      expect(notice).toMatch(/instead of unixcoder-base: cannot open encoder unixcoder-base@\w+: cannot load ONNX model/);
    } finally {
      await encoder.dispose();
    }
  });

  it("'unixcoder' with a broken export fails", async () => {
    await expect(openConfiguredEncoder({ prefer: 'unixcoder', modelsDir: broken, threads: 1 })).rejects.toThrow(/cannot load ONNX model/);
  });
});
