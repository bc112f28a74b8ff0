"""Fitting and evaluating on Dask arrays: the sufficient statistics as per-partition sums on the workers.

Everything the functional-mechanism family releases is a sum over rows — b = Σ a_i x̃_i, Q = ⅛ Σ x̃_i x̃_iᵀ, the
per-group sums of x and the group counts — and so is each Newton step of the exact logistic regression
(gradient Σ (p_i − y_i) x̃_i, Hessian Σ p_i(1 − p_i) x̃_i x̃_iᵀ). With ``X`` a ``dask.array.Array`` chunked by rows,
each partition's sums are computed by the native kernel on the worker that holds (or generates, or reads) the
partition, the partial sums are added in a tree (``SPLIT_EVERY`` at a time), and only the (d + 1)² numbers reach
the client. X is never materialised on the client; the client holds O(d²) numbers, plus, for the fairness
metrics, the distinct (label, prediction, group) tuples with their counts.

Privacy: the noise is drawn once, on the client, by the estimator's own release code (``FunctionalBase._fit_rows``)
with the estimator's rng, in the same order as the in-memory fit; the sensitivities come from the declared domain
exactly as there. ``max_features`` is decided as in memory (``FunctionalBase._select``: a public rule of n, d, the
budget and the declared domain, never of the data); where that runs the private feature selection, its sums
(the positive count and two per-column sums of the rows clipped to the box, ``_selection_block``) take one more
pass over the partitions and its noise is drawn on the client before the release's, as in memory. Domain
projection (``domain_policy``) is applied per partition before its sums are taken — projection is row by row, so
the projected data set is the same as in memory. How many rows were projected is not computed (it is an un-noised
function of the data, see ``_functional_core.taylor_terms_in_domain``).

Same seed, same release: the sums equal the in-memory sums up to float64 summation order (each partial sum is
exact to ~1e-16 relative, the reduction adds O(log #partitions) roundings), so with the same ``random_state`` the
noisy release equals the in-memory one to ~1e-13 relative to the largest sum, and the noiseless (ε = inf)
coefficients to 1e-9 relative (tested), with or without a feature selection. Two rounding caveats: with a snapping
mechanism (a secure noise path rounding to a grid), an output whose exact value lies within ~1e-13 of a grid
boundary could round to the neighbouring grid point; and a selection picks another column only if two noisy
utilities tie to ~1e-12 relative. Same release needs the same declared domain: a Dask array does not carry a
DomainEncoder output's ``domain`` (pass ``domain=encoder.domain_``; see ``fit_dask``).

Chunking: to fit, X must be 2-D with known chunk sizes along the rows (``X.compute_chunk_sizes()`` or
``ddf.to_dask_array(lengths=True)`` otherwise; a Dask DataFrame gets them from its lengths, one pass); prediction
takes unknown ones (a Dask DataFrame is not read before the result is computed) and the metrics compute them; chunks
along the columns are merged (``rechunk({1: -1})``: the kernels need whole rows). ``y`` and ``sensitive_features``
may be Dask arrays (rechunked to X's row chunks) or NumPy arrays (sliced to them). A Dask DataFrame / Series is
converted with ``to_dask_array(lengths=...)``, the partition lengths of X, y and s computed together in one pass (one
read of a frame they all come from; then y's and s's distinct labels in one more, then the sums: 4–6 reads of each
partition for a functional-mechanism fit, where Dask reads X's, y's and s's columns separately within the sums'
pass), after each partition's values are taken as in memory where a column
has a pandas extension dtype (Int64, boolean, category, pyarrow; a frame X with bool or object columns: their float
values); a DataFrame's column names (``X.columns``, its schema) are first checked against the domain's declared
names and kept as ``feature_names_in_``, as for a pandas DataFrame in memory.

Threads: each partition's kernel call uses ``n_threads`` threads (the estimator's parameter; ``None`` means 1 here,
since Dask already runs one task per worker thread).

Dask is an optional dependency (``pip install "dpfair_native[dask]"``), imported only when a Dask collection is
passed; the rest of the library imports without it.
"""

from __future__ import annotations

import functools
import operator
from typing import Dict, Optional, Tuple

