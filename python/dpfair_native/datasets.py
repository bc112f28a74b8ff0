"""Data for experiments: the bundled UCI Adult benchmark, a synthetic generator with tunable group
disparity, and a NumPy-only ``train_test_split`` (the library does not depend on scikit-learn at run time).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from importlib import resources
from typing import Tuple

import numpy as np

from ._validation import check_random_state

__all__ = ["Dataset", "load_adult", "adult_schema", "train_test_split", "make_fair_classification"]

_ADULT_DESCRIPTION = """\
UCI Adult (Census Income), 1994 US Census extract. Becker, B. & Kohavi, R. (1996). Adult [Dataset].
UCI Machine Learning Repository. https://doi.org/10.24432/C5XW20. Licence: CC BY 4.0.
Preprocessing (tools/make_adult.py): adult.data + adult.test, rows with a missing value dropped (45,222 rows);
y = 1 iff income > 50K; sensitive = sex (0 Female, 1 Male), not a feature; fnlwgt and education dropped;
age, education-num, capital-gain, capital-loss, hours-per-week min-max scaled with the observed min/max of
these public rows; workclass, marital-status, occupation, relationship, race one-hot; native-country as one
indicator (United-States). d = 45, every row has ||x||_1 <= 5 + 6 = 11."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A tabular data set with one sensitive attribute.

    X (n, d) float64 features in [0, 1]; y (n,) int64 labels in {0, 1}; sensitive (n,) int64 group codes,
    ``sensitive_values[k]`` naming code k. ``numeric_columns`` are the min-max scaled columns and
    ``numeric_ranges`` their raw (min, max); each entry of ``one_hot_groups`` lists the columns of one
    categorical attribute, of which a row has at most one equal to 1 -- so ||x||_1 <= len(numeric_columns)
    + len(one_hot_groups), the bound a ``FeatureDomain`` built from these fields uses.
    """

    X: np.ndarray
    y: np.ndarray
    sensitive: np.ndarray
    feature_names: Tuple[str, ...]
    numeric_columns: Tuple[int, ...]
    numeric_ranges: Tuple[Tuple[float, float], ...]
    one_hot_groups: Tuple[Tuple[int, ...], ...]
    sensitive_name: str
    sensitive_values: Tuple[str, ...]
    description: str

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])


def _adult_file():
    return resources.files("dpfair_native").joinpath("data").joinpath("adult.npz")


def _load_adult_arrays() -> dict:
    with _adult_file().open("rb") as fh:
        with np.load(fh, allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}


def _adult_categories(raw) -> dict:
    """Group name -> its categories, in the bundled file's column order."""
    names = [str(s) for s in raw["feature_names"]][len(raw["numeric_names"]):]
    out, start = {}, 0
    for group, size in zip(raw["group_names"], raw["group_sizes"]):
        out[str(group)] = [name.split("=", 1)[1] for name in names[start : start + int(size)]]
        start += int(size)
    return out


def adult_schema() -> dict:
    """The public schema of the raw Adult frame (``load_adult(as_frame=True)``) for ``preprocessing.DomainEncoder``.

    Numeric bounds are the documented ranges of the public UCI file, categories its documented values;
    native-country is one indicator (United-States vs Other), as in the bundled matrix. Encoding the raw frame with
    this schema reproduces ``load_adult().X`` exactly.
    """
    from .preprocessing import Binary, Categorical, Numeric

    raw = _load_adult_arrays()
    schema = {str(name): Numeric(float(lo), float(hi))
              for name, lo, hi in zip(raw["numeric_names"], raw["numeric_min"], raw["numeric_max"])}
    for group, cats in _adult_categories(raw).items():
        schema[group] = Binary(positive=cats[0], negative="Other") if len(cats) == 1 else Categorical(cats)
    return schema


def _adult_frame(raw):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("load_adult(as_frame=True) needs pandas: pip install pandas") from None
    frame = {str(name): raw["numeric_raw"][:, j].astype(np.int64) for j, name in enumerate(raw["numeric_names"])}
    for g, (group, cats) in enumerate(_adult_categories(raw).items()):
        codes = raw["codes"][:, g].astype(np.int64)
        values = np.array(["Other", cats[0]] if len(cats) == 1 else cats, dtype=object)
        frame[group] = values[codes]
    frame["sex"] = np.array(raw["sensitive_values"], dtype=object)[raw["sensitive"].astype(np.int64)]
    frame["income"] = np.where(raw["y"] == 1, ">50K", "<=50K").astype(object)
    return pd.DataFrame(frame)


