// Turns parsed units and values into API-knowledge entries: one per class, function and method, and
// one per Python module constant and class attribute.
import type { ApiEntry, ExtractedUnit, ExtractedValue, Language, Param, ParseResult } from '../model/code.ts';

/** Longest description kept; very long docstrings would drown the signature in the embedding. */
const MAX_DESCRIPTION = 2000;
const MAX_LISTED_METHODS = 25;
const MAX_VALUE_SIGNATURE = 200;

/**
 * One entry per function, method and class of a parse result, then one per module constant and class
 * attribute (`values`). Module units and definitions local to functions (`f.<locals>.g`) are left
 * out; `_private` names are kept.
 *
 * A class whose `__init__` (Python) or `constructor` (TS/JS) is known gets a signature of the form
 * `class Foo(Base); Foo(a, b=1)`: its own header, then how it is called (Python's `self` dropped).
 */
export function buildApiEntries(result: ParseResult): ApiEntry[] {
  const classes = new Map<string, ExtractedUnit>();
  const methodsOf = new Map<string, ExtractedUnit[]>();
  for (const u of result.units) {
    if (u.kind === 'class' && !classes.has(u.qualname)) classes.set(u.qualname, u);
    if (u.kind === 'method' && u.parentQualname !== null) {
      const list = methodsOf.get(u.parentQualname);
      if (list) list.push(u);
      else methodsOf.set(u.parentQualname, [u]);
    }
  }
  const out: ApiEntry[] = [];
  for (const u of result.units) {
    if (u.kind === 'module' || u.qualname.includes('<locals>')) continue;
    const owner = u.parentQualname !== null && (u.kind === 'method' || classes.has(u.parentQualname)) ? u.parentQualname : null;
    let signature = u.signature;
    const methods = methodsOf.get(u.qualname) ?? [];
    if (u.kind === 'class') {
      const ctorName = result.language === 'python' ? '__init__' : 'constructor';
      const ctor = methods.find((m) => m.name === ctorName);
      if (ctor) signature = `${u.signature}; ${u.name}(${renderParams(callParams(ctor, result.language), result.language)})`;
    }
    const doc = u.docstring?.trim();
    const description = clip(doc ? doc : derivedDescription(u, owner, result, methods));
    const fullName = result.module ? `${result.module}.${u.qualname}` : u.qualname;
    out.push({
      qualname: u.qualname,
      name: u.name,
      module: result.module,
      owner,
      kind: u.kind,
      signature,
      description,
      descriptionSource: doc ? 'docstring' : 'signature',
      // TS overloads say more about accepted arguments than the implementation signature does
      text: [fullName, ...(u.overloads ?? []), signature, description].join('\n'),
      startLine: u.startLine,
      endLine: u.endLine,
    });
  }
  for (const v of result.values) {
    if (v.qualname.includes('<locals>')) continue;
    out.push(valueEntry(v, result));
  }
  return out;
}

/** `LIMIT = 3` → an entry of kind constant; `Config.timeout: float = 1.0` → kind attribute. */
function valueEntry(v: ExtractedValue, result: ParseResult): ApiEntry {
  const fullName = result.module ? `${result.module}.${v.qualname}` : v.qualname;
  // The assignment's first line, whitespace collapsed; a cut (more lines, or a long line) is marked.
  const nl = v.text.indexOf('\n');
  let signature = (nl < 0 ? v.text : v.text.slice(0, nl)).replace(/\s+/g, ' ').trim();
  if (signature.length > MAX_VALUE_SIGNATURE) signature = signature.slice(0, MAX_VALUE_SIGNATURE - 2).trimEnd() + ' …';
  else if (nl >= 0) signature += ' …';
  const words = nameWords(v.name);
  const named = words && words !== v.name.toLowerCase() ? `${v.name} (${words})` : v.name;
  const where = result.module ? ` in module ${result.module}` : '';
  const description = v.kind === 'attribute' ? `Attribute ${named} of class ${v.owner}${where}.` : `Constant ${named} of module ${result.module}.`;
  return {
    qualname: v.qualname,
    name: v.name,
    module: result.module,
    owner: v.owner,
    kind: v.kind,
    signature,
    description,
    descriptionSource: 'signature',
    text: [fullName, v.text, description].join('\n'),
    startLine: v.startLine,
    endLine: v.endLine,
  };
}

/** Parameters a caller passes: Python methods lose their bound first parameter (`self`/`cls`). */
function callParams(u: ExtractedUnit, language: Language): Param[] {
  if (language !== 'python' || u.kind !== 'method' || u.decorators.includes('staticmethod')) return u.params;
  const first = u.params[0];
  if (first && (first.kind === 'positional_only' || first.kind === 'positional_or_keyword')) return u.params.slice(1);
  return u.params;
}

