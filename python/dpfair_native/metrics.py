"""Performance and group-fairness metrics for binary classifiers, numerically equal to fairlearn 0.15 / sklearn.

Conventions (fairlearn's):
- `sensitive_features` is keyword-only; the groups are the distinct observed values (ints, strings or bools),
  sorted as `np.unique` sorts them; any number of groups. Several sensitive features (a 2-D array or DataFrame,
  one column each) give one group per observed combination, labelled by its tuple of values, as in fairlearn.
- A *difference* is max − min of the per-group values (``method="between_groups"``) or the largest
  |group − overall| (``method="to_overall"``); always ≥ 0. A *ratio* is min / max (``"between_groups"``) or the
  smallest min(group/overall, overall/group) (``"to_overall"``); in [0, 1], NaN when it is 0/0.
- Labels: y_true ∪ y_pred hold at most two distinct values; `pos_label` (default 1) marks the positive one.
- A group without positive (negative) labels has TPR (FPR) = 0, not NaN: fairlearn computes the rates with
  sklearn's row-normalised confusion matrix, which maps 0/0 to 0 without a warning. Such a group can make the
  TPR/FPR gap large; inspect it with `by_group(true_positive_rate, ...)`.
- Per-group values skip NaN when reduced (as pandas does). NaN arises from a 0/0 ratio, or as the selection
  rate / accuracy of a group whose sample weights sum to 0 (fairlearn agrees; for TPR/FPR such a group gets 0
  here, where fairlearn raises).

All work is vectorised (np.unique, np.bincount); loops run over groups, never over rows. These are evaluation
metrics on test predictions: they are not differentially private and must not feed a private release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple

import numpy as np

from ._validation import check_sensitive_features

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "roc_auc",
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equal_opportunity_difference",
    "equal_opportunity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "accuracy_parity_difference",
    "p_rule",
    "risk_difference",
    "GroupMetric",
    "by_group",
    "CostOfPrivacy",
    "cost_of_privacy",
]

_METHODS = ("between_groups", "to_overall")


# ----------------------------------------------------------------------------------------------------------------
# input checks


def _as_1d(values, name: str, n: int | None = None) -> np.ndarray:
    if values is None:
        raise ValueError(f"{name} is required")
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per sample), got shape {arr.shape}; ravel a column first")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; pass at least one sample")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but y_true has {n}; pass one value per sample")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; remove those samples first")
    return arr


def _weights(sample_weight, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = _as_1d(sample_weight, "sample_weight", n)
    if w.dtype.kind not in "biuf" or w.dtype.kind == "b":
        raise TypeError(f"sample_weight must hold real numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if np.any(w < 0) or not w.sum() > 0:
        raise ValueError("sample_weight must be non-negative with a positive sum")
    return w


def _check_binary(arrays: Dict[str, np.ndarray]) -> np.ndarray:
    """At most two distinct values over all `arrays` (name -> labels); returns the sorted distinct values."""
    distinct = []
    for name, arr in arrays.items():
        distinct.append(np.unique(arr))
        if distinct[-1].shape[0] > 2:
            raise ValueError(
                f"{name} must hold binary labels (at most two distinct values), got {distinct[-1][:5]}...; "
                "threshold scores into labels first (roc_auc takes scores)"
            )
    values = np.unique(np.concatenate(distinct))
    if values.shape[0] > 2:
        names = " and ".join(arrays)
        raise ValueError(f"{names} together use more than two labels {values[:5]}; they must share one label pair")
    return values


def _positive(arrays: Dict[str, np.ndarray], pos_label) -> Tuple[np.ndarray, ...]:
    """Binary check plus pos_label membership (as fairlearn: needed only when two labels occur) -> bool masks."""
    values = _check_binary(arrays)
    if values.shape[0] == 2 and not np.any(values == pos_label):
        raise ValueError(f"pos_label={pos_label!r} is not one of the labels {values.tolist()}; pass the positive one")
    return tuple(arr == pos_label for arr in arrays.values())


def _groups(sensitive_features, n: int) -> Tuple[np.ndarray, np.ndarray]:
    if sensitive_features is None:
        raise ValueError("sensitive_features is required: pass one group label per sample")
    sf = sensitive_features.to_numpy() if hasattr(sensitive_features, "to_numpy") else np.asarray(sensitive_features)
    if sf.ndim == 2 and sf.shape[1] == 1:
        sf = sf[:, 0]
    if sf.ndim == 2 and sf.shape[0] == n and sf.shape[1] > 1:
        return _intersections([sf[:, j] for j in range(sf.shape[1])], n)
    if sf.ndim != 1 or sf.shape[0] != n:
        raise ValueError(f"sensitive_features must be 1-D with one group label per sample ({n}), or 2-D with one "
                         f"column per sensitive feature, got shape {sf.shape}")
    return check_sensitive_features(sf, n)


def _intersections(columns, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """Several sensitive features (fairlearn's multi-column case): a group per observed combination, labelled by the
    tuple of its values, in the lexicographic order of the columns' own sorted labels."""
    per_column = [check_sensitive_features(column, n) for column in columns]
    codes = np.stack([c for _, c in per_column], axis=1)  # (n, k) per-column codes, each in its column's sort order
    present, inverse = np.unique(codes, axis=0, return_inverse=True)  # lexicographic, no product of cardinalities
    tuples = np.empty(present.shape[0], dtype=object)
    for k, row in enumerate(present.tolist()):
        tuples[k] = tuple(labels[j].item() if hasattr(labels[j], "item") else labels[j]
                          for (labels, _), j in zip(per_column, row))
    return tuples, inverse.reshape(-1).astype(np.int64)


def _check_method(method: str) -> None:
    if method not in _METHODS:
        raise ValueError(f"method must be 'between_groups' or 'to_overall', got {method!r}")


def _keys(labels: np.ndarray) -> list:
    return labels.tolist()  # numpy scalars -> int / str / bool / float dict keys


# ----------------------------------------------------------------------------------------------------------------
# weighted rates: plain and per group


def _rate(num: np.ndarray, den: np.ndarray, w: np.ndarray, empty: float) -> float:
    """Σ w·[num∧den] / Σ w·[den], `empty` when the denominator weight is 0."""
    d = float(w[den].sum())
    return float(w[num & den].sum()) / d if d > 0 else empty


def _group_rate(num, den, codes, k, w, empty) -> Tuple[np.ndarray, float]:
    """Per-group and overall Σ w·[num∧den] / Σ w·[den]; `empty` where a denominator weight is 0."""
    top = np.bincount(codes, weights=w * (num & den), minlength=k)
    bottom = np.bincount(codes, weights=w * den, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_group = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), empty)
    return per_group, _rate(num, den, w, empty)


