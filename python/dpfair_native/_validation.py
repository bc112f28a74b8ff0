"""Input checks shared by estimators, mechanisms, accountants and metrics.

Each raises ValueError/TypeError whose message names the argument and says what to do.

Estimator parameters are declared once, scikit-learn style: a class attribute ``_parameter_constraints`` maps every
``__init__`` parameter to a list of allowed forms, and :func:`validate_params` checks them all at the start of
``fit``, before any data is touched. The forms:

* :class:`Interval` — ``Interval(numbers.Real, 0, None, closed="left")`` is a finite number >= 0;
  ``Interval(numbers.Real, 0, math.inf, closed="right")`` is a number > 0 or inf; ``numbers.Integral`` for ints
  (bool is never a number here);
* :class:`StrOptions` / :class:`Options` — one of a set of strings / of values of a type;
* ``None`` — the value None; ``"boolean"`` — True or False; ``"random_state"`` — an int >= 0, a NumPy Generator
  or None; ``"array-like"`` — a sequence or array (checked in full by the estimator, which knows the shape);
  ``"callable"``; a class — an instance of it.

Arrays keep their own checks (``check_X``, ``check_sensitive_features``): they depend on data.
"""

from __future__ import annotations

import inspect
import math
import numbers
from typing import Optional, Tuple

import numpy as np

# ------------------------------------------------------------------------------------------------------------
# declarative parameter constraints
# ------------------------------------------------------------------------------------------------------------


class InvalidParameterError(ValueError, TypeError):
    """A parameter outside its declared constraints: both a ValueError and a TypeError (as scikit-learn's), so
    code catching either for a wrong value or a wrong type keeps working."""


def _is_number(value, kind) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if kind is numbers.Integral:
        return isinstance(value, (numbers.Integral, np.integer))
    return isinstance(value, (numbers.Real, np.floating, np.integer))


class Interval:
    """Numbers of ``kind`` (``numbers.Real`` or ``numbers.Integral``) between ``left`` and ``right``.

    ``None`` for a bound means unbounded on that side and excludes the infinities (a "finite number"); an infinite
    bound with that side closed admits it (``Interval(Real, 0, math.inf, closed="right")``: > 0 or inf). ``closed``
    is one of "both", "left", "right", "neither". NaN is never inside.
    """

    def __init__(self, kind, left, right, *, closed: str):
        if kind not in (numbers.Real, numbers.Integral):
            raise TypeError("Interval kind must be numbers.Real or numbers.Integral")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError("closed must be 'both', 'left', 'right' or 'neither'")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def is_satisfied_by(self, value) -> bool:
        if not _is_number(value, self.kind) or math.isnan(value):
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        lo = -math.inf if self.left is None else self.left
        hi = math.inf if self.right is None else self.right
        if self.left is None and value == -math.inf or self.right is None and value == math.inf:
            return False
        above = value >= lo if left_closed else value > lo
        below = value <= hi if right_closed else value < hi
        return above and below

    def __str__(self) -> str:
        """A verb phrase for the error message: "be a finite number >= 0", "lie in (0, 1]", ..."""
        integer = self.kind is numbers.Integral
        noun = "an integer" if integer else "a finite number"
        left_op = ">=" if self.closed in ("both", "left") else ">"
        if self.right is None and self.left is not None:
            if integer and left_op == ">=" and self.left == 1:
                return "be a positive integer"
            return f"be {noun} {left_op} {self.left:g}"
        if self.right == math.inf and self.closed in ("both", "right") and self.left is not None:
            return f"be {noun} {left_op} {self.left:g} or inf"
        lb = "[" if self.closed in ("both", "left") else "("
        rb = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        return f"lie in {lb}{lo}, {hi}{rb}" + (" (an integer)" if integer else "")


class Options:
    """One of a fixed set of values of type ``kind``."""

    def __init__(self, kind, options):
        self.kind, self.options = kind, frozenset(options)

    def is_satisfied_by(self, value) -> bool:
        try:
            return isinstance(value, self.kind) and value in self.options
        except TypeError:  # unhashable
            return False

    def __str__(self) -> str:
        return "be one of " + ", ".join(repr(o) for o in sorted(self.options, key=str))


class StrOptions(Options):
    """One of a fixed set of strings."""

    def __init__(self, options):
        super().__init__(str, options)


