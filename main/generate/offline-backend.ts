// The offline backend: no model at all. A deterministic retrieve-and-adapt generator that proposes candidates
// from the evidence: similar code renamed to the target signature with its parameters mapped, and thin wrappers
// that delegate to an API from the evidence. It exists so that the pipeline, the UI and the tests run without
// any model; every reply it produces says that it came from here.

import { OFFLINE_LABEL } from '../model/backend-label.ts';
import { sentences as requirementSentences } from '../retrieve/decompose.ts';
import { LlmError } from './errors.ts';
import { signatureName } from './prompts.ts';
import type { BackendCapabilities, ChatChoice, ChatRequest, ChatResponse, Evidence, GroundingContext, LlmBackend, PromptTask } from './types.ts';
import { bodyOf, headerOf, indent, isReceiver, moduleOf, parseFirstDef, realParams, renameIdentifiers, type Param } from './python-source.ts';

export const OFFLINE_MODEL = 'retrieve-and-adapt@1';

export interface Proposal {
  code: string;
  origin: string;
}

/** Similar code adapted to the target: header replaced by the target signature, parameters and recursion renamed. */
export function adaptSimilar(task: PromptTask, e: Evidence): Proposal | null {
  const target = parseFirstDef(headerOf(task.signature) + ' pass');
  const donor = parseFirstDef(e.text);
  if (!target || !donor) return null;
  const tAll = realParams(target.params);
  const dAll = realParams(donor.params);
  const tParams = tAll.filter((p) => !isReceiver(p));
  const dParams = dAll.filter((p) => !isReceiver(p));
  const map = new Map<string, string>();
  const free = new Set(tParams.map((t) => t.name));
  const mapped = new Set<string>();
  const bind = (d: Param, t: Param) => {
    if (d.name !== t.name) map.set(d.name, t.name);
    mapped.add(d.name);
    free.delete(t.name);
  };
  const same = (a?: string, b?: string) => a !== undefined && b !== undefined && a.replace(/\s+/g, '') === b.replace(/\s+/g, '');
  const compatible = (d: Param, t: Param) => !d.annotation || !t.annotation || same(d.annotation, t.annotation);
  // 1. same name; 2. one name inside the other; 3. same annotation; 4. by position among compatible ones;
  // 5. a required one takes what is left
  for (const d of dParams) {
    const t = tParams.find((x) => x.name === d.name && free.has(x.name));
    if (t) bind(d, t);
  }
  for (const d of dParams) {
    if (mapped.has(d.name)) continue;
    // `currency` → `default_currency`: one name inside the other
    const t = tParams.find((x) => free.has(x.name) && compatible(d, x) && (x.name.includes(d.name) || d.name.includes(x.name)));
    if (t) bind(d, t);
  }
  for (const d of dParams) {
    if (mapped.has(d.name)) continue;
    const t = tParams.find((x) => free.has(x.name) && same(x.annotation, d.annotation));
    if (t) bind(d, t);
  }
  for (const d of dParams) {
    if (mapped.has(d.name)) continue;
    const t = tParams.find((x) => free.has(x.name) && compatible(d, x));
    if (t) bind(d, t);
  }
  for (const d of dParams) {
    if (mapped.has(d.name) || d.default !== undefined) continue;
    const t = tParams.find((x) => free.has(x.name));
    if (t) bind(d, t);
  }
  // the receiver: a classmethod's `cls` becomes the class (or type(self) inside a method)
  const dRecv = isReceiver(dAll[0]) ? dAll[0]!.name : null;
  const tRecv = isReceiver(tAll[0]) ? tAll[0]!.name : null;
  if (dRecv && dRecv !== tRecv) {
    const owner = (e.qualname || e.title).split('.').slice(-2, -1)[0];
    if (dRecv === 'cls' && tRecv === 'self') map.set('cls', 'type(self)');
    else if (dRecv === 'cls' && owner) map.set('cls', owner);
    else if (dRecv === 'self' && tRecv === 'cls') map.set('self', 'cls');
  }
  if (donor.name !== target.name) map.set(donor.name, target.name);
  let body = renameIdentifiers(bodyOf(e.text, donor), map);
  // donor parameters the target lacks: bind them to their defaults so the body still runs
  const unbound = dParams.filter((d) => !mapped.has(d.name) && d.default !== undefined);
  if (unbound.length) body = `${unbound.map((d) => `${d.name} = ${d.default}`).join('\n')}\n${body}`;
  const renamed = dParams.filter((d) => map.has(d.name)).map((d) => `${d.name} → ${map.get(d.name)}`);
  const origin =
    `adapted from ${e.title} (${e.file}:${e.startLine}-${e.endLine})` +
    (renamed.length ? `; parameters ${renamed.join(', ')}` : '') +
    (unbound.length ? `; ${unbound.map((d) => `${d.name} → its default`).join(', ')}` : '');
  return { code: `${headerOf(task.signature)}\n${indent(body, 4)}\n`, origin };
}