def _nanmax(v: np.ndarray) -> float:
    v = v[~np.isnan(v)]
    return float(v.max()) if v.size else float("nan")


def _nanmin(v: np.ndarray) -> float:
    v = v[~np.isnan(v)]
    return float(v.min()) if v.size else float("nan")


def _difference(per_group: np.ndarray, overall: float, method: str) -> float:
    if method == "between_groups":
        return _nanmax(per_group) - _nanmin(per_group)
    return _nanmax(np.abs(per_group - overall))


def _ratio(per_group: np.ndarray, overall: float, method: str) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "between_groups":
            return float(np.float64(_nanmin(per_group)) / np.float64(_nanmax(per_group)))
        r = per_group / np.float64(overall)
        r = np.where(r > 1, 1.0 / r, r)  # fairlearn folds each group/overall ratio into [0, 1]
    return _nanmin(r)


@dataclass(frozen=True)
class _Prepared:
    codes: np.ndarray  # (n,) group index in 0..k-1
    labels: np.ndarray  # (k,) sorted group labels
    w: np.ndarray  # (n,) sample weights (ones when none given)
    true_pos: np.ndarray  # (n,) y_true == pos_label
    pred_pos: np.ndarray  # (n,) y_pred == pos_label
    correct: np.ndarray  # (n,) y_true == y_pred

    @property
    def k(self) -> int:
        return self.labels.shape[0]

    @property
    def everyone(self) -> np.ndarray:
        return np.ones(self.codes.shape[0], dtype=bool)


