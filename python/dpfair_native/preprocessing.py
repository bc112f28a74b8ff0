"""From a user's table to the library's input: :class:`DomainEncoder`, built from a declared schema.

The functional mechanism's noise is calibrated to the *declared* feature domain (DP rule 1). Scaling with
statistics read off the private data (scikit-learn's ``MinMaxScaler``, or categories collected by
``OneHotEncoder``) leaks them and voids that calibration. ``DomainEncoder`` reads nothing from the data: numeric
columns are clipped into public bounds and scaled to [0, 1], categorical columns become one-hot blocks over public
categories, binary columns one indicator. Its ``domain_`` is the exact :class:`~dpfair_native.domain.FeatureDomain`
of what it outputs (one-hot groups included), and the output carries that domain to a DP estimator placed after it,
in a scikit-learn ``Pipeline`` or by hand, so the user never copies it.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._validation import _is_missing
from .domain import FeatureDomain

__all__ = ["Numeric", "Categorical", "Binary", "DomainEncoder", "EncodedArray", "PrivacyLeakWarning"]


class PrivacyLeakWarning(UserWarning):
    """A statistic of the private data was used where a public, declared value belongs."""


@dataclass(frozen=True)
class Numeric:
    """A numeric column with public bounds; values are clipped into [lower, upper] and scaled to [0, 1].

    ``lower=None``/``upper=None`` reads the bound from the data at ``fit`` and warns (PrivacyLeakWarning).
    """

    lower: Optional[float] = None
    upper: Optional[float] = None


@dataclass(frozen=True)
class Categorical:
    """A categorical column with its public categories, one-hot encoded (at most one 1 per row).

    ``unknown``: what a value outside ``categories`` (a missing value — None, NaN, pd.NA — included: it matches
    no category, and ``categories`` may not hold one) becomes:
    "ignore" (the default: a row of zeros in the column's group, which the domain allows), "other" (a 1 in an
    extra "other" column) or "error" (transform raises). The first two keep every row inside the declared domain,
    so one person's unexpected value cannot decide whether a private fit runs; "error" is for checking data
    before a release, and such an abort is outside the DP guarantee.
    ``categories=None`` reads them from the data at ``fit`` and warns (PrivacyLeakWarning).
    """

    categories: Optional[Sequence[Any]] = None
    unknown: str = "ignore"


@dataclass(frozen=True)
class Binary:
    """A two-valued column: one indicator, 1 where the value equals ``positive``, 0 where it equals ``negative``.

    ``unknown``: what any other value (a missing one included) becomes: "negative" (the default: 0) or "error"
    (transform raises; outside the DP guarantee, as for :class:`Categorical`).
    """

    positive: Any = 1
    negative: Any = 0
    unknown: str = "negative"


class EncodedArray(np.ndarray):
    """A float64 array produced by :class:`DomainEncoder`; ``.domain`` is its declared FeatureDomain.

    Indexing keeps the domain right: selecting rows keeps it, selecting or reordering columns (``X[:, cols]``)
    restricts it to those columns (bounds, names, one-hot groups cut to them); anything else — repeated columns, a
    1-D result, an index it cannot read — drops it (``domain`` None), rather than pair a domain with the wrong
    columns. Only indexing, ``copy`` and pickling (e.g. joblib's worker processes in ``cross_val_score(n_jobs=2)``)
    carry it over: the results of NumPy functions, methods and arithmetic (``np.take``, ``X.take``, ``np.roll``,
    ``X * 2``, ``X *= 2``, ...) may move, drop or rescale columns, so they carry no domain (``domain`` None, or a
    plain ndarray for arithmetic results).
    """

    domain: Optional[FeatureDomain]

    def __array_finalize__(self, obj):
        self.domain = None  # set by the operations that know which columns the result holds (see the docstring)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        outs = kwargs.get("out", ())
        kwargs = {**kwargs, "out": tuple(_bare(x) for x in outs)} if outs else kwargs
        result = getattr(ufunc, method)(*(_bare(x) for x in inputs), **kwargs)
        if not any(isinstance(x, EncodedArray) for x in outs):
            return result
        for x in outs:  # written in place: its values changed, so its domain no longer describes them
            if isinstance(x, EncodedArray):
                x.domain = None
        if ufunc.nout == 1:
            return outs[0]
        return tuple(given if isinstance(given, EncodedArray) else got for given, got in zip(outs, result))

    def copy(self, order="C"):
        out = super().copy(order)
        out.domain = self.domain
        return out

    def __copy__(self):
        return self.copy(order="K")

    def __deepcopy__(self, memo):
        return self.copy(order="K")  # a FeatureDomain is immutable: shared, as copy.deepcopy of a frozen value is

    def __reduce__(self):
        rebuild, args, state = super().__reduce__()
        return rebuild, args, (state, self.domain)

    def __setstate__(self, state):
        if len(state) == 2:  # (ndarray state, domain)
            array_state, domain = state
        else:  # ndarray's own state: pickled before the domain was kept
            array_state, domain = state, None
        super().__setstate__(array_state)
        self.domain = domain

    def __getitem__(self, key):
        out = super().__getitem__(key)
        if isinstance(out, EncodedArray) and self.domain is not None:
            out.domain = indexed_domain(self.domain, self.shape, key, out.shape)
        return out


def indexed_domain(domain: FeatureDomain, shape, key, out_shape) -> Optional[FeatureDomain]:
    """The domain of ``X[key]`` (shape ``out_shape``) for an X of ``shape`` with ``domain``: the same for a selection
    of rows, restricted to the columns kept for a selection of distinct columns, None for anything else (repeated
    columns, a 1-D result, an index it cannot read). Shared by :class:`EncodedArray` and its sparse twin."""
    if len(shape) != 2 or len(out_shape) != 2:
        return None
    if not isinstance(key, tuple) or len(key) == 1 or (len(key) == 2 and key[1] is Ellipsis):
        return domain  # rows only
    if len(key) != 2:
        return None
    try:
        cols = np.arange(shape[1])[key[1]]
    except (IndexError, TypeError, ValueError):
        return None
    if cols.ndim != 1 or cols.shape[0] != out_shape[1] or np.unique(cols).shape[0] != cols.shape[0]:
        return None
    if np.array_equal(cols, np.arange(shape[1])):
        return domain
    from .feature_selection import restrict_domain

    return restrict_domain(domain, cols)


def _bare(x):
    return x.view(np.ndarray) if isinstance(x, EncodedArray) else x


def _spec(value):
    if isinstance(value, (Numeric, Categorical, Binary)):
        return value
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, numbers.Real) for v in value):
        return Numeric(float(value[0]), float(value[1]))
    if isinstance(value, (list, np.ndarray)):
        return Categorical(list(value))
    raise TypeError(
        f"a schema entry must be Numeric, Categorical, Binary, a (lower, upper) tuple or a list of categories, "
        f"got {value!r}"
    )


def _columns(X) -> Tuple[List[str], Any]:
    """Column names and a column accessor (name -> 1-D ndarray) for a pandas-like frame or a mapping of arrays; the
    accessor's ``kind`` attribute maps a name to its values' declared type (:func:`_value_kind`)."""
    if hasattr(X, "columns") and hasattr(X, "__getitem__"):
        keys = list(X.columns)
    elif isinstance(X, dict):
        keys = list(X)
        lengths = {str(c): len(X[c]) for c in keys}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"the columns of X have different lengths: {lengths}")
    else:
        keys = None
    if keys is not None:  # names as strings; a column is found by its string (an int name 0 as "0" or 0)
        by_name = {str(c): c for c in keys}

        def column(name):
            return np.asarray(X[by_name.get(str(name), name)])

        column.kind = lambda name: _value_kind(X[by_name.get(str(name), name)])
        return list(by_name), column
    raise TypeError(
        f"DomainEncoder needs named columns (a pandas DataFrame or a dict of arrays), got {type(X).__name__}"
    )


def _value_kind(values) -> Optional[str]:
    """"string" or "number" (bool and integers) from a column's dtype alone, or None where the dtype does not say
    (object, pandas' category, and float: pandas gives a column of missing values float64 whatever it would hold)."""
    dtype = getattr(values, "dtype", None)
    if dtype is None:
        dtype = np.asarray(values).dtype
    if type(dtype).__name__ == "StringDtype" or getattr(dtype, "kind", "O") in "US":
        return "string"
    return "number" if getattr(dtype, "kind", "O") in "biu" else None


def _check_declared_types(name, spec, declared, kind: Optional[str]) -> None:
    """A ``Binary``/``Categorical`` column whose dtype no declared value can equal (strings against integers or
    booleans, or the reverse) would encode every row as unknown, silently: raise instead. The check reads the dtype,
    which is part of the table's schema when the table is loaded with declared dtypes (see :class:`DomainEncoder`)."""
    if kind is None:
        return
    strings = [isinstance(v, (str, bytes)) for v in declared]
    if (kind == "string" and not any(strings)) or (kind == "number" and all(strings)):
        what = "strings" if kind == "string" else "numbers or booleans"
        raise TypeError(
            f"column {name!r} holds {what}, but its declared {type(spec).__name__} values {list(declared)[:6]!r} "
            f"are {'not strings' if kind == 'string' else 'strings'}: no value could match, so every row would "
            f"be encoded as unknown; declare the values as the column holds them"
            + (" (e.g. Binary('yes', 'no'))" if isinstance(spec, Binary) else "")
        )


class DomainEncoder:
    """Encode a table into [0, 1] features with a declared :class:`~dpfair_native.domain.FeatureDomain`.

    Parameters
    ----------
    schema : dict
        Column name -> :class:`Numeric` (or a ``(lower, upper)`` tuple), :class:`Categorical` (or a list of
        categories) or :class:`Binary`. The output columns follow the schema's order; columns of the input that
        the schema does not name are dropped. Every schema column must be present.
    sparse_output : bool, default False
        Return an :class:`EncodedCSR` (a ``scipy.sparse.csr_matrix`` carrying
        ``domain`` as :class:`EncodedArray` does; needs scipy) instead of a dense array.

    Attributes
    ----------
    domain_ : FeatureDomain
        Bounds [0, 1] for every output column and one one-hot group per categorical column and per binary column.
    feature_names_in_ : ndarray of str
        The schema's column names.
    n_features_in_ : int
        Number of schema columns.
    bounds_ : dict
        Numeric column -> (lower, upper) used; categories_ : dict, categorical column -> categories used.
    specs_ : dict
        Schema column -> its spec, normalised to a Numeric, Categorical or Binary (a SplineEncoder's Spline kept;
        ``SplineEncoder`` also sets ``n_spline_features_``, the number of hat features after the encoded columns).

    Notes
    -----
    ``fit`` reads no statistic of the data unless the schema leaves a bound or a category list undeclared, in
    which case it reads it and warns with :class:`PrivacyLeakWarning`: such a value depends on the private rows,
    and a model trained on the output is then not DP with respect to them. A numeric value x is mapped to
    (clip(x, l, u) − l)/(u − l); a missing numeric value (NaN/None) is rejected with an error naming the column —
    impute it with a public rule first (that abort is outside the DP guarantee). A categorical or binary value
    outside the declared ones, a missing one included, is mapped into the domain by the column's ``unknown`` rule
    (by default: zeros in its one-hot group, or the negative value). ``count_out_of_domain(X)`` tells the data's
    curator how many values were clipped or unknown; it is not private and is not stored.

    The encoder reads each column's dtype: a ``Binary``/``Categorical`` column held as strings whose declared
    values are all non-strings (or held as integers or booleans with only string values declared) raises a
    ``TypeError``, since every row would be unknown. Load the table with declared dtypes (e.g.
    ``pd.read_csv(..., dtype={...})``): pandas otherwise infers a dtype from the records (one stray "?" makes a 0/1
    column strings), and then the encoding of every row depends on one record.

    The transform's output carries ``domain_``: a dense result is an :class:`EncodedArray` (``.domain``), a
    sparse one has a ``domain`` attribute. The functional-mechanism estimators use it when their own ``domain``
    is None, so ``Pipeline([("encode", DomainEncoder(schema)), ("model", FairFunctionalMechanismLR())])`` needs no
    domain copied by hand.
    """

    def __init__(self, schema: Dict[str, Any], *, sparse_output: bool = False):
        self.schema = schema
        self.sparse_output = sparse_output

    # -- scikit-learn protocol ------------------------------------------------------------------------------
    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        return {"schema": self.schema, "sparse_output": self.sparse_output}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in ("schema", "sparse_output"):
                raise ValueError(f"invalid parameter {name!r} for DomainEncoder; valid: ['schema', 'sparse_output']")
            setattr(self, name, value)
        return self

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(), input_tags=InputTags(two_d_array=False, dict=True))

    def fit(self, X, y=None):
        """Check the schema against X's columns; read data only for undeclared bounds/categories (with a warning)."""
        if not isinstance(self.schema, dict) or not self.schema:
            raise TypeError("schema must be a non-empty dict: column name -> Numeric / Categorical / Binary")
        names, column = _columns(X)
        missing = [c for c in self.schema if str(c) not in names]
        if missing:
            raise ValueError(f"X lacks the schema's columns {missing}; it has {names}")
        bounds: Dict[str, Tuple[float, float]] = {}
        categories: Dict[str, list] = {}
        out_names: List[str] = []
        groups: List[Tuple[int, ...]] = []
        n_numeric = 0
        for name, raw in self.schema.items():
            spec = _spec(raw)
            if isinstance(spec, Numeric):
                lo, up = spec.lower, spec.upper
                if lo is None or up is None:
                    values = _numeric(column(str(name)), name)
                    warnings.warn(
                        f"DomainEncoder: bounds of {name!r} read from the data; declare them (Numeric(lower, upper)) "
                        "or the model is not DP with respect to these rows",
                        PrivacyLeakWarning, stacklevel=2,
                    )
                    lo = float(values.min()) if lo is None else lo
                    up = float(values.max()) if up is None else up
                lo, up = float(lo), float(up)
                if not (np.isfinite(lo) and np.isfinite(up) and lo < up):
                    raise ValueError(f"bounds of {name!r} must be finite with lower < upper, got ({lo}, {up})")
                bounds[name] = (lo, up)
                out_names.append(str(name))
                n_numeric += 1
            elif isinstance(spec, Categorical):
                if spec.unknown not in ("ignore", "other", "error"):
                    raise ValueError(
                        f"Categorical.unknown must be 'ignore', 'other' or 'error', got {spec.unknown!r} ({name!r})")
                cats = spec.categories
                if cats is None:
                    warnings.warn(
                        f"DomainEncoder: categories of {name!r} read from the data; declare them "
                        "(Categorical([...])) or the model is not DP with respect to these rows",
                        PrivacyLeakWarning, stacklevel=2,
                    )
                    cats = sorted({v for v in column(str(name)).tolist() if not _is_missing(v)}, key=str)
                cats = list(cats)
                if not cats or len(set(cats)) != len(cats):
                    raise ValueError(f"categories of {name!r} must be a non-empty list of distinct values")
                if any(_is_missing(c) for c in cats):
                    raise ValueError(
                        f"categories of {name!r} include a missing value (None, NaN or pd.NA), which matches no "
                        "value: missing values are unknown ones (see Categorical.unknown); to keep them apart, fill "
                        "them with a declared string first, e.g. X[column].fillna(\"missing\")"
                    )
                categories[name] = cats
                start = len(out_names)
                out_names += [f"{name}={c}" for c in cats] + ([f"{name}=other"] if spec.unknown == "other" else [])
                groups.append(tuple(range(start, len(out_names))))
            else:
                if spec.positive == spec.negative:
                    raise ValueError(f"Binary column {name!r} needs two different values")
                if spec.unknown not in ("negative", "error"):
                    raise ValueError(f"Binary.unknown must be 'negative' or 'error', got {spec.unknown!r} ({name!r})")
                groups.append((len(out_names),))
                out_names.append(f"{name}={spec.positive}")
        d = len(out_names)
        self.specs_ = {name: _spec(raw) for name, raw in self.schema.items()}
        self.bounds_ = bounds
        self.categories_ = categories
        self.feature_names_in_ = np.array([str(c) for c in self.schema], dtype=object)
        self.n_features_in_ = len(self.schema)
        self._names_out = np.array(out_names, dtype=object)
        self.domain_ = FeatureDomain(np.zeros(d), np.ones(d), one_hot_groups=groups, names=out_names)
        return self

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        self._check_fitted()
        return self._names_out.copy()

    def _check_fitted(self):
        if not hasattr(self, "domain_"):
            from .models._base import not_fitted_error

            raise not_fitted_error("this DomainEncoder is not fitted yet; call fit(X) first")

    # -- transform ------------------------------------------------------------------------------------------
    def _column_accessor(self, X):
        names, column = _columns(X)
        missing = [c for c in self.schema if str(c) not in names]
        if missing:
            raise ValueError(f"X lacks the schema's columns {missing}")
        return column

    def transform(self, X):
        """The encoded matrix (n, len(get_feature_names_out())): dense EncodedArray or CSR, carrying ``domain_``.

        A Dask DataFrame is encoded lazily, partition by partition, into a Dask DataFrame of float64 columns named
        by :meth:`get_feature_names_out` (the names of ``domain_``); pass ``domain=encoder.domain_`` to the estimator,
        since Dask collections carry no domain."""
        self._check_fitted()
        if _is_dask_frame(X):
            return self._transform_dask(X)
        column = self._column_accessor(X)
        pieces = []  # (rows, columns, values) of the non-zeros
        n = None
        offset = 0
        for name, spec in self.specs_.items():
            values = column(str(name))
            if values.ndim != 1:
                raise ValueError(f"column {name!r} must be 1-D")
            if n is None:
                n = values.shape[0]
            rows = np.arange(n)
            if isinstance(spec, Numeric):
                lo, up = self.bounds_[name]
                v = (np.clip(_numeric(values, name), lo, up) - lo) / (up - lo)
                keep = v != 0
                pieces.append((rows[keep], np.full(keep.sum(), offset), v[keep]))
                offset += 1
            elif isinstance(spec, Categorical):
                cats = self.categories_[name]
                _check_declared_types(name, spec, cats, column.kind(str(name)))
                codes = _category_codes(values, cats)
                unknown = codes < 0
                if unknown.any() and spec.unknown == "error":  # the message names no value (it is a record's)
                    raise ValueError(
                        f"column {name!r} has values outside its declared categories (missing ones included); "
                        "add them to the schema or use Categorical(..., unknown='ignore' or 'other')"
                    )
                if spec.unknown == "other":
                    codes = np.where(unknown, len(cats), codes)
                keep = codes >= 0
                pieces.append((rows[keep], offset + codes[keep], np.ones(int(keep.sum()))))
                offset += len(cats) + (spec.unknown == "other")
            else:
                _check_declared_types(name, spec, (spec.positive, spec.negative), column.kind(str(name)))
                pos = _equals(values, spec.positive)
                if spec.unknown == "error":
                    other = ~(pos | _equals(values, spec.negative))
                    if other.any():
                        raise ValueError(
                            f"binary column {name!r} has values other than {spec.positive!r}/{spec.negative!r} "
                            "(missing ones included); or use Binary(..., unknown='negative')"
                        )
                pieces.append((rows[pos], np.full(pos.sum(), offset), np.ones(pos.sum())))
                offset += 1
        rows, cols, vals = (np.concatenate(part) for part in zip(*pieces))
        vals = vals.astype(np.float64)
        shape = (n, offset)
        if self.sparse_output:
            from ._encoded_csr import EncodedCSR

            out = EncodedCSR((vals, (rows, cols)), shape=shape)
            out.domain = self.domain_
            return out
        dense = np.zeros(shape)
        dense[rows, cols] = vals
        out = dense.view(EncodedArray)
        out.domain = self.domain_
        return out

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)

    def _transform_dask(self, X):
        import copy

        import pandas as pd

        if self.sparse_output:
            raise TypeError("sparse_output=True does not take a Dask DataFrame; encode it densely (the default)")
        self._column_accessor(X)  # the schema's columns must be there (names only: nothing is computed)
        names = [str(c) for c in self._names_out]
        meta = pd.DataFrame({name: pd.Series(dtype=np.float64) for name in names})
        fitted = copy.deepcopy(self)  # the state of this fit: a refit before compute() must not change the result

        def encode(part):
            return pd.DataFrame(np.asarray(fitted.transform(part)), columns=names, index=part.index)

        return X.map_partitions(encode, meta=meta)

    def count_out_of_domain(self, X) -> Dict[str, int]:
        """Per schema column, how many values of X would be clipped (numeric) or are unknown (categorical).

        For the data's curator only: these counts are statistics of the private data, not DP releases.
        """
        self._check_fitted()
        column = self._column_accessor(X)
        out = {}
        for name, spec in self.specs_.items():
            values = column(str(name))
            if isinstance(spec, Numeric):
                lo, up = self.bounds_[name]
                v = _numeric(values, name)
                out[name] = int(np.sum((v < lo) | (v > up)))
            elif isinstance(spec, Categorical):
                out[name] = int(np.sum(_category_codes(values, self.categories_[name]) < 0))
            else:
                out[name] = int(np.sum(~(_equals(values, spec.positive) | _equals(values, spec.negative))))
        return out


