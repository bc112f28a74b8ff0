"""Causal effects of a binary sensitive attribute S on an outcome Y in discrete data with a known causal DAG
(thesis ch. 7): total, path-specific and counterfactual effects by the g-formula (truncated factorisation).
NumPy only; used to score real and generated data alike.

Under a Markovian model with DAG G, P(v) = Π_V P(v | pa(V)). An intervention do(S = s) drops S's factor and
sets S = s in its children's factors. A path-specific intervention (Avin et al. 2005; Zhang, Wu & Wu 2017) gives
the children of S reached by the edges of π the value s⁺ and all other children the reference s⁻:

    P(y_{s⁺|π}) = Σ_{v ∖ s} Π_{C ∈ ch_π(S)} P(c | s⁺, pa(C)∖S) · Π_{C ∈ ch(S)∖ch_π(S)} P(c | s⁻, pa(C)∖S)
                  · Π_{V ∉ ch(S) ∪ {S}} P(v | pa(V)).

Here π is "all paths that leave S by one of the edges S → C, C in ``through``"; that is the thesis' "paths through
marital_status" when no other child of S is an ancestor of marital_status (true in the graph the reproduction
uses). TE = P(y⁺ | do(s⁺)) − P(y⁺ | do(s⁻)); SE_π = P(y⁺_{s⁺|π}) − P(y⁺_{s⁻}); the counterfactual effect given
O = o for O among the non-descendants of S equals P(y⁺ | do(s⁺), o) − P(y⁺ | do(s⁻), o) (identifiable then: the
non-descendants are unaffected by the intervention), the thesis' Table 7.2 quantity. Conditional probability
tables are the empirical frequencies; a parent configuration never seen falls back to the node's marginal.
"""

from __future__ import annotations

from itertools import product
from typing import Dict, List, Sequence

import numpy as np

__all__ = ["parents_of", "topological_order", "total_effect", "path_specific_effect", "counterfactual_effect"]

_MAX_CONFIGS = 2_000_000


def parents_of(graph, names: Sequence[str]) -> Dict[str, List[str]]:
    """{node: [parents]} from a dict {child: [parents]}, a list of (parent, child) edges, or a fully oriented
    ``dpfair_native.causal.CausalGraph`` (its ``cpdag`` and ``names``). Every node must be in ``names``."""
    names = list(names)
    parents: Dict[str, List[str]] = {v: [] for v in names}
    if hasattr(graph, "cpdag") and hasattr(graph, "names"):
        if graph.cpdag is None or graph.names is None:
            raise ValueError("a CausalGraph needs an oriented cpdag and names to be used as a causal DAG")
        A = np.asarray(graph.cpdag) != 0
        if np.any(A & A.T):
            raise ValueError("the CausalGraph has undirected edges; orient them (a DAG is needed)")
        edges = [(graph.names[i], graph.names[j]) for i, j in zip(*np.nonzero(A))]
    elif isinstance(graph, dict):
        edges = [(p, c) for c, ps in graph.items() for p in ps]
        unknown = [c for c in graph if c not in parents]
        if unknown:
            raise ValueError(f"graph names nodes {unknown} that are not columns of the data {names}")
    else:
        edges = [tuple(e) for e in graph]
    for p, c in edges:
        if p not in parents or c not in parents:
            raise ValueError(f"graph edge {p!r} -> {c!r} names a node that is not a column of the data {names}")
        if p not in parents[c]:
            parents[c].append(p)
    topological_order(parents)
    return parents


def topological_order(parents: Dict[str, List[str]]) -> List[str]:
    """Nodes with every parent before its children; ValueError if the graph has a cycle."""
    order, done, stack = [], set(), set()

    def visit(v):
        if v in done:
            return
        if v in stack:
            raise ValueError(f"the causal graph has a cycle through {v!r}; a DAG is needed")
        stack.add(v)
        for p in parents[v]:
            visit(p)
        stack.discard(v)
        done.add(v)
        order.append(v)

    for v in parents:
        visit(v)
    return order


def descendants(parents: Dict[str, List[str]], node: str) -> set:
    children = {v: [c for c in parents if v in parents[c]] for v in parents}
    out, todo = set(), [node]
    while todo:
        for c in children[todo.pop()]:
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


