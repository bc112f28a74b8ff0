"""Benchmark Bayesian networks (bnlearn repository files vendored from pgmpy, MIT) and forward sampling.

``load_network(name)`` reads ``data/<name>.bif.gz`` (discrete: asia, sachs, child, insurance, alarm) or
``data/<name>.json`` (linear Gaussian: ecoli70) with a small reader written here (no pgmpy at run time), and
returns a :class:`BayesianNetwork`; ``sample(n, random_state)`` draws n rows by ancestral sampling.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

import numpy as np

from .._validation import check_random_state

__all__ = ["BayesianNetwork", "load_network", "parse_bif", "NETWORKS"]

DATA = Path(__file__).resolve().parent / "data"
NETWORKS = {"asia": "asia.bif.gz", "sachs": "sachs.bif.gz", "child": "child.bif.gz",
            "insurance": "insurance.bif.gz", "alarm": "alarm.bif.gz", "ecoli70": "ecoli70.json"}


@dataclass
class BayesianNetwork:
    """A DAG with either conditional probability tables (discrete) or linear-Gaussian conditionals.

    Attributes
    ----------
    names : node names, in column order of sampled data.
    parents : parents[v] = list of parent indices.
    n_categories : (p,) category counts (discrete), or None (Gaussian).
    cpts : cpts[v] = array of shape (∏ parent categories, r_v), rows indexed by the parents' mixed-radix code
        (first parent most significant); rows sum to 1. Discrete only.
    coefficients, intercepts, variances : linear-Gaussian x_v = b_v + Σ w_vu x_u + N(0, σ²_v). Gaussian only.
    """

    names: List[str]
    parents: List[List[int]]
    n_categories: Optional[np.ndarray] = None
    cpts: Optional[List[np.ndarray]] = None
    coefficients: Optional[List[np.ndarray]] = None
    intercepts: Optional[np.ndarray] = None
    variances: Optional[np.ndarray] = None
    states: Optional[List[List[str]]] = field(default=None, repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def is_discrete(self) -> bool:
        return self.cpts is not None

    @property
    def adjacency(self) -> np.ndarray:
        """(p, p) int8 with A[u, v] = 1 for an arc u → v."""
        A = np.zeros((self.n_nodes, self.n_nodes), dtype=np.int8)
        for v, ps in enumerate(self.parents):
            A[ps, v] = 1
        return A

    def topological_order(self) -> List[int]:
        order, seen = [], [0] * self.n_nodes  # 0 new, 1 on stack, 2 done

        def visit(v):
            if seen[v] == 2:
                return
            if seen[v] == 1:
                raise ValueError("the network has a directed cycle")
            seen[v] = 1
            for u in self.parents[v]:
                visit(u)
            seen[v] = 2
            order.append(v)

        for v in range(self.n_nodes):
            visit(v)
        return order

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """n rows by ancestral sampling: int32 codes (discrete) or float64 values (Gaussian)."""
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        rng = check_random_state(random_state)
        p = self.n_nodes
        if self.is_discrete:
            X = np.zeros((n, p), dtype=np.int32)
            for v in self.topological_order():
                code = np.zeros(n, dtype=np.int64)
                for u in self.parents[v]:
                    code = code * self.n_categories[u] + X[:, u]
                cdf = np.cumsum(self.cpts[v], axis=1)[code]
                u01 = rng.random(n)[:, None]
                X[:, v] = np.minimum((u01 >= cdf).sum(axis=1), self.n_categories[v] - 1)
            return X
        X = np.zeros((n, p))
        for v in self.topological_order():
            mean = self.intercepts[v] + (X[:, self.parents[v]] @ self.coefficients[v] if self.parents[v] else 0.0)
            X[:, v] = mean + rng.normal(0.0, np.sqrt(self.variances[v]), size=n)
        return X


_VAR = re.compile(r"variable\s+([^\s{]+)\s*\{[^}]*?type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", re.S)
_PROB = re.compile(r"probability\s*\(\s*([^|)]+?)\s*(?:\|\s*([^)]*))?\)\s*\{(.*?)\}", re.S)
_NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def parse_bif(text: str) -> BayesianNetwork:
    """A discrete network from BIF text (``variable`` blocks with ``type discrete``, ``probability`` blocks with
    either ``table`` or one ``(parent states) probs;`` line per parent configuration)."""
    names, states = [], []
    for m in _VAR.finditer(text):
        names.append(m.group(1))
        st = [s.strip() for s in m.group(3).split(",") if s.strip()]
        if len(st) != int(m.group(2)):
            raise ValueError(f"variable {m.group(1)}: declared {m.group(2)} states, listed {len(st)}")
        states.append(st)
    if not names:
        raise ValueError("no discrete variables found in the BIF text")
    index = {nm: i for i, nm in enumerate(names)}
    cats = np.array([len(s) for s in states], dtype=np.int64)
    parents: List[List[int]] = [[] for _ in names]
    cpts: List[Optional[np.ndarray]] = [None] * len(names)
    for m in _PROB.finditer(text):
        v = index[m.group(1).strip()]
        ps = [index[x.strip()] for x in (m.group(2) or "").split(",") if x.strip()]
        parents[v] = ps
        body = m.group(3)
        rows = int(np.prod(cats[ps])) if ps else 1
        cpt = np.full((rows, cats[v]), np.nan)
        if re.search(r"\btable\b", body):
            vals = [float(x) for x in _NUM.findall(body.split("table", 1)[1])]
            if ps:  # the vendored files use 'table' only for root nodes; its layout with parents varies by writer
                raise ValueError(f"'table' CPT with parents ({names[v]}) is not supported; "
                                 "list one line per parent state")
            cpt[:] = np.array(vals).reshape(rows, cats[v])
        else:
            for line in body.split(";"):
                line = line.strip()
                if not line:
                    continue
                lm = re.match(r"\(([^)]*)\)\s*(.*)", line, re.S)
                if lm is None:
                    raise ValueError(f"cannot read CPT line {line!r} of {names[v]}")
                cfg = [x.strip() for x in lm.group(1).split(",")]
                code = 0
                for u, s in zip(ps, cfg):
                    code = code * cats[u] + states[u].index(s)
                cpt[code] = [float(x) for x in _NUM.findall(lm.group(2))]
        if np.isnan(cpt).any():
            raise ValueError(f"incomplete CPT for {names[v]}")
        cpts[v] = cpt / cpt.sum(axis=1, keepdims=True)
    for v, c in enumerate(cpts):
        if c is None:
            raise ValueError(f"no probability block for {names[v]}")
    return BayesianNetwork(names=names, parents=parents, n_categories=cats, cpts=cpts, states=states)


def _parse_gaussian_json(obj: dict) -> BayesianNetwork:
    names = list(obj["nodes"])
    index = {nm: i for i, nm in enumerate(names)}
    parents, coefs = [], []
    intercepts, variances = np.zeros(len(names)), np.zeros(len(names))
    for v, nm in enumerate(names):
        cpd = obj["cpds"][nm]
        ps = list(cpd.get("parents", []))
        parents.append([index[u] for u in ps])
        c = cpd["coefficients"]
        coefs.append(np.array([float(c[u][0]) for u in ps]))
        intercepts[v] = float(c["(Intercept)"][0])
        variances[v] = float(cpd["variance"][0])
    return BayesianNetwork(names=names, parents=parents, coefficients=coefs, intercepts=intercepts,
                           variances=variances)


def load_network(name: str) -> BayesianNetwork:
    """One of the vendored benchmark networks: asia, sachs, child, insurance, alarm (discrete), ecoli70 (Gaussian)."""
    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; choose one of {sorted(NETWORKS)}")
    path = DATA / NETWORKS[name]
    if path.suffix == ".json":
        return _parse_gaussian_json(json.loads(path.read_text()))
    with gzip.open(path, "rt") as fh:
        return parse_bif(fh.read())
