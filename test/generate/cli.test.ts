// The generation commands: generate (offline on the sample repository with real retrieval, replay of that run,
// OpenAI against a mock with a hand-made trace, estimate only) and prices.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON, type Command } from '../../main/host/cli/kit.ts';
import { main } from '../../main/host/cli/main.ts';
import { GENERATE_COMMAND, makeGenerateCommand } from '../../main/host/cli/commands/generate-commands.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { startMock, type MockServer } from './mock-http.ts';
import { GOOD_OPENAI_KEY, openAiHandler } from './wire.ts';
import { handMadeTrace, SAMPLE_MANIFEST } from './trace-fixture.ts';

let dir: string;
let db: string;
let server: MockServer;

beforeAll(async () => {
  dir = tmpDir('oc-gen-cli-');
  // The sample repository already indexed with the default encoder (--encoder default below).
  db = await copyIndexedSample(path.join(dir, 'w.db'), { encoder: 'default' });
  server = await startMock(
    openAiHandler({
      text: (i) => `\`\`\`python\ndef add_tax(amount, tax_class="standard"):\n    return amount${i % 2 ? '' : '  # same'}\n\`\`\``,
    }),
  );
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs a command object the way the CLI does (it is not registered yet). */
async function run(cmd: Command, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const parsed = parseArgs({ args, options: { ...COMMON, ...cmd.options }, allowPositionals: true, strict: true });
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
  const res = await cmd.run(parsed, io);
  return { res, text: res.text.join('\n'), err: err.join('\n'), json: res.json as Record<string, any> };
}

const COMMON_ARGS = () => ['--manifest', SAMPLE_MANIFEST, '--id', 'inventory/add_tax', '--db', db, '--encoder', 'default', '--quiet'];

describe('opencoder generate', () => {
  let offlineRun: string;
  let offlineCandidates: unknown;

  it('runs end to end with no model: sample repository, real retrieval, offline backend', async () => {
    const r = await run(GENERATE_COMMAND, [...COMMON_ARGS(), '--backend', 'offline']);
    expect(r.text).toMatch(/Task inventory\/add_tax — no model \(retrieval-only baseline\)/);
    expect(r.text).toMatch(/Candidate 1 \[group 1; offline: /);
    expect(r.text).toMatch(/Generation uncertainty \d\.\d{3} \(weights entropy 0.4 \/ consistency 0.4 \/ variance 0.2\)/);
    expect(r.text).toMatch(/Cost: \$0 — no model called: 0/);
    expect(r.json.result.candidates).toHaveLength(5);
    expect(r.json.result.uncertainty.variance.value).not.toBeNull();
    expect(r.json.run.id).toMatch(/^gen-/);
    offlineRun = r.json.run.id;
    offlineCandidates = r.json.result.candidates;
  });

  it('replays that run from the store', async () => {
    const r = await run(GENERATE_COMMAND, [...COMMON_ARGS(), '--backend', 'replay', '--replay-run', offlineRun]);
    expect(r.json.backend).toBe('replay:offline:retrieve-and-adapt@1');
    expect(r.json.result.backend.replayed).toBe(true);
    expect(r.json.result.candidates).toEqual(offlineCandidates);
    expect(r.json.run).toBeNull(); // a replay records nothing new
  });

  it('drives an OpenAI-compatible server with the key from the environment, and keeps the key out of output and database', async () => {
    const cmd = makeGenerateCommand({ retrieve: async () => handMadeTrace(), env: { OPENAI_API_KEY: GOOD_OPENAI_KEY } });
    const r = await run(cmd, [...COMMON_ARGS(), '--backend', 'openai', '--model', 'gpt-4o-mini', '--base-url', `${server.origin}/v1`, '--candidates', '4']);
    expect(r.err).toMatch(/Estimate before the run: 1 call\(s\), ~\d+ input tokens/);
    const body = server.requests.at(-1)!.body;
    expect(body).toMatchObject({ model: 'gpt-4o-mini', n: 4, temperature: 0.7, max_tokens: 1024, logprobs: true, top_logprobs: 5 });
    expect(body.messages[1].content).toMatch(/ū_A \(API knowledge\) = 0\.20/);
    expect(r.json.result.uncertainty.groups).toEqual([[0, 1, 2, 3]]); // they differ only in a comment
    expect(r.text).toMatch(/Tokens: 100 in, \d+ out \(reported\); 1 call\(s\), 0 retries/);
    expect(r.text).toMatch(/Cost: \$0\.0000\d+ — gpt-4o-mini at \$0.15\/M in, \$0.6\/M out \(as of 2026-11-29\)/);
    expect(r.text).toMatch(/Run total: 1 call\(s\) \(0 failed\)/);
    const everything = `${r.text}\n${r.err}\n${JSON.stringify(r.json)}`;
    expect(everything).not.toContain(GOOD_OPENAI_KEY);
    // Every file the run left, the vector packs' rows beside the database included.
    const bytes = fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => fs.statSync(path.join(dir, f)).isFile())
      .map((f) => fs.readFileSync(path.join(dir, f)).toString('latin1'))
      .join('');
    expect(bytes).not.toContain(GOOD_OPENAI_KEY);
  });

  it('estimates without calling the model', async () => {
    const before = server.requests.length;
    const cmd = makeGenerateCommand({ retrieve: async () => handMadeTrace(), env: { OPENAI_API_KEY: GOOD_OPENAI_KEY } });
    const r = await run(cmd, [...COMMON_ARGS(), '--backend', 'openai', '--base-url', `${server.origin}/v1`, '--estimate-only']);
    expect(server.requests.length).toBe(before);
    expect(r.json.estimate.calls).toBe(1);
    expect(r.json.estimate.outputTokensMax).toBe(5 * 1024);
    expect(r.json.estimate.usdMax).toBeCloseTo((r.json.estimate.inputTokens * 0.15 + 5 * 1024 * 0.6) / 1e6, 12);
  });

  it('refuses a missing key with the variable to set, and a bad backend as a usage error', async () => {
    const cmd = makeGenerateCommand({ retrieve: async () => handMadeTrace(), env: {} });
    await expect(run(cmd, [...COMMON_ARGS(), '--backend', 'openai'])).rejects.toThrow(/OPENAI_API_KEY/);
    await expect(run(cmd, [...COMMON_ARGS(), '--backend', 'claude'])).rejects.toThrow(/--backend must be one of offline, openai, gemini, replay, imported/);
  });
});

describe('opencoder prices', () => {
  it('shows the defaults and writes them for editing', async () => {
    const file = path.join(dir, 'prices.json');
    const shown = await main(['prices', '--prices', file, '--json'], { out: () => {}, err: () => {} });
    expect(shown).toBe(0);
    const out: string[] = [];
    expect(await main(['prices', '--prices', file, '--init'], { out: (l) => out.push(l), err: () => {} })).toBe(0);
    expect(out.join('\n')).toMatch(/gpt-4o-mini\s+0\.150\s+0\.600\s+2026-11-29/);
    const edited = JSON.parse(fs.readFileSync(file, 'utf8'));
    edited.models['qwen2.5-coder'] = { inputPerMTok: 0, outputPerMTok: 0, asOf: '2026-11-29' };
    fs.writeFileSync(file, JSON.stringify(edited));
    const again: string[] = [];
    await main(['prices', '--prices', file], { out: (l) => again.push(l), err: () => {} });
    expect(again.join('\n')).toMatch(/qwen2\.5-coder/);
    fs.writeFileSync(file, '{"version": 2}');
    const errs: string[] = [];
    expect(await main(['prices', '--prices', file], { out: () => {}, err: (l) => errs.push(l) })).toBe(1);
    expect(errs.join('\n')).toMatch(/The price table .*prices\.json is not valid/);
  });
});