def _satisfies(value, constraint) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, (Interval, Options)):
        return constraint.is_satisfied_by(value)
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "random_state":
        return value is None or isinstance(value, np.random.Generator) or (
            _is_number(value, numbers.Integral) and value >= 0)
    if constraint == "array-like":
        return isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "__array__")
    if constraint == "callable":
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    raise TypeError(f"unknown parameter constraint {constraint!r}")  # a declaration bug


def _describe(constraint) -> str:
    words = {None: "be None", "boolean": "be True or False", "array-like": "be an array-like",
             "callable": "be a callable", "random_state": "be an int >= 0, a numpy.random.Generator or None"}
    if isinstance(constraint, type):
        return f"be an instance of {constraint.__name__}"
    if isinstance(constraint, (Interval, Options)):
        return str(constraint)
    return words.get(constraint, str(constraint))


def validate_params(estimator) -> None:
    """Check every parameter named in ``type(estimator)._parameter_constraints`` against its allowed forms.

    Raises :class:`InvalidParameterError` (a ValueError and a TypeError) naming the estimator, the parameter, the
    value, what is allowed and the default to fall back to. A table naming something that is not a parameter of the
    estimator is a declaration bug (RuntimeError).
    """
    cls = type(estimator)
    table = getattr(cls, "_parameter_constraints", {})
    signature = inspect.signature(cls.__init__).parameters
    for name, allowed in table.items():
        if name not in signature:
            raise RuntimeError(f"{cls.__name__}._parameter_constraints names {name!r}, not a parameter")
        value = getattr(estimator, name)
        if any(_satisfies(value, c) for c in allowed):
            continue
        described = [_describe(c) for c in allowed]
        what = described[0] if len(described) == 1 else ", ".join(described[:-1]) + ", or " + described[-1]
        default = signature[name].default
        fix = "" if default is inspect.Parameter.empty else f"; e.g. the default {name}={default!r}"
        raise InvalidParameterError(f"{name} must {what}, got {value!r} ({cls.__name__}){fix}")


POSITIVE = Interval(numbers.Real, 0, None, closed="neither")
"""A finite number > 0 (the shorthands below are shared by the parameter tables)."""
POSITIVE_OR_INF = Interval(numbers.Real, 0, math.inf, closed="right")
"""A number > 0 or inf (ε = inf: a non-private run)."""
NON_NEGATIVE = Interval(numbers.Real, 0, None, closed="left")
"""A finite number >= 0."""
POSITIVE_INT = Interval(numbers.Integral, 1, None, closed="left")
"""An integer >= 1."""
PROBABILITY = Interval(numbers.Real, 0, 1, closed="neither")
"""A number in (0, 1): δ, budget fractions."""
BACKEND = StrOptions({"native", "numpy"})
"""The kernel backends."""


def check_int(value, name: str, *, minimum: int = 1) -> int:
    """An integer (not bool) >= ``minimum``, for function arguments (estimators declare theirs in a table)."""
    if not _is_number(value, numbers.Integral) or value < minimum:
        what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise InvalidParameterError(f"{name} must be {what}, got {value!r}")
    return int(value)


def check_random_state(random_state) -> np.random.Generator:
    """int -> reproducible Generator (PCG64 seeded with it); Generator -> itself; None -> fresh OS entropy."""
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, a numpy Generator or None, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        f"random_state must be an int, a numpy.random.Generator or None, got {type(random_state).__name__}"
    )