_NO_POS_LABEL = object()  # accuracy needs binary labels but no positive one


def _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label, *, pred_only=False) -> _Prepared:
    yt = _as_1d(y_true, "y_true")
    n = yt.shape[0]
    yp = _as_1d(y_pred, "y_pred", n)
    labels, codes = _groups(sensitive_features, n)
    w = _weights(sample_weight, n)
    no = np.zeros(n, dtype=bool)
    if pred_only:  # selection rate ignores y_true, as fairlearn does
        (pred_pos,) = _positive({"y_pred": yp}, pos_label)
        return _Prepared(codes, labels, w, no, pred_pos, no)
    if pos_label is _NO_POS_LABEL:
        _check_binary({"y_true": yt, "y_pred": yp})
        return _Prepared(codes, labels, w, no, no, yt == yp)
    true_pos, pred_pos = _positive({"y_true": yt, "y_pred": yp}, pos_label)
    return _Prepared(codes, labels, w, true_pos, pred_pos, true_pos == pred_pos)


def _selection(p: _Prepared):
    return _group_rate(p.pred_pos, p.everyone, p.codes, p.k, p.w, float("nan"))


def _tpr(p: _Prepared):
    return _group_rate(p.pred_pos, p.true_pos, p.codes, p.k, p.w, 0.0)


def _fpr(p: _Prepared):
    return _group_rate(p.pred_pos, ~p.true_pos, p.codes, p.k, p.w, 0.0)


def _accuracy(p: _Prepared):
    return _group_rate(p.correct, p.everyone, p.codes, p.k, p.w, float("nan"))


# ----------------------------------------------------------------------------------------------------------------
# plain metrics


def accuracy(y_true, y_pred, *, sample_weight=None) -> float:
    """Σ wᵢ·[ŷᵢ = yᵢ] / Σ wᵢ (sklearn's accuracy_score) for binary labels."""
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, "y_pred", yt.shape[0])
    _check_binary({"y_true": yt, "y_pred": yp})
    w = _weights(sample_weight, yt.shape[0])
    return float(w[yt == yp].sum() / w.sum())


def balanced_accuracy(y_true, y_pred, *, sample_weight=None) -> float:
    """Mean over the classes c present in y_true of the recall W(ŷ=c, y=c) / W(y=c) (sklearn's, adjusted=False)."""
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, "y_pred", yt.shape[0])
    values = _check_binary({"y_true": yt, "y_pred": yp})
    w = _weights(sample_weight, yt.shape[0])
    cls = np.searchsorted(values, yt)
    hit = np.bincount(cls, weights=w * (yt == yp), minlength=values.shape[0])
    size = np.bincount(cls, weights=w, minlength=values.shape[0])
    present = size > 0
    return float(np.mean(hit[present] / size[present]))


def roc_auc(y_true, y_score, *, sample_weight=None, pos_label=1) -> float:
    """Area under the ROC curve = P(score⁺ > score⁻) + ½·P(score⁺ = score⁻) (Mann–Whitney U / (n⁺·n⁻)).

    Unweighted this is the rank-sum statistic with average ranks for ties; we evaluate it per tie block of the
    sorted scores: AUC = Σ_blocks W⁺_b·(W⁻_below b + ½·W⁻_b) / (W⁺·W⁻), which also covers sample weights and
    equals sklearn's roc_auc_score (trapezoidal ROC). ValueError if y_true holds only one class.
    """
    yt = _as_1d(y_true, "y_true")
    score = _as_1d(y_score, "y_score", yt.shape[0])
    if score.dtype.kind not in "biuf":
        raise TypeError(f"y_score must hold real-valued scores, got dtype {score.dtype}")
    (pos,) = _positive({"y_true": yt}, pos_label)
    w = _weights(sample_weight, yt.shape[0])
    w_pos, w_neg = float(w[pos].sum()), float(w[~pos].sum())
    if not (w_pos > 0 and w_neg > 0):
        raise ValueError("y_true contains only one class (with positive weight); ROC AUC is undefined")
    _, block = np.unique(score.astype(np.float64), return_inverse=True)
    block = block.ravel()
    pos_in = np.bincount(block, weights=w * pos)
    neg_in = np.bincount(block, weights=w * ~pos)
    neg_below = np.cumsum(neg_in) - neg_in
    return float(np.dot(pos_in, neg_below + 0.5 * neg_in) / (w_pos * w_neg))