import numpy as np

from ._validation import column_vector
from .accountants import PrivacySpent

__all__ = [
    "is_dask_collection",
    "DaskRows",
    "fit_dask",
    "decision_function_dask",
    "predict_dask",
    "compress_rows",
]

# Partial sums added per task of the tree reduction.
SPLIT_EVERY = 8


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "a Dask collection was passed, but Dask is not installed; install the optional extra with "
            "`pip install \"dpfair_native[dask]\"` (or pass NumPy arrays)"
        ) from exc
    return dask, da


def is_dask_collection(obj) -> bool:
    """True for Dask arrays, DataFrames, Series and delayed objects (checked without importing Dask); False for
    containers that merely implement the protocol around in-memory data (e.g. a NumPy-backed xarray object)."""
    graph = getattr(type(obj), "__dask_graph__", None)
    return callable(graph) and obj.__dask_graph__() is not None


# -- input -------------------------------------------------------------------------------------------------------
def _unknown(chunks) -> bool:
    return any(not np.isfinite(c) for c in chunks)


def _numpy_dtypes(frame) -> bool:
    """Whether every column of a (Dask) DataFrame, or a Series, has a NumPy dtype (no pandas extension dtype such as
    Int64, boolean, category or a pyarrow type)."""
    dtypes = frame.dtypes if frame.ndim == 2 else [frame.dtype]
    return all(isinstance(dtype, np.dtype) for dtype in dtypes)


def _real_frame(part, name):
    """One partition of a Dask DataFrame X as float values, by the in-memory conversion (``real_values``)."""
    import pandas as pd

    from ._validation import real_values

    return pd.DataFrame(real_values(part, name), index=part.index, columns=part.columns)


def _numpy_backed(part):
    """One partition of a Dask Series (or one-column frame) with its values as pandas' ``to_numpy()`` gives them in
    memory: Int64 / boolean / pyarrow / 0-1 category columns become int64 or bool, not object."""
    import pandas as pd

    if part.ndim == 2:
        return pd.DataFrame(part.to_numpy(), index=part.index, columns=part.columns)
    return pd.Series(part.to_numpy(), index=part.index, name=part.name)


def _partition_lengths(*collections) -> list:
    """The row count of each partition of every Dask DataFrame or Series among ``collections`` (None for anything
    else), computed together: columns of one frame then share a single read of it, where converting each with
    ``to_dask_array(lengths=True)`` reads the frame once per column set."""
    dask, _ = _dask()

    def is_frame(c):
        return hasattr(c, "to_dask_array") and hasattr(c, "map_partitions")

    counted = iter(dask.compute(*[c.map_partitions(len, meta=(None, "int64")) for c in collections if is_frame(c)]))
    return [tuple(int(v) for v in next(counted)) if is_frame(c) else None for c in collections]


def _as_matrix(X, name: str = "X", *, n_features: Optional[int] = None, rows_known: bool = True, lengths=None):
    """A 2-D float Dask array chunked by rows only (known row chunks unless ``rows_known=False``, which prediction
    uses so that a Dask DataFrame is not read before the result is computed). ``lengths``: a Dask DataFrame's
    partition lengths, if known (:func:`_partition_lengths`)."""
    _, da = _dask()
    if hasattr(X, "to_dask_array"):  # a Dask DataFrame
        if not (_numpy_dtypes(X) and all(dtype.kind in "iuf" for dtype in X.dtypes)):  # bool + float: object
            X = X.map_partitions(_real_frame, name, meta=_real_frame(X._meta, name))
        X = X.to_dask_array(lengths=lengths if lengths is not None else (True if rows_known else None))
    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask.array.Array or a Dask DataFrame, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got {X.ndim}-D")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}; encode categories numerically first")
    if rows_known and _unknown(X.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes along the rows; call {name}.compute_chunk_sizes() first "
            "(or ddf.to_dask_array(lengths=True) for a DataFrame)"
        )
    if _unknown(X.chunks[1]):
        raise ValueError(f"{name} has an unknown number of columns; pass a Dask array with known shape")
    if X.shape[0] == 0 or X.shape[1] == 0:  # nan (unknown) rows pass: prediction maps over whatever rows come
        raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} has {X.shape[1]} features, but the estimator was fitted with {n_features}")
    if len(X.chunks[1]) > 1:  # the kernels need whole rows: merge the column chunks (d is small)
        X = X.rechunk({1: -1})
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return X


