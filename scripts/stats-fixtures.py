#!/usr/bin/env python3
"""Writes the reference fixtures for main/stats/stats.ts into test/fixtures/stats/*.json.

The values come from scipy / statsmodels / exact integer arithmetic, and from an independent Python
reimplementation of the seeded bootstrap (mulberry32 + numpy.quantile 'linear'), so the TypeScript is
checked against code it shares nothing with. CI does not need scipy: the tests read only the JSON.

Regenerate (Debian's python has scipy, statsmodels and numpy):
    /usr/bin/python3 scripts/stats-fixtures.py
then review the diff of test/fixtures/stats/ and commit it. Output is deterministic.
NaN is written as null (JSON has no NaN).
"""
import json
import math
import os
from fractions import Fraction

import numpy as np
import scipy
import statsmodels
from scipy.special import comb
from scipy.stats import binomtest, ttest_1samp
from statsmodels.stats.multitest import multipletests

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "fixtures", "stats")
M32 = 0xFFFFFFFF
GENERATOR = {"script": "scripts/stats-fixtures.py", "scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "numpy": np.__version__}


def clean(x):
    """Python floats (NaN → None) for JSON; numpy scalars/arrays unwrapped."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [clean(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return None if math.isnan(x) else x
    return x


def render(x, indent=0):
    """JSON with nesting indented, but lists/objects of plain values kept on one line (small, reviewable)."""
    flat = not any(isinstance(v, (dict, list)) for v in (x.values() if isinstance(x, dict) else x)) if isinstance(x, (dict, list)) else True
    if flat or (isinstance(x, list) and all(isinstance(v, list) and not any(isinstance(w, (dict, list)) for w in v) for v in x) and len(x) <= 12 and len(json.dumps(x)) < 400):
        return json.dumps(x, allow_nan=False, ensure_ascii=False)
    pad = "  " * (indent + 1)
    if isinstance(x, dict):
        body = [f"{pad}{json.dumps(k)}: {render(v, indent + 1)}" for k, v in x.items()]
        return "{\n" + ",\n".join(body) + "\n" + "  " * indent + "}"
    body = [pad + render(v, indent + 1) for v in x]
    return "[\n" + ",\n".join(body) + "\n" + "  " * indent + "]"


def write(name, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        f.write(render(clean(data)) + "\n")


# --- Pass@k: exact big-integer ratio -------------------------------------------------------------


def pass_at_k_exact(n, c, k):
    return float(1 - Fraction(int(comb(n - c, k, exact=True)), int(comb(n, k, exact=True))))


PASS_CASES = [
    (1, 0, 1), (1, 1, 1), (5, 0, 1), (5, 0, 5), (5, 5, 1), (5, 5, 5), (10, 3, 1), (10, 3, 5),
    (10, 3, 7), (10, 3, 8), (10, 5, 10), (10, 1, 10), (10, 9, 1), (20, 7, 4), (20, 1, 19),
    (100, 1, 1), (100, 37, 10), (200, 1, 1), (200, 1, 100), (200, 13, 10), (200, 3, 100),
    (200, 100, 50), (200, 199, 1), (200, 150, 51), (200, 0, 200), (200, 200, 200), (200, 2, 150),
]
write("pass-at-k.json", {
    "generator": GENERATOR,
    "source": "1 - comb(n-c, k, exact=True) / comb(n, k, exact=True) as an exact Fraction",
    "cases": [{"n": n, "c": c, "k": k, "expected": pass_at_k_exact(n, c, k)} for n, c, k in PASS_CASES],
})

# --- McNemar exact: scipy binomtest --------------------------------------------------------------

mc_pairs = [(w, l) for w in range(0, 9) for l in range(0, 9)]
mc_pairs += [(8, 1), (1, 8), (12, 30), (30, 12), (50, 50), (80, 100), (3, 17), (0, 25), (60, 0)]
mcnemar = []
for w, l in mc_pairs:
    p = 1.0 if w + l == 0 else binomtest(min(w, l), w + l, 0.5).pvalue
    mcnemar.append([w, l, p])
write("mcnemar.json", {
    "generator": GENERATOR,
    "source": "[wins, losses, scipy.stats.binomtest(min(w, l), w + l, 0.5).pvalue]; 1 when w + l = 0",
    "published": {"wins": 8, "losses": 1, "ties": 23, "p": binomtest(1, 9, 0.5).pvalue},
    "cases": mcnemar,
})

# --- Holm: statsmodels multipletests -------------------------------------------------------------


def holm_ref(p):
    """statsmodels on the non-NaN entries; NaN stays NaN in place (and does not count in m)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    keep = ~np.isnan(p)
    if keep.any():
        out[keep] = multipletests(p[keep], method="holm")[1]
    return out


rng = np.random.default_rng(20240611)
HOLM_CASES = [
    [0.01, 0.04, 0.03, 0.005],
    [0.01, 0.01, 0.02, 0.04],
    [0.03, 0.03, 0.03],
    [0.5, 0.9, 0.99, 0.999, 1.0],
    [0.001, 0.45, 0.98, 0.2],
    [0.2, 0.6, 0.4, 0.45],
    [0.03],
    [0.0, 0.001, 0.2],
    [0.04, float("nan"), 0.01, 0.3],
    list(np.round(rng.uniform(0, 0.2, size=10), 6)),
    list(rng.uniform(0, 0.1, size=6)),
]
write("holm.json", {
    "generator": GENERATOR,
    "source": "statsmodels.stats.multitest.multipletests(p, method='holm')[1] (NaN entries removed first, then put back as NaN)",
    "cases": [{"p": p, "expected": holm_ref(p)} for p in HOLM_CASES],
})

# --- One-sample t-test: scipy ttest_1samp --------------------------------------------------------

TT_CASES = [
    [1, 2, 3, 4, 5],
    [-0.5, 0.25, 0.75, -0.125, 0.5, 0.375],
    [0.1, -0.2],
    [0, 0, 0, 1],
    [2.5, 2.4, 2.6, 2.55, 2.45, 2.5, 2.52],
    [-1, -0.75, -0.5, -1.25, 0.25, -0.5, -0.25, -1, 0, -0.75, -0.5, -0.25],
    list(rng.normal(0.1, 1.0, size=15)),
    list(rng.normal(-3.0, 0.5, size=9)),
]
ttest = []
for v in TT_CASES:
    r = ttest_1samp(np.asarray(v, dtype=float), 0.0)
    ttest.append({"values": v, "t": r.statistic, "df": len(v) - 1, "p": r.pvalue, "mean": float(np.mean(v))})
write("ttest.json", {"generator": GENERATOR, "source": "scipy.stats.ttest_1samp(values, 0)", "cases": ttest})

# --- Bootstrap: independent mulberry32 + numpy.quantile('linear') --------------------------------


def mulberry32(seed):
    a = seed % 2**32

    def nxt():
        nonlocal a
        a = (a + 0x6D2B79F5) & M32
        t = ((a ^ (a >> 15)) * (a | 1)) & M32
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & M32)) & M32) ^ t
        return ((t ^ (t >> 14)) & M32) / 2**32

    return nxt