def selection_rate(y_true, y_pred, *, sample_weight=None, pos_label=1) -> float:
    """P(ŷ = pos_label) = Σ wᵢ·[ŷᵢ = pos] / Σ wᵢ; y_true is only length-checked (fairlearn's signature)."""
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, "y_pred", yt.shape[0])
    (pred_pos,) = _positive({"y_pred": yp}, pos_label)
    w = _weights(sample_weight, yt.shape[0])
    return float(w[pred_pos].sum() / w.sum())


def true_positive_rate(y_true, y_pred, *, sample_weight=None, pos_label=1) -> float:
    """TPR = P(ŷ = pos | y = pos); 0 when y_true has no positives (fairlearn/sklearn convention)."""
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, "y_pred", yt.shape[0])
    true_pos, pred_pos = _positive({"y_true": yt, "y_pred": yp}, pos_label)
    return _rate(pred_pos, true_pos, _weights(sample_weight, yt.shape[0]), 0.0)


def false_positive_rate(y_true, y_pred, *, sample_weight=None, pos_label=1) -> float:
    """FPR = P(ŷ = pos | y ≠ pos); 0 when y_true has no negatives (fairlearn/sklearn convention)."""
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, "y_pred", yt.shape[0])
    true_pos, pred_pos = _positive({"y_true": yt, "y_pred": yp}, pos_label)
    return _rate(pred_pos, ~true_pos, _weights(sample_weight, yt.shape[0]), 0.0)


# ----------------------------------------------------------------------------------------------------------------
# group fairness metrics


def demographic_parity_difference(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, pos_label=1
) -> float:
    """max_a P(ŷ=1 | A=a) − min_a P(ŷ=1 | A=a); for two groups the papers' risk difference |RD|."""
    _check_method(method)
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label, pred_only=True)
    return _difference(*_selection(p), method)


def demographic_parity_ratio(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, pos_label=1
) -> float:
    """min_a P(ŷ=1 | A=a) / max_a P(ŷ=1 | A=a) (NaN if no group has a positive prediction)."""
    _check_method(method)
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label, pred_only=True)
    return _ratio(*_selection(p), method)


def equal_opportunity_difference(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, pos_label=1
) -> float:
    """Gap in TPR P(ŷ=1 | y=1, A=a) across groups (Hardt et al.'s equal opportunity; fairlearn's
    equal_opportunity_difference = true_positive_rate_difference)."""
    _check_method(method)
    return _difference(*_tpr(_prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label)), method)


def equal_opportunity_ratio(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, pos_label=1
) -> float:
    """min / max of the group TPRs."""
    _check_method(method)
    return _ratio(*_tpr(_prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label)), method)


def _check_agg(agg: str) -> None:
    if agg not in ("worst_case", "mean"):
        raise ValueError(f"agg must be 'worst_case' or 'mean', got {agg!r}")


def _worst(tpr_term: float, fpr_term: float, larger: bool) -> float:
    # Python's max()/min() on (tpr, fpr), as fairlearn 0.15 does: a NaN TPR term is returned, a NaN FPR term is
    # ignored (NaN compares False). Kept for equal results; NaN arises only from 0/0 ratios.
    return max(tpr_term, fpr_term) if larger else min(tpr_term, fpr_term)


def _mean(a: float, b: float) -> float:
    v = np.array([a, b])
    v = v[~np.isnan(v)]
    return float(v.mean()) if v.size else float("nan")


