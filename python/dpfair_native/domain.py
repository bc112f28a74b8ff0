"""Declared feature domains: the feature set K, membership and projection into it.

DP rule 1: sensitivities come from the declared domain, never from the data. A ``FeatureDomain`` is the set

    K = {x in R^d : lower <= x <= upper;  for each one-hot group G: x_G in {0, e_a : a in G};
                    ||x||_1 <= l1_cap;  ||x||_2 <= l2_cap}

(caps optional). Rows outside K are projected (``project(policy="clip")``, count reported) or rejected
(``policy="raise"``). Neighbouring relation for every sensitivity here: **replace-one** (one row (x, t)
replaced by any other row (x', t') of the domain), so each value is a max over pairs of rows.

The functional-mechanism sensitivity bounds are methods of ``FeatureDomain`` defined in
:mod:`dpfair_native._sensitivity_bounds`; the papers' own (looser, [0, 1]^d) formulas are in
:mod:`dpfair_native.paper_formulas`. Both are importable from here as before.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from ._sensitivity_bounds import (
    FunctionalSensitivity,
    _greedy_l2sq,
    _memoized,
    _waterfill_l1,
)
from .paper_formulas import (
    _check_d,
    paper_sensitivity_adfc_l2,
    paper_sensitivity_mu,
    paper_sensitivity_pdfc,
    paper_sensitivity_pflr,
    paper_sensitivity_privlr,
    paper_sensitivity_relaxed_fm_l2,
)

__all__ = [
    "AssumedDomainWarning",
    "FeatureDomain",
    "paper_sensitivity_privlr",
    "paper_sensitivity_pflr",
    "paper_sensitivity_mu",
    "paper_sensitivity_pdfc",
    "paper_sensitivity_relaxed_fm_l2",
    "paper_sensitivity_adfc_l2",
]


class AssumedDomainWarning(UserWarning):
    """A fit assumed a scale because no domain was declared: the functional mechanism's [0, 1]^d (values outside
    it are projected), or DP-SGD's features of order 1 when its released centre shows rows far beyond that."""