/** Renders parameters the way they are declared, with Python's `/` and `*` markers where needed. */
export function renderParams(params: Param[], language: Language): string {
  const parts: string[] = [];
  const py = language === 'python';
  let slashPending = py && params.some((p) => p.kind === 'positional_only');
  let starDone = false;
  for (const p of params) {
    if (slashPending && p.kind !== 'positional_only') {
      parts.push('/');
      slashPending = false;
    }
    if (py && p.kind === 'keyword_only' && !starDone) {
      parts.push('*');
      starDone = true;
    }
    if (p.kind === 'var_positional') starDone = true;
    let s = p.name;
    if (p.kind === 'var_positional') s = (py ? '*' : '...') + s;
    else if (p.kind === 'var_keyword') s = '**' + s;
    if (p.optional) s += '?';
    if (p.annotation) s += `: ${p.annotation}`;
    if (p.default !== null) s += p.annotation || !py ? ` = ${p.default}` : `=${p.default}`;
    parts.push(s);
  }
  if (slashPending) parts.push('/');
  return parts.join(', ');
}

/** `parse_header_line` → `parse header line`, `getUserName` → `get user name`. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_$#]+/g, ' ')
    .trim()
    .toLowerCase();
}

function derivedDescription(u: ExtractedUnit, owner: string | null, result: ParseResult, methods: ExtractedUnit[]): string {
  const where = result.module ? ` in module ${result.module}` : '';
  const words = nameWords(u.name);
  const named = words && words !== u.name.toLowerCase() ? `${u.name} (${words})` : u.name;
  if (u.kind === 'class') {
    const bases = classBases(u, result.language);
    let s = `${u.signature.startsWith('interface') ? 'Interface' : 'Class'} ${named}${where}${bases ? `, ${bases}` : ''}.`;
    const ctor = methods.find((m) => m.name === (result.language === 'python' ? '__init__' : 'constructor'));
    if (ctor) {
      const ps = callParams(ctor, result.language);
      s += ps.length > 0 ? ` Constructed with ${renderParams(ps, result.language)}.` : ' Constructed without arguments.';
    }
    const names = [...new Set(methods.map((m) => m.name).filter((n) => n !== '__init__' && n !== 'constructor'))];
    if (names.length > 0) {
      const shown = names.slice(0, MAX_LISTED_METHODS);
      s += ` Methods: ${shown.join(', ')}${names.length > shown.length ? ', …' : ''}.`;
    }
    return s;
  }
  let what = u.kind === 'method' ? 'Method' : 'Function';
  if (u.decorators.includes('property')) what = 'Property';
  else if (u.decorators.includes('staticmethod')) what = 'Static method';
  else if (u.decorators.includes('classmethod')) what = 'Class method';
  else if (u.signature.startsWith('get ')) what = 'Getter';
  else if (u.signature.startsWith('set ')) what = 'Setter';
  if (u.isAsync) what = `Async ${what.toLowerCase()}`;
  let s = `${what} ${named}${owner ? ` of class ${owner}` : ''}${where}.`;
  const ps = callParams(u, result.language);
  if (what !== 'Property' && what !== 'Getter') s += ps.length > 0 ? ` Parameters: ${renderParams(ps, result.language)}.` : ' Takes no arguments.';
  if (u.returns) s += ` Returns ${u.returns}.`;
  return s;
}

/** `class C(A, B)` → `derived from A, B`; `class C extends A implements I` → `extends A implements I`. */
function classBases(u: ExtractedUnit, language: Language): string {
  const sig = u.signature;
  const at = sig.indexOf(u.name);
  if (at < 0) return '';
  let rest = sig.slice(at + u.name.length);
  if (language === 'python') {
    if (rest.startsWith('[')) rest = rest.slice(matchingClose(rest, '[', ']') + 1);
    const inner = rest.startsWith('(') && rest.endsWith(')') ? rest.slice(1, -1).trim() : '';
    return inner ? `derived from ${inner}` : '';
  }
  const m = rest.match(/\b(extends|implements)\b.*$/);
  return m ? m[0] : '';
}

function matchingClose(s: string, open: string, close: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === open) depth++;
    else if (s[i] === close && --depth === 0) return i;
  }
  return s.length - 1;
}

function clip(s: string): string {
  if (s.length <= MAX_DESCRIPTION) return s;
  const cut = s.lastIndexOf('\n', MAX_DESCRIPTION);
  return s.slice(0, cut > MAX_DESCRIPTION / 2 ? cut : MAX_DESCRIPTION).trimEnd() + ' …';
}
