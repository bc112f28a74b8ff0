"""What every estimator shares: scikit-learn's parameter protocol, input checks and a linear decision function.

Subclasses implement ``_fit(X, y, groups, group_labels, rng) -> dict`` returning the fitted attributes (names ending
in ``_``; at least ``coef_``, ``intercept_``, ``privacy_spent_``). ``fit`` sets them all at once after ``_fit``
returns, so a failed fit leaves no half-fitted attributes behind. scikit-learn is not needed at runtime; with it
installed the estimators work in ``clone``, ``Pipeline`` and ``GridSearchCV``.
"""

from __future__ import annotations

import inspect
import re
import sys
import warnings
from typing import Any, Dict, Optional

import numpy as np

from .._validation import (
    check_binary_labels,
    check_random_state,
    check_sensitive_features,
    check_X,
    column_vector,
    is_scipy_sparse,
    validate_params,
)
from ..distributed import (
    is_dask_collection,  # no Dask import: the module imports Dask only when used
)
from ..domain import FeatureDomain
from ..preprocessing import PrivacyLeakWarning


class NotFittedError(ValueError, AttributeError):
    """Raised when predict/decision_function is called before fit.

    When scikit-learn is in use (``sklearn.exceptions`` imported), the raised error is also an instance of its
    ``NotFittedError``, so ``except sklearn.exceptions.NotFittedError`` and scikit-learn's checks see it, without
    this library importing scikit-learn itself.
    """


class TrainingDivergedError(ValueError):
    """Raised when DP-SGD training ends with non-finite weights.

    Divergence is a function of the released noisy sums (post-processing), so a single fit may raise it; the
    private hyper-parameter search catches it and scores the run as failed instead of aborting the search.
    """

    def __init__(self, message: str = "training diverged (non-finite weights); lower learning_rate or clip_norm"):
        super().__init__(message)


_NOT_FITTED_CLASSES: Dict[type, type] = {}


def not_fitted_error(message: str) -> NotFittedError:
    """A NotFittedError, subclassing scikit-learn's too when scikit-learn has been imported."""
    sk = sys.modules.get("sklearn.exceptions")
    base = getattr(sk, "NotFittedError", None)
    if base is None:
        return NotFittedError(message)
    if base not in _NOT_FITTED_CLASSES:
        _NOT_FITTED_CLASSES[base] = type("NotFittedError", (NotFittedError, base), {"__module__": __name__})
    return _NOT_FITTED_CLASSES[base](message)


def feature_names_of(X) -> Optional[np.ndarray]:
    """The column names of a DataFrame-like X when they are all strings (scikit-learn's rule), else None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    return names if names.size and all(isinstance(c, str) for c in names) else None


class _FitRequest(dict):
    """What ``set_fit_request`` asked for; scikit-learn's ``clone`` copies it to the clone."""

    def __sklearn_clone__(self):
        return _FitRequest(self)


def replace_fitted(est, fitted: Dict[str, Any]):
    """Set ``est``'s fitted attributes to ``fitted``, dropping every one a previous fit left (name ending in "_"),
    so a refit never keeps a stale ``groups_`` or ``feature_names_in_``; returns est."""
    for name in [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]:
        delattr(est, name)
    for name, value in fitted.items():
        setattr(est, name, value)
    return est


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes ``warnings.warn``, called in the function that calls this one, name the first
    frame outside this package (the user's call of ``fit``, whatever path led there: a subclass override, the Dask
    fit)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == __name__.partition(".")[0]:
        frame, level = frame.f_back, level + 1
    return level


def warn_if_groups_read_from_data(est, group_labels, stacklevel: int = 3) -> None:
    """PrivacyLeakWarning when a private fit takes its group labels from the data (no ``declared_groups``): which
    groups occur, and how many, is then released without protection (``groups_``, and every per-group quantity's
    shape)."""
    if getattr(est, "declared_groups", None) is not None or not est._adds_noise():
        return
    warnings.warn(
        f"{type(est).__name__}: the group labels {np.asarray(group_labels).tolist()} "
        "were read from sensitive_features, so which groups occur is released without privacy protection; pass "
        "declared_groups=[...] (the public list of possible labels) to make them public by declaration",
        PrivacyLeakWarning,
        stacklevel=stacklevel,
    )


def warn_if_classes_read_from_data(name: str, private: bool, classes, stacklevel: int = 3) -> None:
    """PrivacyLeakWarning when a private fit takes its class labels from y: labels other than 0/1 (or bool) are the
    distinct values of y, so which labels occur is released without protection (``classes_``); 0/1 labels have the
    public classes [0, 1] whether or not both occur. A check of y's type and of the released classes only."""
    classes = np.asarray(classes)
    if not private or (classes.dtype.kind in "biuf" and set(classes.tolist()) <= {0, 1}):
        return
    warnings.warn(
        f"{name}: the class labels {classes.tolist()} were read from y, so which labels occur is released without "
        "privacy protection (classes_); pass y as a numeric or bool array of 0/1 (1 or True for the positive "
        "class) to make the classes public",
        PrivacyLeakWarning,
        stacklevel=stacklevel,
    )