class FeatureDomain(FunctionalSensitivity):
    """A declared feature domain (see the module docstring for the set K).

    lower, upper: per-column bounds (length d, finite, lower <= upper). one_hot_groups: lists of column indices,
    disjoint; their columns must have bounds exactly [0, 1] and a row has at most one 1 per group.
    l1_cap, l2_cap: optional bounds on ||x||_1, ||x||_2 of a row. names: optional column names.
    """

    def __init__(
        self,
        lower,
        upper,
        *,
        one_hot_groups: Sequence[Sequence[int]] = (),
        l1_cap: Optional[float] = None,
        l2_cap: Optional[float] = None,
        names: Optional[Sequence[str]] = None,
    ):
        lo = np.array(lower, dtype=np.float64, copy=True)
        up = np.array(upper, dtype=np.float64, copy=True)
        if lo.ndim != 1 or lo.size == 0 or lo.shape != up.shape:
            raise ValueError("lower and upper must be 1-D arrays of the same length d >= 1, "
                             f"got {lo.shape} and {up.shape}")
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(up))):
            raise ValueError("lower and upper must be finite; declare a bounded domain (e.g. scale features to [0, 1])")
        bad = np.flatnonzero(lo > up)
        if bad.size:
            j = int(bad[0])
            raise ValueError(f"lower[{j}] = {lo[j]} > upper[{j}] = {up[j]}; every column needs lower <= upper")
        d = lo.size
        groups = []
        seen = set()
        for g in one_hot_groups:
            cols = tuple(int(j) for j in g)
            if len(cols) == 0:
                raise ValueError("one_hot_groups contains an empty group; drop it")
            for j in cols:
                if not 0 <= j < d:
                    raise ValueError(f"one_hot_groups refers to column {j}, outside 0..{d - 1}")
                if j in seen:
                    raise ValueError(f"column {j} appears twice in one_hot_groups; groups must be disjoint")
                seen.add(j)
                if lo[j] != 0.0 or up[j] != 1.0:
                    raise ValueError(f"one-hot column {j} must have bounds [0, 1], got [{lo[j]}, {up[j]}]")
            groups.append(cols)
        self._lower, self._upper = lo, up
        self._groups = tuple(groups)
        in_group = np.zeros(d, dtype=bool)
        for g in groups:
            in_group[list(g)] = True
        self._numeric = np.flatnonzero(~in_group)
        self._l1_cap = self._check_cap(l1_cap, "l1_cap")
        self._l2_cap = self._check_cap(l2_cap, "l2_cap")
        if names is None:
            self._names = tuple(f"x{j}" for j in range(d))
        else:
            self._names = tuple(str(s) for s in names)
            if len(self._names) != d:
                raise ValueError(f"names has {len(self._names)} entries for {d} columns")
        # |x_j| over column j's interval lies in [_amin_j, _amax_j].
        self._amax = np.maximum(np.abs(lo), np.abs(up))
        self._amin = np.abs(np.clip(0.0, lo, up))
        self._memo = {}  # results of the (pure) sensitivity and norm methods: the domain is immutable
        floor = np.clip(0.0, lo, up)  # the point of the box nearest 0 (groups at 0)
        if (self._l1_cap is not None and np.abs(floor).sum() > self._l1_cap) or (
            self._l2_cap is not None and np.sqrt(np.square(floor).sum()) > self._l2_cap
        ):
            raise ValueError("the domain is empty: the box's point nearest 0 already exceeds a norm cap; raise the cap")

    @staticmethod
    def _check_cap(cap, name):
        if cap is None:
            return None
        c = float(cap)
        if not np.isfinite(c) or c <= 0:
            raise ValueError(f"{name} must be a finite number > 0 or None, got {cap!r}")
        return c

    # -- constructors ----------------------------------------------------------------------------------------------
    @classmethod
    def unit_box(cls, d: int) -> FeatureDomain:
        """[0, 1]^d, the domain of Zhang et al., Xu et al. and Ding et al."""
        d = _check_d(d)
        return cls(np.zeros(d), np.ones(d))

    @classmethod
    def unit_ball(cls, d: int) -> FeatureDomain:
        """{x : ||x||_2 <= 1} (bounds [-1, 1], l2_cap = 1)."""
        d = _check_d(d)
        return cls(-np.ones(d), np.ones(d), l2_cap=1.0)

    @classmethod
    def from_dataset(cls, dataset) -> FeatureDomain:
        """Domain of a data set whose X is scaled to [0, 1]: numeric columns [0, 1], one-hot groups {0, 1}.

        ``dataset`` needs ``one_hot_groups`` and ``feature_names`` (e.g. ``datasets.load_adult()``); columns in no
        group (``numeric_columns`` and any other) get [0, 1]. Bounds are public (declared), not read from X.
        """
        names = tuple(dataset.feature_names)
        d = len(names)
        for j in getattr(dataset, "numeric_columns", ()):
            if not 0 <= int(j) < d:
                raise ValueError(f"dataset.numeric_columns refers to column {j}, outside 0..{d - 1}")
        return cls(np.zeros(d), np.ones(d), one_hot_groups=dataset.one_hot_groups, names=names)

    # -- properties ------------------------------------------------------------------------------------------------
    @property
    def d(self) -> int:
        return int(self._lower.size)

    @property
    def names(self) -> Tuple[str, ...]:
        return self._names

    @property
    def lower(self) -> np.ndarray:
        return self._lower.copy()

    @property
    def upper(self) -> np.ndarray:
        return self._upper.copy()

    @property
    def one_hot_groups(self) -> Tuple[Tuple[int, ...], ...]:
        return self._groups

    @property
    def l1_cap(self) -> Optional[float]:
        return self._l1_cap

    @property
    def l2_cap(self) -> Optional[float]:
        return self._l2_cap

    @property
    def numeric_columns(self) -> Tuple[int, ...]:
        return tuple(int(j) for j in self._numeric)

    def __repr__(self) -> str:
        return (
            f"FeatureDomain(d={self.d}, one_hot_groups={len(self._groups)}, l1_cap={self._l1_cap}, "
            f"l2_cap={self._l2_cap})"
        )

    @property
    def _capped(self) -> bool:
        return self._l1_cap is not None or self._l2_cap is not None

    @property
    def _nonnegative(self) -> bool:
        return bool(np.all(self._lower >= 0.0))

    def without_column(self, column: int) -> FeatureDomain:
        """The domain of x with column ``column`` removed (its group, if any, loses that column; caps kept).

        It contains the projection of this domain, so sensitivities computed on it are valid upper bounds for
        quantities that depend on the other columns only.
        """
        s = self._check_column(column)
        keep = np.array([j for j in range(self.d) if j != s])
        if keep.size == 0:
            raise ValueError("cannot remove the only column of a 1-column domain")
        remap = {int(j): i for i, j in enumerate(keep)}
        groups = [tuple(remap[j] for j in g if j != s) for g in self._groups]
        return FeatureDomain(
            self._lower[keep],
            self._upper[keep],
            one_hot_groups=[g for g in groups if g],
            l1_cap=self._l1_cap,
            l2_cap=self._l2_cap,
            names=[self._names[j] for j in keep],
        )

    def _check_column(self, column) -> int:
        if isinstance(column, bool) or not isinstance(column, (int, np.integer)) or not 0 <= column < self.d:
            raise ValueError(f"column must be an integer index in 0..{self.d - 1}, got {column!r}")
        return int(column)

    # -- norms ------------------------------------------------------------------------------------------------------
    def _group_counts_feasible(self):
        """Numbers g of active one-hot groups compatible with the caps (each active group adds 1 to ||x||_1 and
        ||x||_2²)."""
        amin = self._amin[self._numeric]
        out = []
        for g in range(len(self._groups) + 1):
            if self._l1_cap is not None and g + amin.sum() > self._l1_cap:
                continue
            if self._l2_cap is not None and g + np.square(amin).sum() > self._l2_cap**2:
                continue
            out.append(g)
        return out

    @_memoized
    def max_l1(self) -> float:
        """max ||x||_1 over the domain: exact.

        Without caps: Σ_numeric max(|l_j|, |u_j|) + #groups. With caps, for each feasible number g of active groups,
        the numeric part maximizes Σ v_j over v_j in [|x_j|min, |x_j|max] with Σ v_j² <= l2_cap² − g (water-filling
        v_j = clip(λ, ·, ·), the KKT solution), then min(l1_cap − g, ·) is added to g.
        """
        amax, amin = self._amax[self._numeric], self._amin[self._numeric]
        if not self._capped:
            return float(amax.sum() + len(self._groups))
        best = 0.0
        for g in self._group_counts_feasible():
            if self._l2_cap is None:
                w = float(amax.sum())
            else:
                w = _waterfill_l1(amin, amax, self._l2_cap**2 - g)
            if self._l1_cap is not None:
                w = min(w, self._l1_cap - g)
            best = max(best, g + w)
        return float(best)

    @_memoized
    def max_l2(self) -> float:
        """max ||x||_2 over the domain: exact without an L1 cap; with one, exact when every numeric interval
        contains 0 (otherwise an upper bound: lower bounds on |x_j| are relaxed to 0).

        With an L1 cap C (minus the g active groups), max Σ v_j² over 0 <= v <= amax, Σ v <= C is attained by
        filling the largest amax first: that vector weakly majorizes every feasible v and Σ v² is Schur-convex.
        """
        amax = self._amax[self._numeric]
        if not self._capped:
            return float(np.sqrt(np.square(amax).sum() + len(self._groups)))
        best = 0.0
        for g in self._group_counts_feasible():
            if self._l1_cap is None:
                sq = float(np.square(amax).sum())
            else:
                sq = _greedy_l2sq(amax, self._l1_cap - g)
            total = g + sq
            if self._l2_cap is not None:
                total = min(total, self._l2_cap**2)
            best = max(best, total)
        return float(np.sqrt(best))

    # -- membership and projection ------------------------------------------------------------------------------------
    def _as_rows(self, X) -> np.ndarray:
        X = np.array(X, dtype=np.float64, copy=True)
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.d:
            raise ValueError(f"X must be 2-D with {self.d} columns (the domain's d), got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinity; remove or impute those values first")
        return X

    def _group_violation(self, X):
        """(row, column) of the first one-hot violation (a value not in {0, 1}, or two 1s in a group), or None."""
        first = None
        for g in self._groups:
            cols = list(g)
            block = X[:, cols]
            bad_val = (block != 0.0) & (block != 1.0)
            two = block.sum(axis=1) > 1.0
            rows = np.flatnonzero(bad_val.any(axis=1) | two)
            if rows.size:
                i = int(rows[0])
                if bad_val[i].any():
                    c = cols[int(np.argmax(bad_val[i]))]
                else:
                    c = cols[int(np.flatnonzero(block[i] == 1.0)[1])]
                if first is None or (i, c) < first:
                    first = (i, c)
        return first

    def contains(self, X) -> np.ndarray:
        """Boolean mask: which rows of X lie in the domain (bounds, one-hot groups, caps; exact comparisons)."""
        X = self._as_rows(X)
        ok = np.all((X >= self._lower) & (X <= self._upper), axis=1)
        for g in self._groups:
            block = X[:, list(g)]
            ok &= np.all((block == 0.0) | (block == 1.0), axis=1) & (block.sum(axis=1) <= 1.0)
        if self._l1_cap is not None:
            ok &= np.abs(X).sum(axis=1) <= self._l1_cap
        if self._l2_cap is not None:
            ok &= np.sqrt(np.square(X).sum(axis=1)) <= self._l2_cap
        return ok

    def contains_all(self, X, *, pair_sums=None, n_threads=None) -> bool:
        """True when every row of X lies in the domain; exact, and without copying X (X: 2-D float array, d columns).

        Bounds from the minima/maxima of X (one flat pass when every column has the same bounds); one-hot columns
        must be exactly 0 or 1, and at most one 1 per group and row: with ``pair_sums`` — any positive multiple of
        Σ_i x_i x_iᵀ of this X, e.g. the Q a functional mechanism computes anyway — read from its within-group
        off-diagonal entries (a sum of non-negative 0/1 products is 0 iff every product is), else from row sums.
        Row norms against the caps. Use it to skip ``project`` on clean data. A scipy.sparse X is checked on its
        stored values and row sums (never densified). The native passes use up to ``n_threads`` threads (None:
        every core).
        """
        if _is_sparse(X):
            return self._contains_all_sparse(X, pair_sums, n_threads)
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.d:
            raise ValueError(f"X must be 2-D with {self.d} columns (the domain's d), got shape {X.shape}")
        if X.shape[0] == 0:
            return True
        lo, up = self._lower, self._upper
        with np.errstate(invalid="ignore"):  # NaN fails every comparison below, as it should
            if lo.min() == lo.max() and up.min() == up.max():  # one native pass (NumPy's min and max make two)
                from . import kernels

                inside = kernels.values_within(X, lo[0], up[0], n_threads=n_threads or 0,
                                               backend="native" if kernels.native_available() else "numpy")
            else:
                inside = np.all(X.min(axis=0) >= lo) and np.all(X.max(axis=0) <= up)
            if not inside:
                return False
            if self._groups:
                cols = self._group_columns()
                binary = ((X == 0.0) | (X == 1.0)).all(axis=0)
                if not binary[cols].all():
                    return False
                if pair_sums is not None:
                    if _pair_sums_break_groups(self._groups, pair_sums):
                        return False
                else:
                    for g in self._groups:
                        if len(g) > 1 and np.any(X[:, list(g)].sum(axis=1) > 1.0):
                            return False
            if self._capped and np.any(self._over_caps(X)):
                return False
        return True

    def _group_columns(self) -> np.ndarray:
        if "_group_cols" not in self._memo:
            self._memo["_group_cols"] = np.array(sorted(j for g in self._groups for j in g), dtype=np.int64)
        return self._memo["_group_cols"]

    def project(self, X, policy: str = "clip") -> Tuple[np.ndarray, int]:
        """Rows of X in the domain -> (float64 copy, number of rows changed). X is never modified.

        "clip": a broken one-hot group (a value not in {0, 1}, or two 1s) becomes the indicator of its largest
        entry if that entry is >= 0.5, else all zeros (ties: the first column); numeric columns are clipped to
        their bounds; then the numeric part of a row exceeding a norm cap is moved toward the box point nearest 0
        (x_j <- f_j + c·(x_j − f_j), c in [0, 1] the largest that satisfies the caps, found by bisection and kept on
        the feasible side), and a row whose one-hot part alone breaks a cap has its groups zeroed first. Every row
        is mapped into the domain, so a fit never aborts on the data (an abort would depend on one record).
        "raise": a ValueError naming a row and column (or cap) outside the domain — the first one-hot violation if
        any, else the first row outside the bounds, else the first over a cap; nothing is changed.
        """
        if policy not in ("clip", "raise"):
            raise ValueError(f"policy must be 'clip' or 'raise', got {policy!r}")
        if _is_sparse(X):
            return self._project_sparse(X, policy)
        X = self._as_rows(X)
        viol = self._group_violation(X)
        group_changed = np.zeros(X.shape[0], dtype=bool)
        if viol is not None and policy == "raise":
            i, c = viol
            raise ValueError(
                f"row {i}, column {c} ({self._names[c]}) breaks its one-hot group (values must be 0/1 with at most "
                "one 1 per group); encode categories as one-hot vectors or use policy='clip'"
            )
        if viol is not None:
            group_changed = self._repair_groups(X)
        num = self._numeric
        lo, up = self._lower[num], self._upper[num]
        Xn = X[:, num]
        if policy == "raise":
            out = (Xn < lo) | (Xn > up)
            if out.any():
                i = int(np.flatnonzero(out.any(axis=1))[0])
                c = int(num[int(np.argmax(out[i]))])
                raise ValueError(  # names the place, not the value: that belongs to the record
                    f"row {i}, column {c} ({self._names[c]}) is outside [{self._lower[c]}, {self._upper[c]}]; "
                    "scale the data or use policy='clip'"
                )
            for cap, name, norms in (
                (self._l1_cap, "L1", np.abs(X).sum(axis=1)),
                (self._l2_cap, "L2", np.sqrt(np.square(X).sum(axis=1))),
            ):
                if cap is not None and np.any(norms > cap):
                    i = int(np.flatnonzero(norms > cap)[0])
                    raise ValueError(f"row {i} has an {name} norm above {name.lower()}_cap = {cap}; "
                                     "use policy='clip'")
            return X, 0
        Xc = np.clip(Xn, lo, up)
        changed = np.any(Xc != Xn, axis=1) | group_changed
        X[:, num] = Xc
        if self._capped:
            changed |= self._shrink_to_caps(X)
        return X, int(changed.sum())

    def _repair_groups(self, X) -> np.ndarray:
        """In place: each broken one-hot group -> indicator of its largest entry if >= 0.5, else zeros. Returns
        the mask of changed rows."""
        changed = np.zeros(X.shape[0], dtype=bool)
        for g in self._groups:
            cols = list(g)
            block = X[:, cols]
            broken = np.any((block != 0.0) & (block != 1.0), axis=1) | (block.sum(axis=1) > 1.0)
            if not broken.any():
                continue
            rows = np.flatnonzero(broken)
            fixed = np.zeros((rows.size, len(cols)))
            top = np.argmax(block[rows], axis=1)
            keep = block[rows, top] >= 0.5
            fixed[np.flatnonzero(keep), top[keep]] = 1.0
            X[np.ix_(rows, cols)] = fixed
            changed[rows] = True
        return changed

    def _over_caps(self, X) -> np.ndarray:
        over = np.zeros(X.shape[0], dtype=bool)
        # norms in float64 whatever X's dtype: a float32 sum can round a row over a cap to within it
        if self._l1_cap is not None:
            over |= np.abs(X).sum(axis=1, dtype=np.float64) > self._l1_cap
        if self._l2_cap is not None:
            over |= np.sqrt(np.square(X, dtype=np.float64).sum(axis=1)) > self._l2_cap
        return over

    def _shrink_to_caps(self, X) -> np.ndarray:
        """In place: rows over a cap get their numeric part shrunk toward the box point nearest 0. Returns the mask."""
        rows = np.flatnonzero(self._over_caps(X))
        if rows.size == 0:
            return np.zeros(X.shape[0], dtype=bool)
        num = self._numeric
        floor = np.clip(0.0, self._lower[num], self._upper[num])
        R = X[rows]
        base = R.copy()
        base[:, num] = floor
        stuck = self._over_caps(base)
        if stuck.any():  # the one-hot part alone breaks a cap: zero it (the all-zero floor point is in the domain)
            group_cols = self._group_columns()
            R[np.ix_(np.flatnonzero(stuck), group_cols)] = 0.0
            base[np.ix_(np.flatnonzero(stuck), group_cols)] = 0.0
        delta = R[:, num] - floor
        lo = np.zeros(rows.size)
        hi = np.ones(rows.size)
        trial = base.copy()
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            trial[:, num] = floor + mid[:, None] * delta
            bad = self._over_caps(trial)
            hi = np.where(bad, mid, hi)
            lo = np.where(bad, lo, mid)
        trial[:, num] = floor + lo[:, None] * delta
        X[rows] = trial
        mask = np.zeros(X.shape[0], dtype=bool)
        mask[rows] = True
        return mask