def _is_dask_frame(X) -> bool:
    from .distributed import is_dask_collection  # imports no Dask

    return is_dask_collection(X) and hasattr(X, "map_partitions") and hasattr(X, "columns")


def _numeric(values, name) -> np.ndarray:
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"numeric column {name!r} holds non-numbers; declare it Categorical or convert it") from None
    if not np.all(np.isfinite(v)):
        raise ValueError(f"column {name!r} has missing or infinite values; impute them with a public rule first")
    return v


def _equals(values, target) -> np.ndarray:
    """values == target elementwise; a missing value (None, NaN, pd.NA, NaT) equals nothing."""
    if values.dtype != object:
        return np.asarray(values == target, dtype=bool)
    return np.fromiter((not _is_missing(v) and _same(v, target) for v in values.tolist()), dtype=bool,
                       count=len(values))


def _same(value, target) -> bool:
    try:
        return bool(value == target)
    except (TypeError, ValueError):  # e.g. an array-valued cell: no declared value
        return False


def _category_codes(values, categories) -> np.ndarray:
    """Index of each value in ``categories``; -1 where it is absent or missing (None, NaN, pandas' NA/NaT)."""
    lookup = {c: i for i, c in enumerate(categories)}
    items = values.tolist()
    return np.fromiter((-1 if _is_missing(v) else _lookup(lookup, v) for v in items), dtype=np.int64,
                       count=len(items))