class _Model:
    """Empirical CPTs of discrete data over a DAG: codes (n × k), categories per column."""

    def __init__(self, data, graph):
        from ._common import as_table

        table, self.names, _ = as_table(data, "data")
        self.parents = parents_of(graph, self.names)
        self.categories = [np.unique(table[:, j]) for j in range(table.shape[1])]
        self.cards = [len(c) for c in self.categories]
        codes = np.column_stack([np.searchsorted(self.categories[j], table[:, j]) for j in range(len(self.names))])
        self.cpt = {v: self._table(codes, v) for v in self.names}

    def index(self, name):
        if name not in self.names:
            raise ValueError(f"{name!r} is not a column of the data {self.names}")
        return self.names.index(name)

    def _table(self, codes, v):
        j = self.index(v)
        pa = [self.index(p) for p in self.parents[v]]
        k = self.cards[j]
        marginal = np.bincount(codes[:, j], minlength=k) / codes.shape[0]
        shape = [self.cards[p] for p in pa]
        flat = np.ravel_multi_index(codes[:, pa].T, shape) if pa else np.zeros(codes.shape[0], dtype=np.int64)
        counts = np.zeros((int(np.prod(shape)) if pa else 1, k))
        np.add.at(counts, (flat, codes[:, j]), 1.0)
        tot = counts.sum(axis=1, keepdims=True)
        return np.where(tot > 0, counts / np.maximum(tot, 1), marginal)

    def binary(self, name):
        j = self.index(name)
        if self.cards[j] != 2:
            raise ValueError(f"{name!r} must be binary for a causal effect, it has values {list(self.categories[j])}")
        return j

    def prob_outcome(self, sensitive, outcome, s_of_child, context=None):
        """P(outcome = larger value | intervention) with S's value in child C's factor = s_of_child(C) (a code),
        optionally conditioned on {name: code} of non-descendants of S."""
        js, jy = self.binary(sensitive), self.binary(outcome)
        free = [j for j in range(len(self.names)) if j != js]
        if np.prod([self.cards[j] for j in free], dtype=float) > _MAX_CONFIGS:
            raise ValueError("too many joint configurations for exact g-formula sums; bin the variables coarser")
        grid = np.array(list(product(*[range(self.cards[j]) for j in free])), dtype=np.int64)
        full = np.zeros((grid.shape[0], len(self.names)), dtype=np.int64)
        full[:, free] = grid
        weight = np.ones(grid.shape[0])
        for v in self.names:
            j = self.index(v)
            if j == js:
                continue
            cols = full.copy()
            if sensitive in self.parents[v]:
                cols[:, js] = s_of_child(v)
            pa = [self.index(p) for p in self.parents[v]]
            flat = np.ravel_multi_index(cols[:, pa].T, [self.cards[p] for p in pa]) if pa else 0
            weight *= self.cpt[v][flat, full[:, j]]
        if context:
            keep = np.all([full[:, self.index(k)] == c for k, c in context.items()], axis=0)
            weight = weight * keep
        total = weight.sum()
        return float(weight[full[:, jy] == 1].sum() / total) if total > 0 else float("nan")


def total_effect(data, graph, *, sensitive: str, outcome: str) -> float:
    """TE = P(y⁺ | do(s⁺)) − P(y⁺ | do(s⁻)) (larger values are ⁺) of discrete ``data`` (DataFrame) on DAG ``graph``."""
    m = _Model(data, graph)
    return m.prob_outcome(sensitive, outcome, lambda c: 1) - m.prob_outcome(sensitive, outcome, lambda c: 0)


def path_specific_effect(data, graph, *, sensitive: str, outcome: str, through: Sequence[str]) -> float:
    """SE_π = P(y⁺_{s⁺|π}) − P(y⁺_{s⁻}), π = the paths leaving S by an edge S → C with C in ``through`` (the
    indirect discrimination of the thesis when ``through`` avoids the direct edge S → Y), reference s⁻."""
    m = _Model(data, graph)
    through = list(through)
    bad = [c for c in through if sensitive not in m.parents.get(c, [])]
    if bad or not through:
        raise ValueError(f"through must name children of {sensitive!r}; {bad or through} are not")
    on_pi = m.prob_outcome(sensitive, outcome, lambda c: 1 if c in through else 0)
    return on_pi - m.prob_outcome(sensitive, outcome, lambda c: 0)


def counterfactual_effect(data, graph, *, sensitive: str, outcome: str, context: Sequence[str]) -> Dict[tuple, float]:
    """{o: P(y⁺ | do(s⁺), o) − P(y⁺ | do(s⁻), o)} for every value combination o of the ``context`` variables, which
    must be non-descendants of S (then the counterfactual effect is identified and equals this)."""
    m = _Model(data, graph)
    context = list(context)
    for c in context:
        m.index(c)
    down = descendants(m.parents, sensitive)
    if any(c in down or c == sensitive for c in context):
        raise ValueError(f"context {context} must avoid {sensitive!r} and its descendants {sorted(down)}")
    out = {}
    for combo in product(*[range(m.cards[m.index(c)]) for c in context]):
        ctx = dict(zip(context, combo))
        key = tuple(m.categories[m.index(c)][k] for c, k in ctx.items())
        out[key] = (m.prob_outcome(sensitive, outcome, lambda c: 1, ctx)
                    - m.prob_outcome(sensitive, outcome, lambda c: 0, ctx))
    return out