/** A thin wrapper that delegates to an API item: `return api(args)` with the target's parameters mapped onto it. */
export function delegateToApi(task: PromptTask, e: Evidence): Proposal | null {
  const target = parseFirstDef(headerOf(task.signature) + ' pass');
  const api = parseFirstDef(e.text);
  if (!target || !api) return null;
  const tAll = realParams(target.params);
  const receiver = isReceiver(tAll[0]) ? tAll[0]!.name : null;
  const tParams = tAll.filter((p) => !isReceiver(p) && p.kind === 'normal');
  const aAll = realParams(api.params);
  const apiIsMethod = isReceiver(aAll[0]);
  const apiIsClassMethod = aAll[0]?.name === 'cls';
  const aParams = aAll.filter((p) => !isReceiver(p));
  // the owner class from the item's qualified name (`Money.from_cents`), else from its title
  const nameParts = (e.qualname || e.title).split(/[.\s]/).filter(Boolean);
  const at = nameParts.lastIndexOf(api.name);
  const owner = apiIsMethod && at > 0 ? nameParts[at - 1]! : null;
  const module = e.module || moduleOf(e.file);
  const targetOwner = task.qualname && task.qualname.includes('.') ? task.qualname.split('.').slice(-2, -1)[0]! : null;
  if (api.name === target.name && owner === targetOwner) return null; // never the target itself
  // a wrapper only makes sense when the API returns what the target must return
  const norm = (t: string | undefined) => t?.replace(/\s+/g, '').replace(/^['"]|['"]$/g, '');
  if (target.returns && api.returns && norm(target.returns) !== norm(api.returns)) return null;
  const free = [...tParams];
  const take = (p: Param | undefined) => {
    if (p) free.splice(free.indexOf(p), 1);
    return p;
  };
  let callee: string;
  let importLine = '';
  if (apiIsMethod) {
    if (owner && owner === targetOwner && receiver) callee = `${receiver}.${api.name}`;
    else if (owner && apiIsClassMethod) {
      callee = `${owner}.${api.name}`;
      if (e.file && e.file !== task.file) importLine = `from ${module} import ${owner}`;
    } else {
      const holder = take(free.find((p) => p.annotation && (p.annotation === owner || p.annotation.endsWith(`.${owner}`))));
      if (!holder) return null;
      callee = `${holder.name}.${api.name}`;
    }
  } else {
    callee = api.name;
    if (e.file && task.file && e.file !== task.file) importLine = `from ${module} import ${api.name}`;
  }
  const args: string[] = [];
  for (const a of aParams) {
    if (a.kind === 'star' || a.kind === 'double') continue;
    const byName = free.find((p) => p.name === a.name);
    const byType = !byName && a.annotation ? free.find((p) => p.annotation === a.annotation) : undefined;
    const chosen = take(byName ?? byType ?? (a.default === undefined && !a.keywordOnly ? free[0] : undefined));
    if (!chosen) {
      if (a.default !== undefined) continue;
      return null; // a required argument nothing maps to
    }
    args.push(a.keywordOnly || args.length < aParams.indexOf(a) ? `${a.name}=${chosen.name}` : chosen.name);
  }
  const call = `${api.isAsync ? 'await ' : ''}${callee}(${args.join(', ')})`;
  const body = `${importLine ? `${importLine}\n` : ''}return ${call}`;
  return { code: `${headerOf(task.signature)}\n${indent(body, 4)}\n`, origin: `delegates to ${e.title} (${e.file}:${e.startLine}-${e.endLine})` };
}

function ranked(items: Evidence[], guided: boolean): Evidence[] {
  // uncertainty-guided: the least uncertain evidence first (ties by fused score); baseline: fused order
  return guided ? [...items].sort((a, b) => a.u - b.u || b.gamma - a.gamma) : [...items];
}

/** Every distinct proposal for a task, best first. */
export function proposeCandidates(g: GroundingContext): Proposal[] {
  const similar = ranked(
    g.evidence.filter((e) => e.source === 'similar'),
    g.guided,
  );
  const apis = ranked(
    g.evidence.filter((e) => e.source === 'api'),
    g.guided,
  );
  const adapted = similar.map((e) => adaptSimilar(g.task, e)).filter((p): p is Proposal => p !== null);
  const delegated = apis.map((e) => delegateToApi(g.task, e)).filter((p): p is Proposal => p !== null);
  const out: Proposal[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < Math.max(adapted.length, delegated.length); i++) {
    for (const p of [adapted[i], delegated[i]]) {
      if (p && !seen.has(p.code)) {
        seen.add(p.code);
        out.push(p);
      }
    }
  }
  return out;
}

function stub(task: PromptTask): Proposal {
  return {
    code: `${headerOf(task.signature)}\n    raise NotImplementedError("offline backend: no similar code or API evidence to adapt")\n`,
    origin: 'no evidence to adapt: a stub that raises NotImplementedError',
  };
}

function decomposition(g: GroundingContext): string {
  const min = g.steps?.min ?? 2;
  const max = g.steps?.max ?? 6;
  const name = signatureName(g.task.signature);
  // The same sentence split as retrieval's own decomposition: not at an ellipsis, "e.g.", "etc." or a decimal.
  let sentences = requirementSentences(g.task.requirement);
  if (sentences.length > max) sentences = [...sentences.slice(0, max - 1), sentences.slice(max - 1).join(' ')];
  const steps = sentences.map((s, i) => ({
    text: s,
    // early steps lean on context (inputs, types), later ones on APIs and similar code
    weights: i === 0 && sentences.length > 1 ? { api: 0.3, context: 0.4, similar: 0.3 } : { api: 0.4, context: 0.2, similar: 0.4 },
    queries: { api: s, context: `${name} ${s}`, similar: s },
  }));
  while (steps.length < min) {
    const text =
      steps.length === 0
        ? `Find the inputs and context of ${name}: ${g.task.signature}`
        : `Implement ${name}: ${g.task.requirement.trim() || g.task.signature}`;
    steps.push({ text, weights: { api: 1 / 3, context: 1 / 3, similar: 1 / 3 }, queries: { api: text, context: text, similar: text } });
  }
  return JSON.stringify({ steps });
}

/** The offline backend. Deterministic: the same grounding always gives the same replies. */
export class OfflineBackend implements LlmBackend {
  readonly id = `offline:${OFFLINE_MODEL}`;
  readonly provider = 'offline' as const;
  readonly model = OFFLINE_MODEL;
  /** The name every user-facing place shows (model/backend-label.ts). */
  readonly label = OFFLINE_LABEL;
  readonly billing = 'none' as const;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: false, jsonSchema: true, network: false };

  async chat(req: ChatRequest): Promise<ChatResponse> {
    const started = performance.now();
    const g = req.grounding;
    if (!g) {
      throw new LlmError('config', this.id, 'The offline backend needs the structured task and evidence (request.grounding); it cannot answer free text.');
    }
    const warnings: string[] = [];
    let choices: ChatChoice[];
    if (g.purpose === 'decompose') {
      const text = decomposition(g);
      choices = Array.from({ length: req.n }, (_, index) => ({
        index,
        text,
        finishReason: 'stop',
        logprobs: null,
        origin: 'offline: requirement split into sentences',
      }));
    } else {
      let proposals = proposeCandidates(g);
      if (g.purpose === 'repair' && g.failing) {
        const failing = g.failing.trim();
        const others = proposals.filter((p) => p.code.trim() !== failing);
        if (others.length) proposals = others;
        else warnings.push('offline backend: no alternative to the failing candidate in the evidence');
      }
      if (!proposals.length) {
        proposals = [stub(g.task)];
        warnings.push('offline backend: no similar code or API evidence could be adapted; returned a stub that raises NotImplementedError');
      }
      if (proposals.length < req.n) warnings.push(`offline backend: ${proposals.length} distinct proposals, repeated to make ${req.n} candidates`);
      // cycling is offset by the call ordinal, so fill-up calls continue the sequence instead of restarting it
      const offset = (req.call ?? 0) * req.n;
      choices = Array.from({ length: req.n }, (_, index) => {
        const p = proposals[(offset + index) % proposals.length]!;
        return {
          index,
          text: `Offline retrieve-and-adapt candidate (no language model was used): ${p.origin}.\n\`\`\`python\n${p.code}\`\`\`\n`,
          finishReason: 'stop',
          logprobs: null,
          origin: `offline: ${p.origin}`,
        };
      });
    }
    return {
      provider: 'offline',
      billing: 'none',
      model: this.model,
      choices,
      usage: { inputTokens: 0, outputTokens: 0, source: 'zero' },
      calls: 0,
      retries: 0,
      latencyMs: performance.now() - started,
      warnings,
    };
  }
}