def _lookup(lookup: dict, value) -> int:
    try:
        return lookup.get(value, -1)
    except TypeError:  # an unhashable value is no declared category
        return -1


# -- public spline features (issue 12) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Spline(Numeric):
    """A numeric column kept as its scaled value and also expanded on public knots into hat (degree-1 B-spline)
    features, so that a linear model can fit a piecewise-linear function of it.

    ``knots``: strictly increasing public cut points (never read from the data); ``lower``/``upper`` default to
    the first and last knot. A value x, clipped into [knots[0], knots[-1]], lies between knots c_j <= x <= c_{j+1}
    and gets weight 1 − t on knot j and t on knot j+1, t = (x − c_j)/(c_{j+1} − c_j); all other knots get 0. The
    m = len(knots) features of a row lie in [0, 1] and sum to 1 (at most two are non-zero), so their squared norm
    is at most 1 whatever the data. Only :class:`SplineEncoder` adds the hat features; a plain
    :class:`DomainEncoder` encodes a ``Spline`` column as the :class:`Numeric` it extends.
    """

    knots: Sequence[float] = ()

    def __post_init__(self):
        knots = self.checked_knots("Spline")
        object.__setattr__(self, "knots", tuple(float(c) for c in knots))
        if self.lower is None:
            object.__setattr__(self, "lower", float(knots[0]))
        if self.upper is None:
            object.__setattr__(self, "upper", float(knots[-1]))

    def checked_knots(self, name) -> np.ndarray:
        k = np.asarray(self.knots, dtype=np.float64)
        if k.ndim != 1 or k.size < 2 or not np.all(np.isfinite(k)) or np.any(np.diff(k) <= 0):
            raise ValueError(f"Spline knots of {name!r} must be >= 2 finite, strictly increasing numbers")
        return k