def equalized_odds_difference(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, agg="worst_case", pos_label=1
) -> float:
    """Equalized odds gap: max (agg="worst_case") or mean (agg="mean") of the TPR gap and the FPR gap."""
    _check_method(method)
    _check_agg(agg)
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    tpr, fpr = _difference(*_tpr(p), method), _difference(*_fpr(p), method)
    return _worst(tpr, fpr, larger=True) if agg == "worst_case" else _mean(tpr, fpr)


def equalized_odds_ratio(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None, agg="worst_case", pos_label=1
) -> float:
    """Equalized odds ratio: min (agg="worst_case") or mean (agg="mean") of the TPR ratio and the FPR ratio."""
    _check_method(method)
    _check_agg(agg)
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    tpr, fpr = _ratio(*_tpr(p), method), _ratio(*_fpr(p), method)
    return _worst(tpr, fpr, larger=False) if agg == "worst_case" else _mean(tpr, fpr)


def accuracy_parity_difference(
    y_true, y_pred, *, sensitive_features, method="between_groups", sample_weight=None
) -> float:
    """Gap in accuracy P(ŷ = y | A=a) across groups (fairlearn: MetricFrame(accuracy_score).difference())."""
    _check_method(method)
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, _NO_POS_LABEL)
    return _difference(*_accuracy(p), method)


def p_rule(y_true, y_pred, *, sensitive_features, sample_weight=None, pos_label=1) -> float:
    """Zafar et al.'s p%-rule: 100 · min over group pairs (a, b) of P(ŷ=1|A=a) / P(ŷ=1|A=b)
    = 100 · min_a rate / max_a rate, in [0, 100]; NaN if no group has a positive prediction."""
    return 100.0 * demographic_parity_ratio(
        y_true, y_pred, sensitive_features=sensitive_features, sample_weight=sample_weight, pos_label=pos_label
    )


def risk_difference(y_true, y_pred, *, sensitive_features, privileged, sample_weight=None, pos_label=1) -> float:
    """Signed RD = P(ŷ=1 | s = privileged) − P(ŷ=1 | s ≠ privileged), in [-1, 1].

    With two groups this is the papers' risk difference; with more, all non-privileged rows are pooled.
    """
    p = _prepare(y_true, y_pred, sensitive_features, sample_weight, pos_label, pred_only=True)
    hit = np.flatnonzero(p.labels == privileged)
    if hit.size != 1:
        raise ValueError(f"privileged={privileged!r} is not one of the observed groups {_keys(p.labels)}")
    if p.k < 2:
        raise ValueError("risk_difference needs at least two groups in sensitive_features, got one")
    in_priv = p.codes == hit[0]
    return _rate(p.pred_pos, in_priv, p.w, float("nan")) - _rate(p.pred_pos, ~in_priv, p.w, float("nan"))


# ----------------------------------------------------------------------------------------------------------------
# disaggregated view


@dataclass(frozen=True)
class GroupMetric:
    """A metric evaluated on all samples (`overall`) and on each group (`by_group`, sorted group label -> value)."""

    overall: float
    by_group: Dict[Any, float]

    def _values(self) -> np.ndarray:
        return np.array(list(self.by_group.values()), dtype=np.float64)

    def group_min(self) -> float:
        return _nanmin(self._values())

    def group_max(self) -> float:
        return _nanmax(self._values())

    def difference(self, method: str = "between_groups") -> float:
        _check_method(method)
        return _difference(self._values(), self.overall, method)

    def ratio(self, method: str = "between_groups") -> float:
        _check_method(method)
        return _ratio(self._values(), self.overall, method)


def by_group(
    metric: Callable[..., float], y_true, y_pred, *, sensitive_features, sample_weight=None, **metric_params
) -> GroupMetric:
    """Evaluate `metric(y_true, y_pred, **metric_params)` overall and on each group's samples (like fairlearn's
    MetricFrame with one sensitive feature). `sample_weight`, if given, is sliced per group and passed on."""
    if not callable(metric):
        raise TypeError(f"metric must be callable as metric(y_true, y_pred, ...), got {type(metric).__name__}")
    yt = _as_1d(y_true, "y_true")
    n = yt.shape[0]
    yp = _as_1d(y_pred, "y_pred", n)
    labels, codes = _groups(sensitive_features, n)
    w = None if sample_weight is None else _weights(sample_weight, n)

    def run(idx):
        extra = dict(metric_params) if w is None else dict(metric_params, sample_weight=w[idx])
        return float(metric(yt[idx], yp[idx], **extra))

    order = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes, minlength=labels.shape[0]))[:-1]
    parts = np.split(order, bounds)
    return GroupMetric(overall=run(slice(None)), by_group={key: run(idx) for key, idx in zip(_keys(labels), parts)})