def load_adult(*, as_frame: bool = False):
    """The UCI Adult benchmark as preprocessed by the PFLR / DPSGD-F papers: n = 45,222, d = 45.

    ``as_frame=True`` returns the raw table instead, as a pandas DataFrame (pandas needed): the numeric columns in
    their original units, the categorical ones as strings, plus ``sex`` and the label ``income`` ("<=50K" or
    ">50K") — the starting point for ``preprocessing.DomainEncoder(datasets.adult_schema())``.

    Labels: 11,208 positives (24.78%). Groups: 30,527 Male (s = 1), 14,695 Female (s = 0).
    Numeric columns are scaled with bounds observed on this *public* file, as the papers do; with private
    data, declare the bounds (``FeatureDomain``) instead of reading them off the data.
    Use ``train_test_split(X, y, s, test_size=0.2, random_state=seed)`` for the papers' 80/20 split.
    """
    raw = _load_adult_arrays()
    if as_frame:
        return _adult_frame(raw)
    n = raw["y"].shape[0]
    lo = raw["numeric_min"].astype(np.float64)
    hi = raw["numeric_max"].astype(np.float64)
    numeric = (raw["numeric_raw"].astype(np.float64) - lo) / (hi - lo)

    sizes = [int(k) for k in raw["group_sizes"]]
    n_numeric = numeric.shape[1]
    d = n_numeric + sum(sizes)
    X = np.zeros((n, d), dtype=np.float64)
    X[:, :n_numeric] = numeric
    groups = []
    start = n_numeric
    rows = np.arange(n)
    for g, size in enumerate(sizes):
        codes = raw["codes"][:, g].astype(np.int64)
        if size == 1:  # a single indicator column: code 1 sets it, code 0 leaves the row all-zero
            X[:, start] = codes
        else:
            X[rows, start + codes] = 1.0
        groups.append(tuple(range(start, start + size)))
        start += size

    feature_names = tuple(str(s) for s in raw["feature_names"])
    if len(feature_names) != d:
        raise RuntimeError(f"corrupt adult.npz: {len(feature_names)} feature names for {d} columns")
    return Dataset(
        X=X,
        y=raw["y"].astype(np.int64),
        sensitive=raw["sensitive"].astype(np.int64),
        feature_names=feature_names,
        numeric_columns=tuple(range(n_numeric)),
        numeric_ranges=tuple((float(a), float(b)) for a, b in zip(lo, hi)),
        one_hot_groups=tuple(groups),
        sensitive_name="sex",
        sensitive_values=tuple(str(s) for s in raw["sensitive_values"]),
        description=_ADULT_DESCRIPTION,
    )


def _n_test(test_size, n: int) -> int:
    if isinstance(test_size, (bool, np.bool_)):
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got {test_size!r}")
    if isinstance(test_size, (numbers.Integral, np.integer)):
        n_test = int(test_size)
    elif isinstance(test_size, (numbers.Real, np.floating)):
        if not 0.0 < float(test_size) < 1.0:
            raise ValueError(f"test_size as a fraction must lie in (0, 1), got {test_size!r}")
        n_test = int(np.ceil(float(test_size) * n))
    else:
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got {type(test_size).__name__}")
    if not 1 <= n_test <= n - 1:
        raise ValueError(
            f"test_size={test_size!r} leaves {n_test} test and {n - n_test} training rows out of {n}; "
            "both must be at least 1"
        )
    return n_test


def _stratified_counts(labels: np.ndarray, n_test: int) -> Tuple[np.ndarray, np.ndarray]:
    """Per-class test counts proportional to class sizes (largest remainder; ties to the earlier class)."""
    classes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    n = labels.shape[0]
    exact = counts * n_test / n
    take = np.floor(exact).astype(np.int64)
    remainder = n_test - int(take.sum())
    order = np.argsort(-(exact - take), kind="stable")
    take[order[:remainder]] += 1
    return inverse.reshape(-1), take


def _take(a, idx: np.ndarray):
    """Rows idx of a: pandas by .iloc; an EncodedArray or a scipy.sparse matrix by its own indexing, keeping its
    declared domain (a DomainEncoder's output); anything else as a NumPy array."""
    from .kernels import is_sparse
    from .preprocessing import EncodedArray

    if hasattr(a, "iloc"):
        return a.iloc[idx]
    if isinstance(a, EncodedArray):
        return a[idx]
    if is_sparse(a):
        out = a.tocsr()[idx]
        if getattr(a, "domain", None) is not None:
            out.domain = a.domain
        return out
    return np.asarray(a)[idx]


def _n_rows(a) -> int:
    from .kernels import is_sparse

    return a.shape[0] if is_sparse(a) else len(a)