def check_domain_names(domain, feature_names, estimator: str) -> None:
    """A DataFrame's columns against the names of the declared domain: its bounds apply by position, so a frame
    with the same columns in another order would be clipped to the wrong bounds. Domains without declared names
    (the default x0, x1, ...) and inputs without column names are not checked."""
    if feature_names is None or not isinstance(domain, FeatureDomain) or len(domain.names) != len(feature_names):
        return
    if all(re.fullmatch(r"x\d+", name) for name in domain.names):
        return
    for j, (column, declared) in enumerate(zip(feature_names, domain.names)):
        if column != declared:
            raise ValueError(
                f"{estimator}: X's column {j} is {column!r} but the domain declares {declared!r} there; the domain's "
                "bounds apply by position, so pass the columns in the domain's order (X[list(domain.names)])"
            )


class DPClassifierBase:
    """Base class of dpfair_native's binary classifiers (scikit-learn estimator API).

    ``requires_sensitive_features``: whether ``fit`` needs ``sensitive_features`` (fairness-aware estimators).
    ``declared_groups`` parameter (optional in subclasses' __init__): a public list of group labels; when given,
    group codes follow it and the number of groups is public (DP rule 2).

    Attributes
    ----------
    coef_ : ndarray (d,)
        Weights of the linear score xᵀw + b.
    intercept_ : float
        b.
    classes_ : ndarray (2,)
        The two labels; the score's positive side is ``classes_[1]``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.
    groups_ : ndarray (K,)
        The group labels in code order, when ``sensitive_features`` were given to an estimator that uses them.
    privacy_spent_ : PrivacySpent
        (ε, δ) of what the fit released, a pair with ``.method``, the accounting that computed it
        (:class:`~dpfair_native.accountants.PrivacySpent`).
    """

    requires_sensitive_features = False
    # a private estimator that does not use sensitive_features (accepted for a uniform API) sets no groups_ from them
    _ignores_sensitive_features = False
    _estimator_type = "classifier"
    # scikit-learn's poor_score tag: DP noise or a fairness constraint may cost training accuracy
    _may_score_poorly = True
    # scipy.sparse X (CSR kernels); an estimator without a sparse path sets False and its fit refuses sparse X
    _accepts_sparse = True
    # parameter name -> allowed forms (see dpfair_native._validation), checked once at the start of fit
    _parameter_constraints: Dict[str, list] = {}

    def _adds_noise(self) -> bool:
        """Whether the fit is private (a non-private baseline or run returns False: nothing to warn about)."""
        return True

    # -- scikit-learn parameter protocol -------------------------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        names = [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]
        if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
            raise RuntimeError(f"{cls.__name__}.__init__ must not take *args")
        return sorted(names)

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values() if p.name != "self"
        }
        changed = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            same = value is default
            if not same:
                try:
                    same = bool(value == default)
                except Exception:  # arrays etc.
                    same = False
            if not same:
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):  # only called by scikit-learn, so importing it here is safe
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=False, poor_score=self._may_score_poorly),
            input_tags=InputTags(sparse=self._accepts_sparse),
        )


    # -- scikit-learn metadata routing (sensitive_features through Pipeline, cross_validate, GridSearchCV) -------
    def set_fit_request(self, *, sensitive_features=True):
        """Whether ``fit`` asks scikit-learn's metadata routing for ``sensitive_features`` (True by default; a str
        names an alias). Only used with ``sklearn.set_config(enable_metadata_routing=True)``."""
        if not (isinstance(sensitive_features, str) or sensitive_features in (True, False, None)):
            raise ValueError("sensitive_features must be True, False, None or an alias str, "
                             f"got {sensitive_features!r}")
        self._metadata_request = _FitRequest(sensitive_features=sensitive_features)
        return self

    def get_metadata_routing(self):
        """scikit-learn's MetadataRequest of this consumer: ``fit`` requests ``sensitive_features``, ``score``
        ``sample_weight``."""
        from sklearn.utils.metadata_routing import MetadataRequest

        wanted = getattr(self, "_metadata_request", None)
        alias = wanted["sensitive_features"] if isinstance(wanted, _FitRequest) else True
        request = MetadataRequest(owner=type(self).__name__)
        request.fit.add_request(param="sensitive_features", alias=alias)
        request.score.add_request(param="sample_weight", alias=True)  # score() accepts weights (no privacy cost)
        return request

    # -- fitting ---------------------------------------------------------------------------------------------
    def fit(self, X, y, *, sensitive_features=None, sample_weight=None):
        """Fit on X (n, d), binary labels y and (keyword-only) sensitive_features; returns self.

        The parameters are checked against ``_parameter_constraints`` first, before any data is read."""
        validate_params(self)
        if sample_weight is not None:
            raise ValueError(
                f"{type(self).__name__} does not support sample_weight: weights change the sensitivity; "
                "declare them in the domain or resample instead"
            )
        if is_dask_collection(X):  # per-partition sums on the Dask workers
            from ..distributed import fit_dask

            return fit_dask(self, X, y, sensitive_features=sensitive_features)
        if not self._accepts_sparse and is_scipy_sparse(X):
            raise TypeError(f"sparse input is not supported by {type(self).__name__}: pass X as a dense array")
        input_domain = getattr(X, "domain", None)  # declared by a DomainEncoder upstream (public)
        feature_names = feature_names_of(X)
        check_domain_names(getattr(self, "domain", None), feature_names, type(self).__name__)
        X = check_X(X)
        classes, y01 = check_binary_labels(y, X.shape[0], zero_one_public=self._adds_noise())
        warn_if_classes_read_from_data(type(self).__name__, self._adds_noise(), classes)
        groups = group_labels = None
        if sensitive_features is not None and self._ignores_sensitive_features:
            # only their length is checked: their values are not used, so no value of theirs may abort the fit
            column_vector(sensitive_features, X.shape[0], "sensitive_features")
        elif sensitive_features is not None or self.requires_sensitive_features:
            group_labels, groups = check_sensitive_features(
                sensitive_features, X.shape[0], groups=getattr(self, "declared_groups", None)
            )
            warn_if_groups_read_from_data(self, group_labels)
        rng = check_random_state(getattr(self, "random_state", None))
        self._input_domain = input_domain if isinstance(input_domain, FeatureDomain) else None
        try:
            fitted = self._fit(X, y01, groups, group_labels, rng)
        finally:
            del self._input_domain
        missing = {"coef_", "intercept_", "privacy_spent_"} - set(fitted)
        if missing:  # a subclass bug, not a user error
            raise RuntimeError(f"{type(self).__name__}._fit did not return {sorted(missing)}")
        fitted.setdefault("classes_", classes)
        fitted.setdefault("n_features_in_", X.shape[1])
        if feature_names is not None:
            fitted["feature_names_in_"] = feature_names
        if group_labels is not None:
            fitted.setdefault("groups_", group_labels)
        return replace_fitted(self, fitted)

    def _fit(self, X, y, groups, group_labels, rng) -> Dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- prediction ------------------------------------------------------------------------------------------
    def _check_feature_names(self, X, stacklevel: int) -> None:
        """X's column names (a pandas or Dask DataFrame's) against ``feature_names_in_``: an error where both have
        names and they differ, a warning where only one side has them (``stacklevel`` counted from here)."""
        names = feature_names_of(X)
        fitted_names = getattr(self, "feature_names_in_", None)
        if names is not None and fitted_names is not None and not np.array_equal(names, fitted_names):
            raise ValueError(
                "The feature names should match those that were passed during fit: "
                f"got {list(names)[:5]}..., fitted with {list(fitted_names)[:5]}..."
            )
        if names is None and fitted_names is not None and hasattr(X, "shape"):
            warnings.warn(f"X does not have valid feature names, but {type(self).__name__} was fitted with feature "
                          "names", UserWarning, stacklevel=stacklevel)
        if names is not None and fitted_names is None:
            warnings.warn(f"X has feature names, but {type(self).__name__} was fitted without feature names",
                          UserWarning, stacklevel=stacklevel)

    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise not_fitted_error(f"this {type(self).__name__} is not fitted yet; call fit(X, y, ...) first")

    def _check_X_for_predict(self, X) -> np.ndarray:
        """X checked against what fit saw: the feature count and, where both have them, the feature names."""
        self._check_feature_names(X, stacklevel=4)
        return check_X(X, n_features=self.n_features_in_, estimator=type(self).__name__)

    def decision_function(self, X) -> np.ndarray:
        """Score xᵀw + b (positive -> classes_[1])."""
        self._check_fitted()
        if is_dask_collection(X):  # lazy scores of a Dask array
            from ..distributed import decision_function_dask

            return decision_function_dask(self, X)
        X = self._check_X_for_predict(X)
        return np.asarray(X @ self.coef_, dtype=np.float64) + self.intercept_

    def predict_proba(self, X) -> np.ndarray:
        """(n, 2) probabilities [P(classes_[0]), P(classes_[1])] from the logistic link σ(xᵀw + b)."""
        z = self.decision_function(X)
        p1 = 0.5 * (1.0 + np.tanh(0.5 * z))
        if is_dask_collection(p1):  # lazy, as predict and decision_function are
            import dask.array as da

            return da.stack([1.0 - p1, p1], axis=1)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X) -> np.ndarray:
        """classes_[1] where the score is > 0, else classes_[0]."""
        self._check_fitted()
        if is_dask_collection(X):  # lazy labels of a Dask array
            from ..distributed import predict_dask

            return predict_dask(self, X)
        return self.classes_[(self.decision_function(X) > 0).astype(np.int64)]

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of predict(X) against y."""
        y = np.asarray(y)
        pred = self.predict(X)
        if sample_weight is None:
            return float(np.mean(pred == y))
        w = np.asarray(sample_weight, dtype=np.float64)
        return float(np.sum(w * (pred == y)) / np.sum(w))