def hat_basis(values, knots) -> np.ndarray:
    """(n, len(knots)) hat-function (degree-1 B-spline) weights of ``values`` clipped into the knots' range."""
    k = np.asarray(knots, dtype=np.float64)
    v = np.clip(np.asarray(values, dtype=np.float64), k[0], k[-1])
    j = np.clip(np.searchsorted(k, v, side="right") - 1, 0, k.size - 2)
    t = (v - k[j]) / (k[j + 1] - k[j])
    out = np.zeros((v.size, k.size))
    rows = np.arange(v.size)
    out[rows, j] = 1.0 - t
    out[rows, j + 1] += t
    return out


class SplineEncoder(DomainEncoder):
    """:class:`DomainEncoder` that also expands every :class:`Spline` column on its public knots.

    The output is the :class:`DomainEncoder` output (a ``Spline`` column as its scaled value) followed, for each
    ``Spline`` column in schema order, by its ``len(knots)`` hat features named ``"{column}@{knot}"``. ``domain_``
    gives every hat feature the bounds [0, 1]; the hat features of one column are *not* declared a one-hot group
    (two of them can be non-zero), so estimators that use the domain see the looser, always valid, per-column
    bounds. Nothing is read from the data: the knots are part of the declared schema.
    """

    def _spline_columns(self):
        return [(name, spec) for name, spec in self.specs_.items() if isinstance(spec, Spline)]

    def fit(self, X, y=None):
        """As :meth:`DomainEncoder.fit`, plus the hat features' names and [0, 1] bounds in ``domain_``."""
        super().fit(X, y)
        names = list(self._names_out)
        for name, spec in self._spline_columns():
            names += [f"{name}@{c:g}" for c in spec.checked_knots(name)]
        base = self.domain_
        extra = len(names) - len(self._names_out)
        self._names_out = np.array(names, dtype=object)
        self.domain_ = FeatureDomain(np.zeros(len(names)), np.ones(len(names)),
                                     one_hot_groups=base.one_hot_groups, names=names)
        self.n_spline_features_ = extra
        return self

    def transform(self, X):
        """The :class:`DomainEncoder` matrix with the hat features appended (dense or CSR, carrying ``domain_``; a
        Dask DataFrame lazily, as :meth:`DomainEncoder.transform` says)."""
        if _is_dask_frame(X):
            self._check_fitted()
            return self._transform_dask(X)
        base = super().transform(X)
        column = self._column_accessor(X)
        blocks = [hat_basis(_numeric(column(str(name)), name), spec.checked_knots(name))
                  for name, spec in self._spline_columns()]
        if not blocks:
            return base
        if self.sparse_output:
            from scipy import sparse

            from ._encoded_csr import EncodedCSR

            out = EncodedCSR(sparse.hstack([base] + [sparse.csr_matrix(b) for b in blocks], format="csr"))
            out.domain = self.domain_
            return out
        out = np.hstack([np.asarray(base)] + blocks).view(EncodedArray)
        out.domain = self.domain_
        return out