def resample_indices(n, seed, resamples):
    rnd = mulberry32(seed)
    return [[math.floor(rnd() * n) for _ in range(n)] for _ in range(resamples)]


def seq_mean(values, idx):
    s = 0.0
    for i in idx:
        s += values[i]
    return s / len(idx)


def boot(n, stat, seed=1, resamples=10_000, level=0.95):
    estimate = stat(list(range(n)))
    if n < 2:
        return {"estimate": estimate, "lo": float("nan"), "hi": float("nan")}
    vals = [stat(idx) for idx in resample_indices(n, seed, resamples)]
    vals = np.asarray([v for v in vals if not math.isnan(v)])
    alpha = 1 - level
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2], method="linear")
    return {"estimate": estimate, "lo": lo, "hi": hi}


binary20 = [int(x) for x in rng.integers(0, 2, size=20)]
frac15 = [float(x) for x in rng.integers(0, 6, size=15) / 5]
skew12 = [float(x) for x in np.round(rng.exponential(1.0, size=12), 4)]
arm_a = [float(x) for x in rng.integers(0, 5, size=14) / 4]
arm_b = [float(x) for x in rng.integers(0, 5, size=14) / 4]

OPTS = [{}, {"seed": 7}, {"seed": 123456789, "resamples": 2000, "level": 0.9}]


def with_defaults(o):
    return {"seed": o.get("seed", 1), "resamples": o.get("resamples", 10_000), "level": o.get("level", 0.95)}


mean_cases = []
for values in (binary20, frac15, skew12, [0.25, 0.75]):
    for o in OPTS:
        mean_cases.append({"values": values, "opts": o, **boot(len(values), lambda idx, v=values: seq_mean(v, idx), **with_defaults(o))})
paired_cases = []
for o in OPTS:
    diff = [x - y for x, y in zip(arm_a, arm_b)]  # mean(a) − mean(b) as the mean of per-task differences
    stat = lambda idx: seq_mean(diff, idx)  # noqa: E731
    paired_cases.append({"a": arm_a, "b": arm_b, "opts": o, **boot(len(arm_a), stat, **with_defaults(o))})


# Generic bootstrap with a statistic that is NaN for some resamples (those whose first index is a multiple of 3).
def nan_stat(idx, v=frac15):
    return float("nan") if idx[0] % 3 == 0 else seq_mean(v, idx)


nan_case = {"values": frac15, "rule": "NaN when indices[0] % 3 == 0, else the mean", "opts": {"seed": 11, "resamples": 3000},
            **boot(len(frac15), nan_stat, seed=11, resamples=3000)}