def _pair_sums_break_groups(groups, pair_sums) -> bool:
    """Whether Σ_i x_ij x_ik (the Taylor Q, passed as ``pair_sums``) is non-zero for two columns of one one-hot group,
    i.e. some row has two 1s in a group (the values were already checked to be 0/1)."""
    S = np.asarray(pair_sums)
    return any(len(g) > 1 and np.any(S[np.ix_(g, g)][~np.eye(len(g), dtype=bool)] != 0.0) for g in groups)


# -- scipy.sparse rows --------------------------------------------------------------------------------------------
def _is_sparse(X) -> bool:
    from ._validation import is_scipy_sparse

    return is_scipy_sparse(X)


def _contains_all_sparse(self, X, pair_sums=None, n_threads=None) -> bool:
    """contains_all for a scipy.sparse X: the implicit zeros count as values (they must lie in every bound). One
    pass over the stored values by the native kernel when the extension is built, else its NumPy twin."""
    from . import kernels  # lazily: kernels imports modules that import this one

    if len(X.shape) != 2 or X.shape[1] != self.d:  # csr_in_domain converts (and checks) CSC and COO
        raise ValueError(f"X must be 2-D with {self.d} columns (the domain's d), got shape {X.shape}")
    backend = "native" if kernels.native_available() else "numpy"
    return kernels.csr_in_domain(X, self._lower, self._upper, [list(g) for g in self._groups], self._l1_cap,
                                 self._l2_cap, pair_sums=pair_sums, n_threads=n_threads, backend=backend)