def _real(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    return float(value)


def check_epsilon(epsilon, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """A privacy parameter ε > 0 (finite unless allow_inf: ε = inf means 'no noise', a non-private run)."""
    eps = _real(epsilon, name)
    if np.isnan(eps) or eps <= 0 or (np.isinf(eps) and not allow_inf):
        hint = " (or inf for a non-private run)" if allow_inf else ""
        raise ValueError(f"{name} must be a finite number > 0{hint}, got {epsilon!r}")
    return eps


def check_delta(delta, name: str = "delta", *, allow_zero: bool = False) -> float:
    """A privacy parameter δ in (0, 1) (or [0, 1) with allow_zero)."""
    d = _real(delta, name)
    low_ok = d >= 0 if allow_zero else d > 0
    if np.isnan(d) or not low_ok or d >= 1:
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {delta!r}; typical values are 1e-5 or 1/n^2")
    return d


def check_positive(value, name: str, *, allow_inf: bool = False) -> float:
    v = _real(value, name)
    if np.isnan(v) or v <= 0 or (np.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def check_X(X, name: str = "X", *, n_features: Optional[int] = None, estimator: str = "the estimator") -> np.ndarray:
    """A finite 2-D float array with at least one row and one column (float32 kept, other reals -> float64).

    A scipy.sparse matrix/array is returned as canonical CSR (CSC/COO converted once, never densified; see
    :func:`check_sparse_X`). Messages follow scikit-learn's wording where it has one, so its estimator checks
    recognise them.
    """
    if is_scipy_sparse(X):
        return check_sparse_X(X, name, n_features=n_features, estimator=estimator)
    from .distributed import is_dask_collection  # no Dask import

    if is_dask_collection(X):  # np.asarray would compute the whole collection into memory
        raise TypeError(f"{name} is a Dask collection, and {estimator} has no Dask path here; pass NumPy arrays (e.g. "
                        f"{name}.compute() on a sample), or use an estimator with a Dask fit (the functional-mechanism "
                        "family, LogisticRegression)")
    X = real_values(X, name)
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D {name} (n_samples, n_features), got {X.ndim}-D with shape {X.shape}. Reshape your data "
            "with array.reshape(-1, 1) for a single feature or array.reshape(1, -1) for a single sample."
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        what = "sample(s)" if X.shape[0] == 0 else "feature(s)"
        raise ValueError(f"Found array with 0 {what} (shape={X.shape}) while a minimum of 1 is required.")
    _check_finite_magnitude(X, name)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} has {X.shape[1]} features, but {estimator} is expecting {n_features} features "
                         "as input")
    return X


def real_values(X, name: str = "X") -> np.ndarray:
    """X (an array, list or pandas DataFrame, with any column dtypes) as float32 (kept) or float64 values; a clear
    error for missing values, complex numbers and values that are not real numbers. Also each partition of a Dask
    DataFrame, so that both paths accept and refuse the same columns."""
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    X = np.asarray(X)
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {X.dtype}")
    if X.dtype.kind == "O":
        if any(_is_missing(v) for v in X.ravel().tolist()):
            raise ValueError(f"{name} contains missing values (None, NaN or pd.NA); remove or impute them first")
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as exc:
            # a TypeError names the type ("float() argument must be a string or a real number, not 'dict'"); a
            # ValueError quotes the string that failed, a record's value, so it is not repeated
            why = str(exc) if isinstance(exc, TypeError) else "it holds values that are not real numbers"
            raise TypeError(
                f"{name} must hold real numbers ({why}); encode categories numerically first "
                "(dpfair_native.preprocessing.DomainEncoder does it with a declared schema)"
            ) from None
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers, got dtype {X.dtype}; encode categories numerically first "
            "(dpfair_native.preprocessing.DomainEncoder does it with a declared schema)"
        )
    return X if X.dtype in (np.float32, np.float64) else X.astype(np.float64)


MAX_MAGNITUDE = 1e150
MAX_MAGNITUDE_FLOAT32 = 1e18  # float32 squares overflow past ~1.8e19