# ----------------------------------------------------------------------------------------------------------------
# cost of privacy (thesis ch. 9)


@dataclass(frozen=True)
class CostOfPrivacy:
    """Per-group accuracy drop Δᵏ = acc_nonprivate(k) − acc_private(k) (> 0 means privacy cost accuracy), the
    drop on all samples (`overall`), and `gap` = max_{i,j} |Δⁱ − Δʲ| = max_k Δᵏ − min_k Δᵏ.

    The thesis' tables print the signed change acc_private − acc_nonprivate (e.g. −0.0707), i.e. −Δᵏ.
    """

    per_group: Dict[Any, float]
    gap: float
    overall: float

    def is_equal(self, tau: float = 0.05) -> bool:
        """Equal costs of privacy up to the thesis' tolerance: |Δⁱ − Δʲ| ≤ τ for all groups (τ = 0.05 there)."""
        return bool(self.gap <= tau)


def cost_of_privacy(
    y_true, y_pred_private, y_pred_nonprivate, *, sensitive_features, sample_weight=None
) -> CostOfPrivacy:
    """Equal costs of differential privacy (thesis 004, ch. 9: Definition 17 in §9.4.1, metric in §9.5.1.4).

    Δᵏ is the reduction in group-k accuracy from the non-private model η to the private model η̃; Definition 17
    asks Δⁱ = Δʲ for all groups i, j, and §9.5.1.4 measures inequality by |Δⁱ − Δʲ| (≤ τ = 0.05 counts as equal).
    """
    yt = _as_1d(y_true, "y_true")
    n = yt.shape[0]
    priv = _as_1d(y_pred_private, "y_pred_private", n)
    nonpriv = _as_1d(y_pred_nonprivate, "y_pred_nonprivate", n)
    _check_binary({"y_true": yt, "y_pred_private": priv, "y_pred_nonprivate": nonpriv})
    labels, codes = _groups(sensitive_features, n)
    w = _weights(sample_weight, n)
    everyone = np.ones(n, dtype=bool)
    k = labels.shape[0]
    acc_priv, all_priv = _group_rate(yt == priv, everyone, codes, k, w, float("nan"))
    acc_non, all_non = _group_rate(yt == nonpriv, everyone, codes, k, w, float("nan"))
    drop = acc_non - acc_priv
    return CostOfPrivacy(
        per_group=dict(zip(_keys(labels), drop.tolist())),
        gap=_nanmax(drop) - _nanmin(drop),
        overall=all_non - all_priv,
    )


# ----------------------------------------------------------------------------------------------------------------
# Dask arrays: every label-based metric above is a function of weighted counts of (y_true, y_pred, group) tuples,
# so a Dask input is reduced per partition to its distinct tuples with their counts (distributed.compress_rows)
# and the metric is evaluated on those with sample_weight = the counts: the in-memory value, with no array of
# size n on the client. roc_auc (scores do not compress) refuses Dask input.

_ROW_ARGUMENTS = ("y_true", "y_pred", "y_score", "sensitive_features", "y_pred_private", "y_pred_nonprivate")


