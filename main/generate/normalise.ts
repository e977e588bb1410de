// Behaviour-preserving normalisation of Python candidates, for self-consistency grouping. Done by Python itself
// (`python3 -I`): ast.parse → docstrings stripped → ast.dump (the group key) and ast.unparse (a canonical text).
// Comments, formatting, quote style and docstrings vanish; string contents and everything else that can change
// behaviour stay. Code that does not parse falls back to Python's tokenizer (comments and layout tokens
// dropped); code that does not even tokenize gets a group of its own.

import { spawn } from 'node:child_process';
import fs from 'node:fs';

export type NormaliseMethod = 'ast' | 'tokens' | 'none' | 'text';

export interface NormalisedCode {
  method: NormaliseMethod;
  /** Equal keys mean "the same program" for grouping; null: this candidate is only equal to itself. */
  key: string | null;
  /** Canonical text (what is embedded for semantic variance). */
  form: string;
  error?: string;
}

export interface PythonOptions {
  /** The interpreter (default: OPENCODER_PYTHON, else /usr/bin/python3 when present, else python3 on PATH). */
  python?: string;
  /** Whole-batch limit in ms (default 60 000). */
  timeoutMs?: number;
  /** Per-candidate limit in seconds, enforced inside Python where SIGALRM exists (default 5). */
  itemTimeoutS?: number;
}

const SCRIPT = String.raw`
import ast, hashlib, io, json, signal, sys, textwrap, tokenize

class _Late(Exception):
    pass

def _alarm(signum, frame):
    raise _Late()

def strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree

def digest(text):
    return hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()

def by_ast(code):
    tree = strip_docstrings(ast.parse(code))
    return {'method': 'ast', 'key': digest(ast.dump(tree)), 'form': ast.unparse(tree)}

LAYOUT = {tokenize.INDENT: '<indent>', tokenize.DEDENT: '<dedent>', tokenize.NEWLINE: '<newline>'}

def by_tokens(code):
    parts = []
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER):
            continue
        if tok.type in LAYOUT:
            parts.append(LAYOUT[tok.type])
            continue
        text = tok.string
        if tok.type == tokenize.STRING:
            try:
                text = repr(ast.literal_eval(text))
            except Exception:
                pass
        parts.append(text)
    joined = ' '.join(parts)
    return {'method': 'tokens', 'key': digest(joined), 'form': joined}

def normalise(code):
    code = textwrap.dedent(code)
    try:
        return by_ast(code)
    except _Late:
        raise
    except BaseException as e:
        first = '%s: %s' % (type(e).__name__, e)
    try:
        out = by_tokens(code)
        out['error'] = first
        return out
    except _Late:
        raise
    except BaseException as e:
        return {'method': 'none', 'key': None, 'form': code, 'error': first + '; ' + '%s: %s' % (type(e).__name__, e)}

def main():
    job = json.loads(sys.stdin.buffer.read().decode('utf-8'))
    limit = float(job.get('item_timeout_s', 5))
    timed = hasattr(signal, 'setitimer')
    if timed:
        signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(5000)
    out = []
    for code in job['codes']:
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, limit)
            out.append(normalise(code))
        except _Late:
            out.append({'method': 'none', 'key': None, 'form': code, 'error': 'timed out after %gs' % limit})
        finally:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout.write(json.dumps(out))

main()
`;

export function resolvePython(explicit?: string): string {
  if (explicit) return explicit;
  if (process.env.OPENCODER_PYTHON) return process.env.OPENCODER_PYTHON;
  return fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

function runPython(python: string, codes: string[], opts: PythonOptions): Promise<NormalisedCode[]> {
  return new Promise((resolve, reject) => {
    // -I: isolated (no user site, no PYTHON* variables); only PATH is passed on (to find a bare `python3`),
    // so API keys in the environment never reach the child.
    const child = spawn(python, ['-I', '-X', 'utf8', '-c', SCRIPT], { env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done(() => reject(new Error(`${python} did not finish normalising ${codes.length} candidates within ${opts.timeoutMs ?? 60_000} ms`)));
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => done(() => reject(new Error(`cannot run ${python}: ${e.message}`))));
    child.on('close', (code) => {
      done(() => {
        if (code !== 0) return reject(new Error(`${python} exited with code ${code}: ${Buffer.concat(err).toString('utf8').slice(-400)}`));
        try {
          const parsed = JSON.parse(Buffer.concat(out).toString('utf8')) as NormalisedCode[];
          if (!Array.isArray(parsed) || parsed.length !== codes.length) throw new Error(`expected ${codes.length} results`);
          resolve(parsed);
        } catch (e) {
          reject(new Error(`unreadable answer from ${python}: ${(e as Error).message}`));
        }
      });
    });
    child.stdin.on('error', () => {}); // a child that dies early closes stdin; 'close' reports it
    child.stdin.end(JSON.stringify({ codes, item_timeout_s: opts.itemTimeoutS ?? 5 }));
  });
}

export interface NormaliseResult {
  items: NormalisedCode[];
  /** Set when Python could not be used and candidates were grouped by exact text instead. */
  degraded: string | null;
}

/** Normalises many candidates in one Python process. Empty candidates are equal only to themselves. */
export async function normaliseCandidates(codes: string[], opts: PythonOptions = {}): Promise<NormaliseResult> {
  const python = resolvePython(opts.python);
  const todo = codes.map((c, i) => ({ c, i })).filter((x) => x.c.trim());
  const items: NormalisedCode[] = codes.map((c) => ({ method: 'none', key: null, form: c, error: 'empty candidate' }));
  if (!todo.length) return { items, degraded: null };
  try {
    const res = await runPython(
      python,
      todo.map((x) => x.c),
      opts,
    );
    todo.forEach((x, k) => (items[x.i] = res[k]!));
    return { items, degraded: null };
  } catch (e) {
    // Without Python there is no faithful normalisation: group by exact text, and say so.
    const why = (e as Error).message;
    for (const x of todo) items[x.i] = { method: 'text', key: `text:${x.c}`, form: x.c, error: why };
    return { items, degraded: `Python normalisation unavailable (${why}); candidates grouped by exact text` };
  }
}

/** Groups of indexes with equal keys, in order of first appearance; a null key is a group of its own. */
export function groupByKeys(keys: (string | null)[]): number[][] {
  const groups: number[][] = [];
  const byKey = new Map<string, number[]>();
  keys.forEach((k, i) => {
    if (k === null) {
      groups.push([i]);
      return;
    }
    let g = byKey.get(k);
    if (!g) {
      g = [];
      byKey.set(k, g);
      groups.push(g);
    }
    g.push(i);
  });
  return groups;
}

/** Self-consistency groups of candidates: indexes grouped by their normalised form, in order of first appearance. */
export async function groupCandidates(codes: string[], opts: PythonOptions = {}): Promise<number[][]> {
  const { items } = await normaliseCandidates(codes, opts);
  return groupByKeys(items.map((x) => x.key));
}