def adult_spline_schema():
    """The Adult schema of :func:`dpfair_native.datasets.adult_schema` with public knots on its five numeric columns.

    The knots are round numbers fixed from the columns' documented meaning and ranges, not from the data: age
    at 17, every 10 years from 20 to 70, and 90; education-num at every level 1..16 (it is ordinal); hours-per-week
    at the usual part-time/full-time/overtime marks; capital-gain and capital-loss at 0 and then geometrically
    spaced up to the documented maximum (money: multiplicative scale). How many knots each column gets was chosen
    on a validation part of Adult's seed-0 training split (bench/RESULTS.md, DP + fair frontier).
    """
    from .datasets import adult_schema

    knots = {
        "age": (17, 20, 30, 40, 50, 60, 70, 90),
        "education-num": tuple(range(1, 17)),
        "hours-per-week": (1, 20, 30, 35, 40, 45, 50, 60, 80, 99),
        "capital-gain": (0,) + tuple(float(f"{v:.3g}") for v in np.geomspace(100, 99999, 12)[:-1]) + (99999,),
        "capital-loss": (0,) + tuple(float(f"{v:.3g}") for v in np.geomspace(100, 4356, 10)[:-1]) + (4356,),
    }
    schema = adult_schema()
    for name, k in knots.items():
        lower, upper = schema[name].lower, schema[name].upper
        schema[name] = Spline(lower, upper, k)
    return schema


__all__ += ["Spline", "SplineEncoder", "hat_basis", "adult_spline_schema"]


def __getattr__(name):
    if name == "EncodedCSR":  # the sparse output's class; imports scipy (optional), so only when asked for
        # (not in __all__: a star import must not need scipy)
        from ._encoded_csr import EncodedCSR

        return EncodedCSR
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