def _project_sparse(self, X, policy: str):
    """project for a scipy.sparse X -> (CSR float64 copy, rows changed), by the dense rule row for row.

    Stored numeric values are clipped to their bounds in place (as the dense rule clips them); the rows still
    outside the domain (``_sparse_rows_outside``: a broken one-hot group, an implicit zero outside its column's
    bounds, a norm above a cap) are taken out as dense blocks, projected by the dense ``project`` and put back. The
    dense rule leaves an in-domain row unchanged, so sparse and dense X give the same rows, and "clip" never aborts
    on the data. "raise": the dense error for the first row outside."""
    import scipy.sparse as sp

    from .kernels import _check_sparse_structure

    _check_sparse_structure(X, "X")  # scipy's conversion and products trust it
    X = X.tocsr().astype(np.float64, copy=True)
    if len(X.shape) != 2 or X.shape[1] != self.d:
        raise ValueError(f"X must be 2-D with {self.d} columns (the domain's d), got shape {X.shape}")
    if not np.all(np.isfinite(X.data)):
        raise ValueError("X contains NaN or infinity; remove or impute those values first")
    X.sum_duplicates()  # canonical: one stored value per (row, column), as a dense row has
    n = X.shape[0]
    if policy == "raise":
        for i in np.flatnonzero(_sparse_rows_outside(self, X)):
            try:
                self.project(X[int(i)].toarray(), policy="raise")
            except ValueError as exc:  # the dense message names row 0 of the one-row block
                message = str(exc)
                raise ValueError(f"row {i}{message[len('row 0'):]}" if message.startswith("row 0") else message) \
                    from None
        return X, 0  # (a row flagged only near a cap is in the domain by the dense rule)
    numeric = _group_of(self)[X.indices] < 0
    clipped = np.where(numeric, np.clip(X.data, self._lower[X.indices], self._upper[X.indices]), X.data)
    changed = np.zeros(n, dtype=bool)
    changed[np.repeat(np.arange(n), np.diff(X.indptr))[clipped != X.data]] = True
    X.data = clipped
    outside = _sparse_rows_outside(self, X)
    rows = np.flatnonzero(outside)
    if rows.size == 0:
        return X, int(changed.sum())
    block = max(1, (1 << 22) // self.d)  # dense blocks of ~32 MiB
    fixed = []
    for k in range(0, rows.size, block):
        before = X[rows[k : k + block]].toarray()
        after, _ = self.project(before, policy="clip")
        changed[rows[k : k + block]] |= np.any(after != before, axis=1)
        fixed.append(sp.csr_matrix(after))
    kept = np.flatnonzero(~outside)
    stacked = sp.vstack([X[kept], *fixed], format="csr")
    position = np.empty(n, dtype=np.intp)
    position[np.concatenate([kept, rows])] = np.arange(n)
    out = stacked[position]
    out.sort_indices()
    return out, int(changed.sum())


def _group_of(self) -> np.ndarray:
    """group_of[j]: the index of column j's one-hot group, −1 for a numeric column."""
    if "_group_of" not in self._memo:
        group_of = np.full(self.d, -1, dtype=np.int64)
        for k, g in enumerate(self._groups):
            group_of[list(g)] = k
        self._memo["_group_of"] = group_of
    return self._memo["_group_of"]


def _sparse_rows_outside(self, X) -> np.ndarray:
    """Boolean mask of the rows of a canonical CSR X outside the domain, from the stored values only: a numeric
    value outside its bounds, a one-hot value not 0/1 or two 1s in a group, an implicit zero in a column whose
    bounds exclude 0, a norm above a cap."""
    n = X.shape[0]
    cols, v = X.indices, X.data
    row = np.repeat(np.arange(n), np.diff(X.indptr))
    g = _group_of(self)[cols]
    numeric = g < 0
    bad = np.zeros(n, dtype=bool)
    bad[row[numeric & ((v < self._lower[cols]) | (v > self._upper[cols]))]] = True
    bad[row[~numeric & (v != 0.0) & (v != 1.0)]] = True
    ones = ~numeric & (v == 1.0)
    n_groups = max(1, len(self._groups))
    keys = np.sort(row[ones].astype(np.int64) * n_groups + g[ones])  # (row, group) of every 1: a repeat is two 1s
    bad[keys[1:][keys[1:] == keys[:-1]] // n_groups] = True
    excludes_zero = (self._lower > 0.0) | (self._upper < 0.0)  # one-hot columns are [0, 1]: numeric ones only
    if excludes_zero.any():
        stored = np.bincount(row[excludes_zero[cols]], minlength=n)
        bad |= stored < int(excludes_zero.sum())
    # norms summed in another order than the dense rule's: rows within rounding of a cap are flagged too, and the
    # dense rule then decides them exactly (it leaves an in-domain row unchanged)
    near = 1.0 - 1e-9
    if self._l1_cap is not None:
        bad |= np.bincount(row, weights=np.abs(v), minlength=n) > near * self._l1_cap
    if self._l2_cap is not None:
        bad |= np.sqrt(np.bincount(row, weights=np.square(v), minlength=n)) > near * self._l2_cap
    return bad


FeatureDomain._contains_all_sparse = _contains_all_sparse
FeatureDomain._project_sparse = _project_sparse