def train_test_split(*arrays, test_size=0.2, random_state=0, stratify=None):
    """Split arrays into random train and test parts: returns [a_train, a_test, b_train, b_test, ...].

    ``test_size``: a fraction in (0, 1) (test rows = ceil(test_size * n)) or an int number of rows.
    ``random_state``: int (reproducible; default 0), ``numpy.random.Generator`` or None (OS entropy).
    ``stratify``: labels whose class proportions the test part keeps (per class, test rows are the
    proportional share rounded by largest remainder). Rows are indexed along axis 0; pandas objects are
    indexed with ``.iloc`` and keep their type; a DomainEncoder's output (dense or scipy.sparse) keeps its domain.
    Uses NumPy only.
    """
    if not arrays:
        raise ValueError("train_test_split needs at least one array")
    lengths = [_n_rows(a) for a in arrays]
    n = lengths[0]
    if any(m != n for m in lengths):
        raise ValueError(f"all arrays must have the same number of rows, got lengths {lengths}")
    n_test = _n_test(test_size, n)
    rng = check_random_state(random_state)

    if stratify is None:
        perm = rng.permutation(n)
        test_idx, train_idx = perm[:n_test], perm[n_test:]
    else:
        labels = np.asarray(stratify)
        if labels.ndim != 1 or labels.shape[0] != n:
            raise ValueError(f"stratify must be 1-D with {n} entries (one label per row), got shape {labels.shape}")
        inverse, take = _stratified_counts(labels, n_test)
        test_parts, train_parts = [], []
        for k, t in enumerate(take):
            members = rng.permutation(np.flatnonzero(inverse == k))
            test_parts.append(members[:t])
            train_parts.append(members[t:])
        test_idx = rng.permutation(np.concatenate(test_parts))
        train_idx = rng.permutation(np.concatenate(train_parts))

    out = []
    for a in arrays:
        out.append(_take(a, train_idx))
        out.append(_take(a, test_idx))
    return out


def _int_at_least(value, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


def make_fair_classification(
    n_samples: int = 1000,
    n_features: int = 10,
    *,
    group_proportion: float = 0.5,
    disparity: float = 1.0,
    label_noise: float = 0.1,
    random_state=None,
):
    """Synthetic binary classification data in [0, 1]^d whose groups differ by a tunable amount.

    Generative model (one draw of every random number, in this order, whatever ``disparity`` is):
        s_i ~ Bernoulli(group_proportion)                      sensitive group, returned, not a feature
        z_ij ~ N(0, 1),  w_j ~ N(0, 1)                        latent features, true weights
        x_ij = sigmoid(z_ij + disparity * sign(w_j) * (s_i - 1/2) * [j < k] / sqrt(k)),  k = ceil(d/2)
        score_i = sum_j w_j (x_ij - 1/2)
        u_i ~ Uniform(0, 1);  y_i = 1[u_i < label_noise + (1 - 2 label_noise) * 1[score_i > 0]]
    i.e. y_i = 1[score_i > 0] flipped with probability ``label_noise``. The first k features are proxies of
    s: they shift toward higher scores in group 1 and lower scores in group 0, so y depends on s only
    through x, and a model that never sees s is still unfair. ``disparity = 0`` makes s independent of
    (x, y); with d = 10, ``disparity = 1`` gives a positive-rate gap of about 0.2 (Adult's is 0.20). The
    1/sqrt(k) keeps the gap's scale roughly independent of d; how far the gap can grow depends on how much
    of w sits on the proxies, and it never exceeds 1 - 2 label_noise.
    For a fixed seed every x_ij of group 1 (group 0) moves monotonically with ``disparity``, so the gap
    P(y=1 | s=1) - P(y=1 | s=0) is non-decreasing in ``disparity``.

    Returns (X, y, s): X (n, d) float64 in [0, 1] (``FeatureDomain.unit_box(d)`` holds), y and s (n,) int64.
    """
    n = _int_at_least(n_samples, "n_samples", 1)
    d = _int_at_least(n_features, "n_features", 1)
    p = float(group_proportion)
    if not 0.0 < p < 1.0:
        raise ValueError(f"group_proportion is P(s = 1) and must lie in (0, 1), got {group_proportion!r}")
    disparity = float(disparity)
    if not (np.isfinite(disparity) and disparity >= 0):
        raise ValueError(f"disparity must be a finite number >= 0, got {disparity!r}")
    eta = float(label_noise)
    if not 0.0 <= eta < 0.5:
        raise ValueError(f"label_noise is a flip probability and must lie in [0, 0.5), got {label_noise!r}")
    rng = check_random_state(random_state)

    s = (rng.random(n) < p).astype(np.int64)
    z = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    u = rng.random(n)

    n_proxy = (d + 1) // 2
    proxy = np.zeros(d)
    proxy[:n_proxy] = 1.0 / np.sqrt(n_proxy)
    shift = disparity * (s[:, None] - 0.5) * (np.sign(w) * proxy)[None, :]
    X = 0.5 * (1.0 + np.tanh(0.5 * (z + shift)))  # sigmoid without overflow; stays in [0, 1]
    score = (X - 0.5) @ w
    y = (u < eta + (1.0 - 2.0 * eta) * (score > 0)).astype(np.int64)
    return X, y, s