def _accepts_dask(fn):
    import functools
    import inspect

    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from .distributed import is_dask_collection

        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:  # name the function (and, for extra positional values, its keyword-only ones)
            params = signature.parameters.values()
            keywords = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
            if "too many positional" not in str(error) or not keywords:
                raise TypeError(f"{fn.__name__}(): {error}") from None
            positional = ", ".join(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
            raise TypeError(f"{fn.__name__}(): {error}; pass {', '.join(keywords)} by keyword, e.g. "
                            f"{fn.__name__}({positional}, {keywords[0]}=...)") from None
        if not any(is_dask_collection(v) for v in bound.arguments.values()):
            return fn(*args, **kwargs)
        if fn.__name__ == "roc_auc":
            raise TypeError("roc_auc does not take Dask arrays (continuous scores do not compress); compute it on "
                            "a sample of the scores, e.g. roc_auc(y[:m].compute(), score[:m].compute())")
        if fn.__name__ == "by_group" and getattr(bound.arguments["metric"], "__module__", None) != __name__:
            raise TypeError("by_group with Dask arrays takes only this module's metrics (they accept the "
                            "per-tuple counts as sample_weight); compute the arrays first for other metrics")
        from .distributed import compress_rows  # imports Dask

        rows = {k: v for k, v in bound.arguments.items() if k in _ROW_ARGUMENTS and v is not None}
        compact, weight = compress_rows(rows, bound.arguments.get("sample_weight"))
        bound.arguments.update(compact)
        bound.arguments["sample_weight"] = weight
        return fn(*bound.args, **bound.kwargs)

    return wrapper


for _name in __all__:
    if _name not in ("GroupMetric", "CostOfPrivacy"):
        globals()[_name] = _accepts_dask(globals()[_name])
del _name


# ----------------------------------------------------------------------------------------------------------------
# data-level metrics for synthetic data (thesis ch. 6-7): balanced error rate, distances between joint distributions

__all__ += ["balanced_error_rate", "joint_distribution_distance", "chi_square_distance"]


def balanced_error_rate(y_true, y_pred, *, sample_weight=None) -> float:
    """BER = ½ (FPR + FNR) = 1 − balanced accuracy, for binary labels, in [0, 1].

    The thesis (ch. 6) predicts s from x with a classifier and reports its BER: 0.5 means x carries no linear
    information about s (the ideal for fair data), small values mean s is easy to recover.
    """
    return 1.0 - balanced_accuracy(y_true, y_pred, sample_weight=sample_weight)


def _row_counts(rows, name: str):
    R = np.asarray(rows)
    if R.ndim == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array of discrete records (n, d), got shape {R.shape}")
    keys, counts = np.unique(R.astype(str), axis=0, return_counts=True)
    return {tuple(k): int(c) for k, c in zip(keys, counts)}, R.shape


def _paired_counts(real, generated):
    a, sa = _row_counts(real, "real")
    b, sb = _row_counts(generated, "generated")
    if sa[1] != sb[1]:
        raise ValueError(f"real and generated have different numbers of columns: {sa[1]} and {sb[1]}")
    keys = sorted(set(a) | set(b))
    ca = np.array([a.get(k, 0) for k in keys], dtype=np.float64)
    cb = np.array([b.get(k, 0) for k in keys], dtype=np.float64)
    return ca, cb


def joint_distribution_distance(real, generated) -> float:
    """Euclidean (L2) distance between the empirical PMFs of two sets of discrete records.

    ``dist = sqrt(Σ_v (p(v) − q(v))²)`` over every record value v seen in either set (columns compared as
    strings, so codes and labels both work). The thesis' dist(X, Y) in Table 6.1. 0 for identical distributions,
    at most √2.
    """
    ca, cb = _paired_counts(real, generated)
    return float(np.sqrt(np.sum((ca / ca.sum() - cb / cb.sum()) ** 2)))


def chi_square_distance(real, generated) -> float:
    """Pearson's χ² of the generated records against the real joint distribution.

    ``χ² = Σ_v (O_v − E_v)² / E_v`` with O_v the count of record v in ``generated`` and E_v = m · p_real(v) its
    expected count (m generated records). Record values never seen in ``real`` have E_v = 0 and are left out of
    the sum (their mass still lowers the O_v of the others); the thesis (Table 7.1) reports this utility
    measure, smaller is better.
    """
    ca, cb = _paired_counts(real, generated)
    expected = cb.sum() * ca / ca.sum()
    seen = expected > 0
    return float(np.sum((cb[seen] - expected[seen]) ** 2 / expected[seen]))