write("bootstrap.json", {
    "generator": GENERATOR,
    "source": "mulberry32 reimplemented in Python; index = floor(u * n) drawn in order; mean = sequential sum / n; "
              "numpy.quantile(stats, [(1-level)/2, 1-(1-level)/2], method='linear'); estimate on indices 0..n-1",
    "rng": [{"seed": s, "first": (lambda r: [r() for _ in range(5)])(mulberry32(s))} for s in (1, 0, 42, 2**32 - 1, 123456789)],
    "mean": mean_cases,
    "paired": paired_cases,
    "nanDropped": [nan_case],
})

# --- Factorial effects: explicit ±1 design matrix ------------------------------------------------

# Cells in stats.ts order: index = api*4 + context*2 + similar.
cells = np.array([[(c >> 2) & 1, (c >> 1) & 1, c & 1] for c in range(8)])
S = 2 * cells - 1  # ±1 coding, columns api, context, similar
EFFECTS = [
    ("API", "main", ["api"], S[:, 0]),
    ("Context", "main", ["context"], S[:, 1]),
    ("Similar code", "main", ["similar"], S[:, 2]),
    ("API × Context", "interaction", ["api", "context"], S[:, 0] * S[:, 1]),
    ("API × Similar code", "interaction", ["api", "similar"], S[:, 0] * S[:, 2]),
    ("Context × Similar code", "interaction", ["context", "similar"], S[:, 1] * S[:, 2]),
]
X = np.stack([e[3] for e in EFFECTS], axis=1).astype(float)  # 8 × 6 design


def factorial(Y, opts):
    C = Y @ X / 4  # tasks × 6 per-task contrasts
    o = with_defaults(opts)
    out = []
    for j, (name, kind, factors, _) in enumerate(EFFECTS):
        contrasts = [float(x) for x in C[:, j]]
        interval = boot(len(contrasts), lambda idx, v=contrasts: seq_mean(v, idx), **o)
        r = ttest_1samp(C[:, j], 0.0)
        out.append({"name": name, "kind": kind, "factors": factors, "value": interval, "p": r.pvalue, "contrasts": contrasts})
    adj = multipletests([e["p"] for e in out], method="holm")[1]
    for e, a in zip(out, adj):
        e["pHolm"] = a
    return out


# Binary outcomes with planted API and Context main effects and an API × Context interaction.
logit = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
base = rng.normal(0, 1, size=(12, 1))
lin = base - 0.8 + 1.6 * cells[:, 0] + 0.8 * cells[:, 1] - 0.9 * cells[:, 0] * cells[:, 1]
Y_binary = (rng.uniform(size=(12, 8)) < logit(lin)).astype(float)
Y_rates = np.round(np.clip(rng.uniform(size=(12, 8)) * 0.6 + 0.35 * cells[:, 2], 0, 1) * 10) / 10

write("factorial.json", {
    "generator": GENERATOR,
    "source": "contrasts = Y @ X / 4 with X the ±1 design (8 cells × 6 effects); bootstrap as in bootstrap.json; "
              "p = scipy.stats.ttest_1samp(contrasts, 0).pvalue; pHolm = statsmodels multipletests(p, 'holm')",
    "cases": [
        {"perTask": Y_binary, "opts": {}, "effects": factorial(Y_binary, {})},
        {"perTask": Y_rates, "opts": {"seed": 5, "resamples": 2000, "level": 0.9}, "effects": factorial(Y_rates, {"seed": 5, "resamples": 2000, "level": 0.9})},
    ],
})
# Paired sign-flip permutation test: scipy.stats.permutation_test with permutation_type='samples' on (d, 0),
# statistic mean(x − y), every pattern enumerated (n_resamples = inf), two-sided.
from scipy.stats import permutation_test  # noqa: E402


def sign_flip_ref(d):
    d = np.asarray(d, dtype=float)
    if not np.any(d != 0):
        return 1.0
    r = permutation_test((d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
                         n_resamples=np.inf, vectorized=True, alternative="two-sided")
    return float(r.pvalue)


perm_rng = np.random.default_rng(20261201)
perm_cases = [
    [1, 1, 1, 1, 1, 1, 1, 1, -1],                       # McNemar 8/1 (its 23 ties flip nothing): the exact binomial test
    [1, -1, 1, 0, 0, 1, -1, 1, 1, 1],
    [0.2, -0.1, 0.35, 0.0, 0.5, -0.25, 0.1, 0.4],       # Pass@k differences (fractions)
    [0.0] * 6,
    list(np.round(perm_rng.uniform(-0.6, 0.9, size=12), 3)),
    list(np.round(perm_rng.normal(0.1, 0.3, size=16), 3)),
]
write("permutation.json", {
    "generator": GENERATOR,
    "source": "scipy.stats.permutation_test((d, 0), mean(x - y), permutation_type='samples', n_resamples=inf, alternative='two-sided').pvalue; 1 when every d is 0",
    "cases": [[[float(x) for x in d], sign_flip_ref(d)] for d in perm_cases],
})

print("wrote", sorted(os.listdir(OUT)))