def _as_vector(v, X, name: str, *, lengths=None):
    """A 1-D Dask array with X's row chunks (a NumPy array or a Dask array/Series; ``lengths`` as in
    :func:`_as_matrix`)."""
    _, da = _dask()
    n = X.shape[0]
    if hasattr(v, "to_dask_array"):
        if not _numpy_dtypes(v):
            v = v.map_partitions(_numpy_backed, meta=_numpy_backed(v._meta))
        v = v.to_dask_array(lengths=lengths if lengths is not None else True)
    if isinstance(v, da.Array):
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if _unknown(v.chunks[0]):
            raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first")
        if v.ndim != 1 or v.shape[0] != n:
            raise ValueError(f"{name} must be 1-D with one value per row of X ({n}), got shape {v.shape}")
        return v if v.chunks[0] == X.chunks[0] else v.rechunk((X.chunks[0],))
    return da.from_array(column_vector(v, n, name), chunks=(X.chunks[0],))


def _blocks(arr) -> list:
    """The Delayed row blocks of a row-chunked array (1-D or 2-D with one column chunk)."""
    return list(arr.to_delayed().ravel())


def _tree_sum(parts: list):
    """Delayed elementwise sum of a list of Delayed tuples of arrays, SPLIT_EVERY at a time."""
    dask, _ = _dask()
    add = dask.delayed(_add_parts, pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
    return parts[0]


def _add_parts(*parts):
    if isinstance(parts[0], tuple):
        return tuple(None if items[0] is None else functools.reduce(operator.add, items) for items in zip(*parts))
    return functools.reduce(operator.add, parts)


# -- per-partition functions (run on the workers) ---------------------------------------------------------------------
def _distinct_block(v, name):
    from ._validation import _check_no_missing

    v = np.asarray(v)
    _check_no_missing(v, name)  # None / NaN / pd.NA among object labels: the in-memory message, not a sort error
    return _unique(v, name)


def _unique(v, name):
    """np.unique(v), with the in-memory message for values of types that do not compare."""
    from ._validation import mixed_types_error

    try:
        return np.unique(v)
    except TypeError:
        raise mixed_types_error(name) from None


def _check_finite_block(X) -> None:
    """The in-memory check of X (NaN, infinity, magnitudes whose squares overflow), on one partition."""
    from ._validation import _check_finite_magnitude

    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    _check_finite_magnitude(X, "X")


def _codes_block(s, labels):
    from ._validation import check_sensitive_features

    s = np.asarray(s)
    return check_sensitive_features(s, s.shape[0], groups=labels)[1]


def _y01_block(y, classes):
    return (np.asarray(y) == classes[1]).astype(np.float64)


def _count_block(s, labels, k):
    return int(np.sum(_codes_block(s, labels) == k))


def _taylor_block(X, y, s, classes, labels, domain, policy, offset_mean, fit_intercept, fair, n_threads, backend,
                  row_offset=0):
    """One partition's (b, Q, group_sums, group_counts) of its rows projected into the domain, after the in-memory
    fit's check of X (``taylor_terms_in_domain``'s fast path); ``row_offset``: the partition's first row in X (for
    the row an error names)."""
    from .models._functional_core import taylor_terms, taylor_terms_in_domain

    X = np.asarray(X)
    a = 0.5 - _y01_block(y, classes)
    codes = None if s is None else _codes_block(s, labels)
    if offset_mean is not None:
        a = a + np.abs(codes - offset_mean)
    kwargs = dict(fit_intercept=fit_intercept, groups=codes if fair else None, n_groups=2 if fair else None,
                  n_threads=n_threads, backend=backend)
    _check_finite_block(X)
    contains_all = getattr(domain, "contains_all", None)
    if contains_all is not None and policy in ("clip", "raise"):
        terms = taylor_terms(X, a, 0.125, **kwargs)
        d0 = X.shape[1]
        if contains_all(X, pair_sums=terms[1][:d0, :d0]):
            return terms
    try:
        return taylor_terms_in_domain(domain, policy, X, a, 0.125, **kwargs)
    except ValueError as exc:  # policy "raise": name the row of X, not of this partition
        raise _in_rows_of_X(exc, row_offset) from None


def _in_rows_of_X(exc: ValueError, row_offset: int) -> ValueError:
    """``exc`` with a leading "row i" (a row of one partition) renumbered as row i + row_offset of X."""
    message = str(exc)
    head, _, rest = message.partition(" ")
    number = rest.split(maxsplit=1)[0].rstrip(",") if rest else ""
    if head != "row" or not number.isdigit():
        return exc
    return ValueError(f"row {int(number) + row_offset}{rest[len(number):]}")


def _selection_block(X, y, classes, domain, policy, row_offset=0):
    """One partition's sums for the private feature selection (``feature_selection.select_features_from_sums``):
    (Σ y_i, Σ c_i·y_i, Σ c_i) with c_i = x_i clipped to the domain's box minus the box's midpoint, after the
    in-memory fit's checks of X (finite values; policy "raise": the domain's own error, naming the row of X)."""
    from .feature_selection import _CHUNK, _box

    X = np.asarray(X)
    _check_finite_block(X)
    if policy == "raise" and not domain.contains_all(X):
        try:
            domain.project(X, policy="raise")
        except ValueError as exc:
            raise _in_rows_of_X(exc, row_offset) from None
    y01 = _y01_block(y, classes)
    lo, hi = _box(domain, X.shape[1])
    mid = 0.5 * (lo + hi)
    label_sums, sums = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for start in range(0, X.shape[0], _CHUNK):  # bounds the clipped copy, as relevance_scores does
        c = np.clip(np.asarray(X[start : start + _CHUNK], dtype=np.float64), lo, hi) - mid
        label_sums += c.T @ y01[start : start + _CHUNK]
        sums += c.sum(axis=0)
    return float(y01.sum()), label_sums, sums


def _gradient_block(X, y, classes, domain, policy, w, fit_intercept, n_threads, backend):
    """One partition's logistic-loss gradient at w over its rows projected into the domain."""
    from .models._functional_core import logistic_gradient_in_domain

    return logistic_gradient_in_domain(domain, policy, np.asarray(X), _y01_block(y, classes), w,
                                       fit_intercept=fit_intercept, n_threads=n_threads, backend=backend)


# -- the statistics source of the functional mechanism ---------------------------------------------------------------
class DaskRows:
    """The rows of a Dask fit as a source of the functional mechanism's sums (the interface of
    ``models._functional_base.InMemoryRows``): ``shape``, ``count_group(k)``, ``taylor_terms(...)``,
    ``logistic_gradient(...)``.

    X: row-chunked Dask array; y, s: Dask vectors with X's chunks (raw labels); classes: y's two sorted labels;
    labels: the group labels (declared or the sorted distinct values of s). Empty partitions are skipped.
    """

    def __init__(self, X, y, s, classes, labels):
        self.X, self.y, self.s = X, y, s
        self.classes, self.labels = classes, labels
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        keep = [i for i, size in enumerate(X.chunks[0]) if size > 0]
        self._offsets = [int(o) for o in np.concatenate([[0], np.cumsum(X.chunks[0])])[keep]]
        xb, yb = _blocks(X), _blocks(y)
        self._xb = [xb[i] for i in keep]
        self._yb = [yb[i] for i in keep]
        sb = None if s is None else _blocks(s)
        self._sb = None if s is None else [sb[i] for i in keep]

    def take_columns(self, columns) -> DaskRows:
        """These rows restricted to ``columns`` (a released selection; lazy, per partition)."""
        return DaskRows(self.X[:, np.asarray(columns)], self.y, self.s, self.classes, self.labels)

    def select_features(self, domain, policy, k, epsilon, rng, required):
        """The private feature selection of ``FunctionalBase._select``: its sums in one pass over the partitions
        (``_selection_block``), the noise drawn on the client from ``rng`` in the in-memory order
        (``feature_selection.select_features_from_sums``)."""
        from .feature_selection import select_features_from_sums

        dask, _ = _dask()

        def sums():
            task = dask.delayed(_selection_block, pure=True)
            parts = [task(xb, yb, self.classes, domain, policy, offset)
                     for xb, yb, offset in zip(self._xb, self._yb, self._offsets)]
            (total,) = dask.compute(_tree_sum(parts))
            return total

        return select_features_from_sums(self.shape[0], self.shape[1], sums, domain, k, epsilon, rng,
                                         required=required)

    def count_group(self, k: int) -> int:
        dask, _ = _dask()
        count = dask.delayed(_count_block, pure=True)
        return int(dask.compute(_tree_sum([count(b, self.labels, k) for b in self._sb]))[0])

    def taylor_terms(self, domain, policy, *, offset_mean, fit_intercept, fair, n_threads, backend):
        from .models._functional_core import _check_domain_and_policy

        dask, _ = _dask()
        _check_domain_and_policy(domain, self, policy)  # before any work on the workers
        threads = 1 if n_threads is None else n_threads
        task = dask.delayed(_taylor_block, pure=True)
        sbs = self._sb if self._sb is not None else [None] * len(self._xb)
        parts = [
            task(xb, yb, sb, self.classes, self.labels, domain, policy, offset_mean, fit_intercept, fair, threads,
                 backend, offset)
            for xb, yb, sb, offset in zip(self._xb, self._yb, sbs, self._offsets)
        ]
        (total,) = dask.compute(_tree_sum(parts))
        return total

    def logistic_gradient(self, domain, policy, w, *, fit_intercept, n_threads, backend):
        dask, _ = _dask()
        threads = 1 if n_threads is None else n_threads
        task = dask.delayed(_gradient_block, pure=True)
        parts = [task(xb, yb, self.classes, domain, policy, w, fit_intercept, threads, backend)
                 for xb, yb in zip(self._xb, self._yb)]
        (total,) = dask.compute(_tree_sum(parts))
        return total


# -- fit ---------------------------------------------------------------------------------------------------------------
def _distinct(*named) -> list:
    """The sorted distinct values of each (vector, name) pair, all in one pass."""
    dask, _ = _dask()
    task = dask.delayed(_distinct_block, pure=True)
    (parts,) = dask.compute([[task(b, name) for b in _blocks(v)] for v, name in named])
    return [_unique(np.concatenate(p), name) if p else np.array([]) for p, (_, name) in zip(parts, named)]


def _labels(y, s, declared, zero_one_public: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(classes of y, group labels) with the in-memory checks' rules and messages (one pass over y and s): the
    in-memory label check runs on y's distinct values, which decide every rule it has."""
    from ._validation import check_binary_labels, check_sensitive_features

    distinct = _distinct((y, "y"), *([] if s is None else [(s, "sensitive_features")]))
    values = distinct[0]
    classes, _ = check_binary_labels(values, values.shape[0], zero_one_public=zero_one_public)
    if s is None:
        return classes, None
    values = distinct[1]
    if values.dtype.kind == "f" and not np.all(np.isfinite(values)):
        raise ValueError("sensitive_features contains NaN or infinity")
    if declared is None:
        return classes, values
    labels, _ = check_sensitive_features(values, values.shape[0], groups=declared)  # same errors as in memory
    return classes, labels


def fit_dask(est, X, y, *, sensitive_features=None):
    """``est.fit(X, y, sensitive_features=...)`` for a Dask ``X`` (called by ``DPClassifierBase.fit``).

    Supported: the functional-mechanism estimators (FunctionalMechanismLR, FairFunctionalMechanismLR, PFLR,
    PFLRStar, PDFC, ADFC) and LogisticRegression / FairLogisticRegression. The checks are the in-memory ``fit``'s
    and the rng draws come in its order; the checks run per partition, so where the input fails several of them (or
    one in several rows) the error reported may be another than in memory (e.g. y's before X's, or under
    ``domain_policy="raise"`` a later row).

    Notes
    -----
    The domain: a Dask array does not carry a DomainEncoder output's ``domain`` (Dask keeps plain NumPy arrays
    as its metadata, so ``da.from_array(encoder.transform(frame))`` loses it, and reading it from a partition
    would mean computing one). Declare it, ``est.set_params(domain=encoder.domain_)``, to get the in-memory fit's
    domain, sensitivities and release; without it the estimator falls back to [0, 1]^d with an
    ``AssumedDomainWarning`` that says so.
    """
    from ._validation import check_random_state
    from .models._base import (
        check_domain_names,
        feature_names_of,
        replace_fitted,
        warn_if_classes_read_from_data,
        warn_if_groups_read_from_data,
    )
    from .models._functional_base import FunctionalBase
    from .models.logistic import LogisticRegression

    if not isinstance(est, (FunctionalBase, LogisticRegression)):
        raise TypeError(
            f"{type(est).__name__} has no Dask fit (its training is not a sum over rows); pass NumPy arrays "
            "(e.g. X.compute() on a sample), or use a functional-mechanism estimator or LogisticRegression"
        )
    # a Dask DataFrame's column names (``X.columns``: its schema, read without computing anything), checked
    # against the domain's declared names before they are lost in the conversion to an array, as in memory
    feature_names = feature_names_of(X)
    check_domain_names(getattr(est, "domain", None), feature_names, type(est).__name__)
    if sensitive_features is None and est.requires_sensitive_features:
        raise ValueError(
            "sensitive_features is required: pass one group label per row, fit(X, y, sensitive_features=s)"
        )
    x_lengths, y_lengths, s_lengths = _partition_lengths(X, y, sensitive_features)  # one read of a shared frame
    X = _as_matrix(X, lengths=x_lengths)
    y = _as_vector(y, X, "y", lengths=y_lengths)
    s = None
    if sensitive_features is not None:
        s = _as_vector(sensitive_features, X, "sensitive_features", lengths=s_lengths)
        if est._ignores_sensitive_features:  # only their length is checked (as in memory): their values are unused
            s = None
    classes, group_labels = _labels(y, s, getattr(est, "declared_groups", None), est._adds_noise())
    warn_if_classes_read_from_data(type(est).__name__, est._adds_noise(), classes, stacklevel=4)
    if group_labels is not None:
        warn_if_groups_read_from_data(est, group_labels, stacklevel=4)  # the caller of est.fit
    rng = check_random_state(getattr(est, "random_state", None))
    rows = DaskRows(X, y, s, classes, group_labels)
    if isinstance(est, FunctionalBase):
        fitted = est._fit_selected(rows, group_labels, rng)  # max_features: the in-memory decision and draws
    else:
        fitted = _fit_logistic(est, rows, group_labels)
    fitted.setdefault("classes_", classes)
    fitted.setdefault("n_features_in_", rows.shape[1])
    if feature_names is not None:
        fitted["feature_names_in_"] = feature_names
    if group_labels is not None:
        fitted.setdefault("groups_", group_labels)
    return replace_fitted(est, fitted)


# -- exact logistic regression: Newton steps as per-partition sums ----------------------------------------------------
def _newton_block(X, y, classes, w, fit_intercept, hessian, n_threads, backend):
    """Scores z of one partition and its (gradient, Hessian) partial sums at w (Hessian None if not asked)."""
    from . import kernels
    from ._reference import _sigmoid

    X = np.asarray(X)
    _check_finite_block(X)
    d = X.shape[1]
    m = d + int(fit_intercept)
    z = X @ w[:d] + (w[d] if fit_intercept else 0.0)
    p = _sigmoid(z)
    a = p - _y01_block(y, classes)
    g = np.empty(m)
    H = None
    if hessian:
        c = p * (1.0 - p)
        g[:d], H_x, _, _ = kernels.poly2_coefficients(X, a, c, n_threads=n_threads, backend=backend)
        H = np.empty((m, m))
        H[:d, :d] = H_x
        if fit_intercept:
            H[:d, d] = H[d, :d] = c @ X
            H[d, d] = c.sum()
    else:
        g[:d] = a @ X
    if fit_intercept:
        g[d] = a.sum()
    return z, (g, H)


def _slope_block(z0, z1, y, classes, t):
    from ._reference import _sigmoid

    dz = z1 - z0
    return float((_sigmoid(z0 + t * dz) - _y01_block(y, classes)) @ dz)


def _fair_direction_block(X, s, labels, s_mean, n_threads, backend):
    from . import kernels

    X = np.asarray(X)
    _check_finite_block(X)
    codes = _codes_block(s, labels).astype(np.float64)
    return kernels.poly2_coefficients(X, codes - s_mean, 0.0, n_threads=n_threads, backend=backend)[0]


def _check_newton_params(est):
    alpha, tol, max_iter = float(est.alpha), float(est.tol), est.max_iter
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {est.alpha!r}")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0, got {est.tol!r}")
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    return alpha, tol, int(max_iter)


def _newton(est, rows: DaskRows, constraint=None):
    """The damped Newton method of ``kernels.logistic_newton`` (same step, line search and stopping rules as its
    NumPy reference) with each full pass a per-partition sum; the scores of the current point and of the trial
    point stay on the workers (n floats each) for the line search along the segment."""
    from ._reference import damped_newton

    dask, _ = _dask()
    d = rows.shape[1]
    fi = bool(est.fit_intercept)
    m = d + int(fi)
    alpha, tol, max_iter = _check_newton_params(est)
    threads = 1 if est.n_threads is None else est.n_threads
    reg = np.full(m, alpha)
    if fi:
        reg[d] = 0.0
    block = dask.delayed(_newton_block, pure=True, nout=2)
    slope_task = dask.delayed(_slope_block, pure=True)

    def full_pass(w, hessian):
        parts = [block(xb, yb, rows.classes, w, fi, hessian, threads, est.backend)
                 for xb, yb in zip(rows._xb, rows._yb)]
        zs = [p[0] for p in parts]
        total = _tree_sum([p[1] for p in parts])
        *zs, total = dask.persist(*zs, total)
        g, H = dask.compute(total)[0]
        return zs, g, H

    def segment_slope(t, z0, z1, w, v):
        (parts,) = dask.compute([slope_task(a, b, yb, rows.classes, t) for a, b, yb in zip(z0, z1, rows._yb)])
        return float(np.sum(parts)) + float(np.sum(reg * (w + t * v) * v))

    return damped_newton(full_pass, segment_slope, reg, constraint, max_iter, tol)


def _fit_logistic(est, rows: DaskRows, group_labels):
    from .models.logistic import FairLogisticRegression

    dask, _ = _dask()
    est._refuse_accountant()
    n, d = rows.shape
    constraint = None
    a = None
    if isinstance(est, FairLogisticRegression):
        tau = float(est.tau)
        if not np.isfinite(tau) or tau < 0:
            raise ValueError(f"tau must be a finite number >= 0, got {est.tau!r}")
        if len(group_labels) != 2:
            raise ValueError(
                f"FairLogisticRegression needs exactly two groups in sensitive_features, got {len(group_labels)}"
            )
        counts = np.array([rows.count_group(0), rows.count_group(1)])
        if np.any(counts == 0):
            raise ValueError(
                f"declared group {group_labels[np.argmax(counts == 0)].item()!r} has no rows in sensitive_features; "
                "drop it from declared_groups or pass rows of both groups"
            )
        threads = 1 if est.n_threads is None else est.n_threads
        task = dask.delayed(_fair_direction_block, pure=True)
        parts = [task(xb, sb, rows.labels, counts[1] / n, threads, est.backend) for xb, sb in zip(rows._xb, rows._sb)]
        (a,) = dask.compute(_tree_sum(parts))
        a = a / n
        if est.fit_intercept:
            a = np.append(a, 0.0)
        if not np.any(a):
            raise ValueError("the two groups have identical feature means; the covariance constraint is void")
        constraint = (a, tau)
    w, n_iter, converged = _newton(est, rows, constraint)
    out = {
        "coef_": w[:d].copy(),
        "intercept_": float(w[d]) if est.fit_intercept else 0.0,
        "privacy_spent_": PrivacySpent(np.inf, 0.0, "none"),
        "n_iter_": n_iter,
        "converged_": converged,
    }
    if constraint is not None:
        out["constraint_value_"] = float(a @ w)
    return out


# -- prediction --------------------------------------------------------------------------------------------------------
def _score_block(X, coef, intercept):
    return np.asarray(X, dtype=np.float64) @ coef + intercept


def _label_block(z, classes):
    return classes[(z > 0).astype(np.int64)]


def decision_function_dask(est, X):
    """Lazy scores xᵀw + b of a Dask X (a Dask vector with X's row chunks); a Dask DataFrame's column names are
    checked against ``feature_names_in_`` as in memory."""
    est._check_feature_names(X, stacklevel=4)
    X = _as_matrix(X, n_features=est.n_features_in_, rows_known=False)
    return X.map_blocks(_score_block, est.coef_, est.intercept_, drop_axis=1, dtype=np.float64)


def predict_dask(est, X):
    """Lazy labels classes_[score > 0] of a Dask X."""
    z = decision_function_dask(est, X)
    return z.map_blocks(_label_block, est.classes_, dtype=est.classes_.dtype)


# -- metrics -----------------------------------------------------------------------------------------------------------
def _compress_block(sample_weight, *columns):
    """Distinct tuples of one partition's columns with their (weighted) counts: (list of value arrays, weights)."""
    columns = [np.asarray(c) for c in columns]
    n = columns[0].shape[0]
    if any(c.ndim != 1 or c.shape[0] != n for c in columns):
        raise ValueError("metric inputs must be 1-D with one value per sample")
    if n == 0:
        return [c[:0] for c in columns], np.zeros(0)
    uniques, codes = zip(*(np.unique(c, return_inverse=True) for c in columns))
    stacked = np.stack([np.ravel(k) for k in codes], axis=1)
    keys, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = np.ravel(inverse)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.bincount(inverse, weights=w, minlength=keys.shape[0]).astype(np.float64)
    return [u[keys[:, j]] for j, u in enumerate(uniques)], counts


def compress_rows(arrays: Dict[str, object], sample_weight=None) -> Tuple[Dict[str, np.ndarray], np.ndarray]:
    """Row arrays (some Dask) -> the distinct tuples of their values per partition and their weights.

    Every label-based metric is a function of weighted counts of (y_true, y_pred, group) tuples, so evaluating it
    on the distinct tuples with ``sample_weight`` = their (weighted) counts gives the in-memory value (counts are
    exact integers in float64; user weights are summed per tuple, to float rounding). Each partition returns at
    most (#labels² · #groups) tuples; nothing of size n reaches the client.
    """
    dask, da = _dask()
    names = list(arrays)
    def known_rows(v):  # e.g. predict() of a Dask DataFrame, lazy with unknown row chunks: computed here (a pass)
        return v.compute_chunk_sizes() if isinstance(v, da.Array) and _unknown(v.chunks[0]) else v

    arrays = {k: known_rows(v) for k, v in arrays.items()}
    sample_weight = known_rows(sample_weight)
    first = next(v for v in [*arrays.values(), sample_weight] if is_dask_collection(v))
    ref = first.to_dask_array(lengths=True) if hasattr(first, "to_dask_array") else first
    if ref.ndim != 1:
        raise ValueError(f"metric inputs must be 1-D (one value per sample), got shape {ref.shape}")
    if _unknown(ref.chunks[0]):
        raise ValueError("a metric input has unknown chunk sizes; call .compute_chunk_sizes() first")
    anchor = da.zeros((ref.shape[0], 1), chunks=(ref.chunks[0], 1))
    vectors = [_as_vector(arrays[k], anchor, k) for k in names]
    weight = None if sample_weight is None else _as_vector(sample_weight, anchor, "sample_weight")
    task = dask.delayed(_compress_block, pure=True, nout=2)
    wb = [None] * len(ref.chunks[0]) if weight is None else _blocks(weight)
    parts = [task(w, *cols) for w, *cols in zip(wb, *(_blocks(v) for v in vectors))]
    (parts,) = dask.compute(parts)
    columns = {k: np.concatenate([p[0][j] for p in parts]) for j, k in enumerate(names)}
    return columns, np.concatenate([p[1] for p in parts])