def _check_finite_magnitude(values: np.ndarray, name: str) -> None:
    """No NaN or infinity, and no finite value whose square overflows (|x| > MAX_MAGNITUDE): such values break
    norms and clipping mid-fit, and only when their row is used (a DP-SGD batch), so they are refused up front with
    the other bad input. One native pass over X (``kernels.values_within``); only bad input pays for the min and
    max that tell NaN/infinity from a large finite value (the message quotes neither)."""
    if not values.size:
        return
    from .kernels import values_within

    limit = MAX_MAGNITUDE if values.dtype == np.float64 else MAX_MAGNITUDE_FLOAT32
    if values_within(values, -limit, limit):
        return
    lo, hi = float(values.min()), float(values.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those values first")
    if max(-lo, hi) > limit:  # the message does not quote the value: it belongs to one person's record
        raise ValueError(f"{name} has values of magnitude above {limit:g}, whose squares overflow ({values.dtype}: "
                         "norms, clipping): rescale or clip X first")


def _countable(lo: int, hi: int, size: int) -> bool:
    """Integers in [lo, hi] are counted (a table of hi − lo + 1 int64 offsets) rather than sorted: a range small
    against ``size`` and within int64."""
    return hi - lo <= 4 * size and -(2**62) < lo and hi < 2**62


def _distinct_values(v: np.ndarray, name: str) -> Tuple[np.ndarray, np.ndarray]:
    """np.unique(v, return_inverse=True); for integer/bool v with a small range by counting (no sort)."""
    if v.dtype.kind in "biu" and v.size:
        lo, hi = int(v.min()), int(v.max())
        if _countable(lo, hi, v.size):
            offsets = v.astype(np.int64) - lo
            present = np.flatnonzero(np.bincount(offsets, minlength=hi - lo + 1))
            codes = np.empty(hi - lo + 1, dtype=np.int64)
            codes[present] = np.arange(present.size)
            return (present + lo).astype(v.dtype), codes[offsets]
    try:
        return np.unique(v, return_inverse=True)
    except TypeError:  # an object array mixing types that do not compare, e.g. 1 and "1"
        raise mixed_types_error(name) from None


def mixed_types_error(name: str) -> ValueError:
    """The error for labels of types that do not compare (in memory and on Dask)."""
    return ValueError(f"{name} mixes values of types that do not compare (e.g. 1 and '1'); convert them to one type")


def is_scipy_sparse(X) -> bool:
    """True for a scipy.sparse matrix or array, subclasses included (e.g. :class:`~dpfair_native.preprocessing.
    EncodedCSR`), checked without importing scipy."""
    return any(c.__module__.startswith("scipy.sparse") for c in type(X).__mro__) and hasattr(X, "tocsr")


def column_vector(v, n: int, name: str, *, what: str = "value", warn_column: bool = False) -> np.ndarray:
    """A NumPy 1-D array with one entry per row of X (``n``) from an array, list, pandas Series or (n, 1) column.

    ``warn_column``: warn when an (n, 1) column is passed (scikit-learn's rule for targets).
    """
    if hasattr(v, "to_numpy"):
        v = v.to_numpy()
    v = np.asarray(v)
    if v.ndim == 2 and v.shape[1] == 1:
        if warn_column:
            import sys
            import warnings

            # scikit-learn's DataConversionWarning when scikit-learn is in use (a UserWarning subclass), else
            # UserWarning
            category = getattr(sys.modules.get("sklearn.exceptions"), "DataConversionWarning", UserWarning)
            warnings.warn(f"A column-vector {name} was passed when a 1d array was expected; using {name}.ravel()",
                          category, stacklevel=4)
        v = v[:, 0]
    if v.ndim != 1 or v.shape[0] != n:
        hint = ""
        if v.ndim == 0 and isinstance(v.item(), str):
            hint = f"; pass the column's values (e.g. X.pop({v.item()!r})), not its name"
        elif v.ndim == 2 and name == "sensitive_features":
            hint = ("; to use several columns, combine them into one label per row (e.g. "
                    "frame.astype(str).agg('|'.join, axis=1)) and declare the combinations")
        raise ValueError(f"{name} must be 1-D with one {what} per row of X ({n}), got shape {v.shape}{hint}")
    return v


def _is_missing(x) -> bool:
    """None, a float NaN, pandas' NA or NaT (without importing pandas)."""
    return x is None or (isinstance(x, float) and math.isnan(x)) or type(x).__name__ in ("NAType", "NaTType")


def _check_no_missing(v: np.ndarray, name: str) -> None:
    """Missing values in an object array (pandas columns with None / NaN / pd.NA) get a clear error, not the raw
    TypeError of sorting them among labels."""
    if v.dtype.kind == "O" and any(_is_missing(x) for x in v):
        raise ValueError(f"{name} contains missing values (None, NaN or pd.NA); remove or impute them first")


def check_binary_labels(y, n: int, name: str = "y", *, zero_one_public: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """Labels with exactly two distinct values -> (classes (2,), y01 float64 in {0, 1}).

    ``zero_one_public`` (private fits): numeric or boolean labels within {0, 1} have the classes [0, 1] whether or
    not both occur, so a data set whose only positive (or negative) record is removed fits as its neighbour does
    instead of raising (an abort that would reveal that record). Silently: a warning only on one-class data would
    reveal that record just as well (and, in the hyper-parameter search, how many runs there were)."""
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    y = column_vector(y, n, name, what="label", warn_column=True)
    _check_no_missing(y, name)
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{name} contains NaN or infinity")
        if np.any(y != np.round(y)):
            raise ValueError(f"Unknown label type: continuous; {name} must hold two class labels")
    if y.dtype.kind == "f" and y.size and -2.0**62 < y.min() and y.max() < 2.0**62:  # integral: count, don't sort
        classes, y01 = _distinct_values(y.astype(np.int64), name)
        classes = classes.astype(y.dtype)
    else:
        classes, y01 = _distinct_values(y, name)
    if classes.shape[0] == 1 and zero_one_public and y.dtype.kind in "biuf" and classes[0] in (0, 1):
        return np.array([0, 1]).astype(y.dtype), (y == 1).astype(np.float64)
    if classes.shape[0] == 1:  # the messages name no label value: a rare one would be a record's
        raise ValueError(f"{name} has 1 class; binary classification needs both classes")
    if classes.shape[0] != 2:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: {name} has "
            f"{classes.shape[0]} classes"
        )
    return classes, y01.astype(np.float64)


# Names the public declared labels only: the undeclared values belong to the records that hold them.
_UNDECLARED_GROUP = "sensitive_features has values not in the declared groups {}; declare every label s may hold"


def check_sensitive_features(sensitive_features, n: int, *, groups=None) -> Tuple[np.ndarray, np.ndarray]:
    """Sensitive feature values -> (group labels (K,), codes (n,) int64 in 0..K-1).

    With `groups` (a declared, public list of group labels) the codes follow that list, every value must be in it,
    and K = len(groups) whether or not every group has rows; otherwise the groups are the sorted distinct values.
    """
    if sensitive_features is None:
        raise ValueError("sensitive_features is required: pass one group label per row, "
                         "fit(X, y, sensitive_features=s)")
    s = column_vector(sensitive_features, n, "sensitive_features")
    _check_no_missing(s, "sensitive_features")
    if s.dtype.kind == "f" and not np.all(np.isfinite(s)):
        raise ValueError("sensitive_features contains NaN or infinity")
    if groups is None:
        labels, codes = _distinct_values(s, "sensitive_features")
        return labels, codes.astype(np.int64)
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.shape[0] < 1 or np.unique(labels).shape[0] != labels.shape[0]:
        raise ValueError("groups must be a 1-D list of distinct group labels")
    if s.dtype.kind in "biu" and labels.dtype.kind in "biu" and s.size:  # integer codes: a lookup table, no sort
        lo = min(int(s.min()), int(labels.min()))
        hi = max(int(s.max()), int(labels.max()))
        if _countable(lo, hi, s.size):
            table = np.full(hi - lo + 1, -1, dtype=np.int64)
            table[labels.astype(np.int64) - lo] = np.arange(labels.shape[0])
            codes = table[s.astype(np.int64) - lo]
            if codes.min() < 0:
                raise ValueError(_UNDECLARED_GROUP.format(labels.tolist()))
            return labels, codes
    try:
        order = np.argsort(labels, kind="stable")
        pos = np.searchsorted(labels[order], s)
    except TypeError:  # labels and values that do not compare (e.g. declared [0, 1], strings in s)
        raise ValueError(f"sensitive_features has values that do not compare with the declared groups "
                         f"{labels.tolist()} (other types); declare the labels s actually holds") from None
    pos = np.clip(pos, 0, labels.shape[0] - 1)
    found = labels[order][pos] == s
    if not np.all(found):
        raise ValueError(_UNDECLARED_GROUP.format(labels.tolist()))
    return labels, order[pos].astype(np.int64)


def check_sparse_X(X, name: str = "X", *, n_features: Optional[int] = None, estimator: str = "the estimator"):
    """A scipy.sparse X as the kernels take it: canonical CSR, float32/float64, finite stored values, >= 1 row and
    column. CSR is kept as is (no copy); CSC and COO are converted once; other formats are refused with the fix."""
    from .kernels import _check_sparse_structure, _csr_matrix

    if not hasattr(X, "format") or not hasattr(X, "tocsr"):
        raise TypeError(f"{name} is a scipy.sparse object of type {type(X).__name__}; pass a CSR matrix")
    if X.format == "csr":  # before the estimator's own products read it (_csr_matrix checks what it converts)
        _check_sparse_structure(X, name)
    X = _csr_matrix(X, name)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}")
    _check_finite_magnitude(X.data, name)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} has {X.shape[1]} features, but {estimator} is expecting {n_features} features "
                         "as input")
    return X
