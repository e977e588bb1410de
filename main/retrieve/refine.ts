// Target-aware API refinement: from the API evidence, remove what cannot help write the target.
// Rules, in order (the first that applies is the recorded reason):
//   target          the target itself (same module and qualified name, or same name and signature)
//   self            another definition of the target's name (a copy or re-export of the answer)
//   redundant       the same canonical API as a better-ranked item: `X.__init__` ≡ `X`, re-exports
//                   (same name and signature in another module), overloads (same module and qualname)
//   incompatible    cannot or should not be called from the target: a private name of another module,
//                   a dunder method other than __init__
// "OpenCoder without API refinement" switches this off.

import type { Item } from '../store/items.ts';
import { canonicalOf } from './select-api.ts';

export interface RefineTarget {
  module: string | null;
  qualname: string | null;
  name: string;
  signature: string;
}

export interface Refinement {
  rule: 'target' | 'self' | 'redundant' | 'incompatible';
  reason: string;
}

const norm = (s: string) => s.replace(/\s+/g, '');

/** Canonical API identity: constructors collapse onto their class. */
export function canonicalApi(item: Item): string {
  return canonicalOf(item.module, item.qualname);
}

function sigKey(item: Item): string {
  // The def line without the module: re-exports and copies share it.
  const name = item.qualname.endsWith('.__init__') ? item.qualname.slice(0, -'.__init__'.length).split('.').pop()! : item.name;
  return `${name}|${norm(item.signature).replace(/^(class|def|asyncdef)/, '')}`;
}

/** Decides, for API items ranked best first, which are removed and why (index → refinement). */
export function refineApi(items: Item[], target: RefineTarget): Map<number, Refinement> {
  const removed = new Map<number, Refinement>();
  const seenCanonical = new Map<string, Item>();
  const seenSig = new Map<string, Item>();
  const targetSig = norm(target.signature).replace(/:$/, '');
  items.forEach((it, i) => {
    const isTarget =
      (target.module != null && target.qualname != null && it.module === target.module && it.qualname === target.qualname) ||
      (it.name === target.name && norm(it.signature).replace(/:$/, '') === targetSig);
    if (isTarget) {
      removed.set(i, { rule: 'target', reason: 'API refinement: the target itself' });
      return;
    }
    if (it.name === target.name && it.subkind !== 'class') {
      removed.set(i, { rule: 'self', reason: `API refinement: another definition of the target's name ${target.name} (self-retrieval)` });
      return;
    }
    const canon = canonicalApi(it);
    const prev = seenCanonical.get(canon);
    if (prev) {
      removed.set(i, { rule: 'redundant', reason: `API refinement: same API as ${prev.title} (constructor or overload)` });
      return;
    }
    const sk = sigKey(it);
    const prevSig = seenSig.get(sk);
    if (prevSig && prevSig.module !== it.module) {
      removed.set(i, { rule: 'redundant', reason: `API refinement: re-export of ${prevSig.title}` });
      return;
    }
    if (/^_[^_]/.test(it.name) && it.module !== target.module) {
      removed.set(i, { rule: 'incompatible', reason: `API refinement: private to ${it.module}, not importable from the target's module` });
      return;
    }
    if (/^__\w+__$/.test(it.name) && it.name !== '__init__') {
      removed.set(i, { rule: 'incompatible', reason: `API refinement: dunder method ${it.name} is not called directly` });
      return;
    }
    seenCanonical.set(canon, it);
    seenSig.set(sk, it);
  });
  return removed;
}
