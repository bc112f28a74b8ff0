"""Private hyper-parameter selection: random search with a random number of runs (Papernot & Steinke 2022).

:class:`PrivateHyperparameterSearch` picks among candidate settings of a DP-SGD-family estimator from private
validation scores and charges the whole selection — every training run, every validation score and the choice of
the best — to ``privacy_spent_``.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import Optional, Sequence

import numpy as np

from ._validation import (
    NON_NEGATIVE,
    POSITIVE,
    PROBABILITY,
    Interval,
    StrOptions,
    check_binary_labels,
    check_random_state,
    check_sensitive_features,
    check_X,
    validate_params,
)
from .distributed import is_dask_collection
from .domain import FeatureDomain
from .models._base import TrainingDivergedError, user_stacklevel, warn_if_classes_read_from_data
from .preprocessing import EncodedArray, PrivacyLeakWarning

__all__ = ["PrivateHyperparameterSearch", "tnb_mean", "tnb_gamma_for_mean", "tnb_selection_rdp", "sample_tnb"]


def tnb_mean(eta: float, gamma: float) -> float:
    """E[K] of the truncated negative binomial D_{η,γ}: η(1−γ)/(γ(1−γ^η)) for η ≠ 0, (1/γ − 1)/ln(1/γ) for η = 0."""
    eta, gamma = float(eta), float(gamma)
    if not eta > -1 or not 0 < gamma < 1:
        raise ValueError(f"need eta > -1 and 0 < gamma < 1, got eta={eta!r}, gamma={gamma!r}")
    if eta == 0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    return eta * (1.0 - gamma) / (gamma * (1.0 - gamma**eta))


def tnb_gamma_for_mean(eta: float, mean: float) -> float:
    """The γ in (0, 1) with E[K] = ``mean`` under D_{η,γ} (E[K] decreases in γ; bisection in log γ)."""
    mean = float(mean)
    if not np.isfinite(mean) or mean <= 1:
        raise ValueError(f"mean_runs must be a finite number > 1, got {mean!r}")
    lo, hi = -60.0, -1e-12  # log γ
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if tnb_mean(eta, math.exp(mid)) > mean:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


def sample_tnb(eta: float, gamma: float, rng: np.random.Generator) -> int:
    """One draw of K ~ D_{η,γ}: P[K = k] ∝ (1−γ)^k·Π_{l<k}(l+η)/(l+1), k >= 1 (η = 1: geometric, mean 1/γ).

    Drawn by inversion over the probabilities computed by their recurrence (exact up to rounding)."""
    tnb_mean(eta, gamma)  # validates
    u = rng.random()
    if eta == 0:  # logarithmic distribution
        p = (1.0 - gamma) / math.log(1.0 / gamma)
    else:
        p = eta * (1.0 - gamma) / (gamma ** (-eta) - 1.0)
    k, cum = 1, p
    while cum < u and k < 10_000_000:
        p *= (1.0 - gamma) * (k + eta) / (k + 1)
        k += 1
        cum += p
    return k


def tnb_selection_rdp(orders, rdp, eta: float, gamma: float) -> np.ndarray:
    """RDP curve of "run Q K ~ D_{η,γ} times, output the best" (Papernot & Steinke 2022, Theorem 2).

    If Q is (λ, ε(λ))-RDP for every order λ in ``orders``, the selection A is (λ, ε'(λ))-RDP with
        ε'(λ) = ε(λ) + (1+η)(1 − 1/λ̂)ε(λ̂) + (1+η)·ln(1/γ)/λ̂ + ln(E[K])/(λ − 1)
    for every λ̂ >= 1 (Q is (1, ε(1))-RDP in the limit; at λ̂ = 1 the second term vanishes). We take the minimum
    over λ̂ in {1} ∪ ``orders`` — any λ̂ gives a valid bound, so minimising over a subset is valid too.
    """
    orders = np.asarray(orders, dtype=np.float64)
    rdp = np.asarray(rdp, dtype=np.float64)
    if orders.shape != rdp.shape or orders.ndim != 1 or np.any(orders <= 1):
        raise ValueError("orders and rdp must be 1-D arrays of the same length with orders > 1")
    if np.any(rdp < 0) or np.any(np.isnan(rdp)):
        raise ValueError("rdp values must be >= 0")
    mean = tnb_mean(eta, gamma)
    hat = np.concatenate([[1.0], orders])
    hat_rdp = np.concatenate([[0.0], rdp])  # the (1 − 1/λ̂) factor is 0 at λ̂ = 1
    extra = np.min((1 + eta) * (1 - 1 / hat) * hat_rdp + (1 + eta) * math.log(1 / gamma) / hat)
    return rdp + extra + math.log(mean) / (orders - 1)


def _score(hist: np.ndarray, constraint: str, bound: float, fairness_weight: float) -> float:
    """Accuracy − weight·max(0, disparity − bound) from a (K, 2, 2) histogram of (group, label, prediction)."""
    h = np.maximum(hist, 0.0)
    total = max(1.0, h.sum())
    acc = (h[:, 0, 0].sum() + h[:, 1, 1].sum()) / total
    if constraint is None:
        return float(acc)

    def rates(cells):
        n = np.maximum(1.0, cells.sum(axis=-1))
        return cells[..., 1] / n

    if constraint == "demographic_parity":
        r = rates(h.sum(axis=1))
        disp = r.max() - r.min()
    else:
        r = rates(h)  # (K, 2): P(ŷ=1 | k, y)
        tpr, fpr = r[:, 1], r[:, 0]
        disp = tpr.max() - tpr.min()
        if constraint == "equalized_odds":
            disp = max(disp, fpr.max() - fpr.min())
    return float(acc - fairness_weight * max(0.0, disp - bound))


class PrivateHyperparameterSearch:
    """Differentially private random search over candidate settings of a DP-SGD-family estimator.

    Parameters
    ----------
    estimator : DPSGDClassifier, DPSGDFClassifier, NaiveReweightedDPSGDClassifier or ConstrainedDPSGDClassifier
        The template; each run is a clone with one candidate's parameters set. Every candidate must be private
        (``target_epsilon`` or a noise multiplier > 0).
    candidates : sequence of dict
        Parameter settings to choose from (e.g. learning rate, bound, clip norm).
    mean_runs : float, default 10
        E[K], the expected number of runs; K ~ truncated negative binomial D_{η,γ} with γ solved from it.
    eta : float, default 1.0
        η of D_{η,γ} (1: geometric; 0: logarithmic; Papernot & Steinke's trade-off between the tail of K and the
        cost).
    validation_fraction : float, default 0.2
        Each record goes to the validation part with this probability, independently of the data.
    validation_noise : float, default 20.0
        σ_v of the Gaussian added to every cell of a run's validation histogram (group × label × prediction).
    constraint : None or {"demographic_parity", "equal_opportunity", "equalized_odds"}, default None
        The score is validation accuracy − ``fairness_weight``·max(0, disparity − ``bound``), computed from the
        noisy histogram (None: accuracy alone).
    bound, fairness_weight : float, default 0.0 and 2.0
    delta : float, default 1e-5
        δ at which ``privacy_spent_`` is reported.
    declared_groups : sequence or None
        The public group labels, passed on to every run (None: the estimator's own ``declared_groups`` if it has
        them, else the distinct values of ``sensitive_features``, which then become public).
    random_state : None, int or Generator
        None for a real release (OS entropy). An int or a Generator makes the search reproducible and voids the
        guarantee against whoever knows it (a Generator's state after the search also tells how many runs there
        were, which the bound needs secret).

    Attributes
    ----------
    best_estimator_ : the fitted estimator (trained on the training part) of the best-scoring run; its
        ``random_state`` is reset to None (its own generator is not kept).
    best_params_ : its candidate. best_score_ : its noisy validation score.
    privacy_spent_ : PrivacySpent, (ε, δ) of the whole search (method "rdp").
    run_epsilon_ : ε at δ of one run alone, for comparison: of the order-wise maximum of the candidates' RDP curves
        (what the selection theorem composes), so at least each candidate's own ε through RDP, and above the ε a
        PLD-calibrated candidate reports alone.
    gamma_ : float
        γ of the run-count distribution D_{η,γ}, solved from ``mean_runs``.
    n_train_estimate_ : float
        ñ_tr, the released noisy record count of the training part (charged in ``privacy_spent_``).
    classes_ : ndarray (2,)
        The two label values.

    Notes
    -----
    **Neighbouring relation**: add/remove one record, as for the DP-SGD estimators.

    **Algorithm.** (1) Assign every record to the validation part with probability p (data-independent coins).
    (2) Release ñ_tr = n_tr + N(0, σ_n²) (σ_n = ``RECORD_COUNT_NOISE``) and fix the sampling rate of every
    candidate given a batch size b from it, so every candidate's privacy curve is a public function of ñ_tr: with a
    fixed noise multiplier q = min(1, b/ñ_tr), charged the envelope of its curves over every count near ñ_tr
    (:func:`~dpfair_native.models.dpsgd.adaptive_rdp`), since its ε moves with the private n_tr; with
    ``target_epsilon`` q = min(1, b/e) from the edge e = 1.05^⌊log_1.05 ñ_tr⌋ of ñ_tr's cell (q at most 5 % above
    b/ñ_tr), charged the maximum of its calibrated curves over the cells near ñ_tr (``_calibrated_candidate_rdp``),
    since its q, T and σ all move with n_tr. A candidate given a ``sample_rate`` (q public) is charged its own curve.
    (3) Draw K ~ D_{η,γ}. (4) K times: draw a candidate uniformly, fit it on the training part, release its
    validation histogram of (group, label, prediction) counts with N(0, σ_v²) per cell, and compute its score from
    it. (5) Return the run with the best score (ties: the first).

    **Privacy.** One run Q (candidate drawn at random, fit, noisy validation histogram) touches a record either
    through the training part or through the validation part, never both (the split is data-independent), so Q's
    RDP at order λ is at most max(max_c ε_c(λ), λ/(2σ_v²)) — parallel composition for each split, and a mixture
    over splits and candidates of mechanisms that each meet the bound meets it too (exp((λ−1)D_λ) is jointly
    convex). ε_c is candidate c's own curve: T_c·RDP_subsampled(q_c, σ_eff,c) plus its internal record-count
    release. The selection of the best of K ~ D_{η,γ} runs is then (λ, ε'(λ))-RDP with Papernot & Steinke's
    Theorem 2, :func:`tnb_selection_rdp`; the release of ñ_tr composes with it (+λ/(2σ_n²)), and
    ``privacy_spent_`` converts the total to (ε, δ) with the RDP accountant's conversion. Only the best run's
    output is released: the other runs' scores and models are discarded (releasing them would void the bound), and
    so is K itself — the theorem bounds the best of a secret number of runs; with K known, the best of K runs costs
    roughly K runs' worth (no ``n_runs_`` attribute, and each run draws its noise from a generator of its own).
    Each run's curve ε_c includes every release its fit makes: the record count, the centre (``center=True``) and
    the steps; group-aware runs get ``declared_groups`` (the search's labels), so which groups the training part
    holds is not released. A run whose training diverges (:class:`~dpfair_native.models.TrainingDivergedError`, a
    function of that run's noisy sums) scores −∞ instead of aborting the search: an abort would release a function
    of every run and of K, which the theorem does not cover; the search raises only when the best run failed, i.e.
    every run did (post-processing of the selected output). An empty validation part gives a histogram of noise
    alone. The bound also assumes that what only the search's own process sees is not observed: its running time
    (about K fits) and in-process state that counts the runs, such as the memo caches' statistics (after a search,
    ``models.dpsgd._privacy_spent.cache_info().hits`` grows by K − 1 when the cache already holds the runs' privacy
    setting, a function of K in any case). The guarantee is for the returned object.

    **What still aborts** (outside the guarantee, like the estimators' data-dependent aborts): a split whose training
    part is empty (probability ``validation_fraction``^n: below 1e-5 for n >= 8 at the default 0.2).
    """

    _parameter_constraints = {
        "estimator": [object],  # the DP-SGD family: checked in fit with the list of supported estimators
        "candidates": [list, tuple],
        "mean_runs": [Interval(Real, 1, None, closed="neither")],
        "eta": [Interval(Real, -1, None, closed="neither")],
        "validation_fraction": [PROBABILITY],
        "validation_noise": [POSITIVE],
        "constraint": [StrOptions({"demographic_parity", "equal_opportunity", "equalized_odds"}), None],
        "bound": [NON_NEGATIVE],
        "fairness_weight": [NON_NEGATIVE],
        "delta": [PROBABILITY],
        "declared_groups": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        candidates: Sequence[dict],
        *,
        mean_runs: float = 10.0,
        eta: float = 1.0,
        validation_fraction: float = 0.2,
        validation_noise: float = 20.0,
        constraint: Optional[str] = None,
        bound: float = 0.0,
        fairness_weight: float = 2.0,
        delta: float = 1e-5,
        declared_groups=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.candidates = candidates
        self.mean_runs = mean_runs
        self.eta = eta
        self.validation_fraction = validation_fraction
        self.validation_noise = validation_noise
        self.constraint = constraint
        self.bound = bound
        self.fairness_weight = fairness_weight
        self.delta = delta
        self.declared_groups = declared_groups
        self.random_state = random_state

    # -- privacy of one candidate ----------------------------------------------------------------------------
    @staticmethod
    def candidate_rdp(estimator, sample_rate: float, orders) -> np.ndarray:
        """RDP curve of one fit of a DP-SGD-family ``estimator`` run with sampling rate q = ``sample_rate``."""
        from .models.dpsgd import _releases_before, dpsgd_rdp

        _check_family(estimator)
        validate_params(estimator)
        if not estimator._private():
            raise ValueError("every candidate must be private (target_epsilon or noise_multiplier > 0)")
        if getattr(estimator, "secure", False):
            raise ValueError("secure=True candidates are not supported by the search yet (their discrete-Gaussian "
                             "steps need the secure RDP bound); tune with secure=False")
        q = float(sample_rate)
        estimator = _clone(estimator).set_params(sample_rate=q)  # a run at q, calibrated as such a run is
        steps = int(estimator.epochs) * max(1, int(round(1.0 / q)))
        before = _releases_before(q, steps, estimator._center_noise)  # as the fit makes them
        sigma, sigma_count = estimator._noise_multipliers(q, steps, before)
        sigma_eff = estimator._effective_sigma(sigma, sigma_count)
        return dpsgd_rdp(q, sigma_eff, steps, before, orders)

    def _candidates(self, candidates, n_estimate: float, delta: float, orders, labels):
        """(estimators, their RDP curves, the tail mass their curves leave to δ) for the runs."""
        from .models.dpsgd import _cell_edge

        models, curves, tail = [], [], 0.0
        for params in candidates:
            est = _clone(self.estimator).set_params(**params)
            from_count = getattr(est, "sample_rate", None) is None
            calibrated = est._requested_privacy()[0] is not None
            if from_count:
                b = getattr(est, "batch_size", None)
                if b is None:
                    raise ValueError("each candidate needs batch_size or sample_rate")
                est.set_params(sample_rate=min(1.0, float(b) / (_cell_edge(n_estimate) if calibrated else n_estimate)))
            if labels is not None and "declared_groups" in est.get_params():
                est.set_params(declared_groups=labels)  # else a run's groups_ would say which groups it saw
            curve = self.candidate_rdp(est, est.sample_rate, orders)
            if from_count:
                # q from ñ: the curve moves with the private count, so charge every count near ñ (as a fit does)
                if calibrated:
                    curve, p_out = _calibrated_candidate_rdp(est, int(b), n_estimate, delta, orders)
                else:
                    curve, p_out = _adaptive_candidate_rdp(est, int(b), n_estimate, delta)
                tail = max(tail, p_out)
            curves.append(curve)
            models.append(est)
        return models, curves, tail

    def fit(self, X, y, *, sensitive_features=None):
        from .accountants import DEFAULT_RDP_ORDERS, PrivacySpent, rdp_gaussian, rdp_to_epsilon
        from .models.dpsgd import RECORD_COUNT_NOISE

        validate_params(self)
        _check_family(self.estimator)
        candidates = list(self.candidates)
        if not candidates or not all(isinstance(c, dict) for c in candidates):
            raise ValueError("candidates must be a non-empty sequence of parameter dicts")
        if any(is_dask_collection(v) for v in (X, y, sensitive_features)):
            raise TypeError(f"{type(self).__name__} has no Dask fit (DP-SGD's training is not a sum over rows); pass "
                            "NumPy arrays (e.g. X.compute() on a sample)")
        domain = getattr(X, "domain", None)  # declared by a DomainEncoder upstream (public); every run gets it
        domain = domain if isinstance(domain, FeatureDomain) else None
        X = check_X(X)
        n = X.shape[0]
        classes, y01 = check_binary_labels(y, n, zero_one_public=True)
        warn_if_classes_read_from_data(type(self).__name__, True, classes, stacklevel=user_stacklevel() + 1)
        delta, p_val, sigma_v = float(self.delta), float(self.validation_fraction), float(self.validation_noise)
        eta = float(self.eta)
        gamma = tnb_gamma_for_mean(eta, self.mean_runs)
        declared = self.declared_groups
        if declared is None:
            declared = getattr(self.estimator, "declared_groups", None)
        if sensitive_features is None:
            if self.constraint is not None or getattr(self.estimator, "requires_sensitive_features", False):
                raise ValueError("sensitive_features is required for this estimator / constraint")
            labels, groups = np.array([0]), np.zeros(n, dtype=np.int64)
        else:
            labels, groups = check_sensitive_features(sensitive_features, n, groups=declared)
            if declared is None:
                warnings.warn(
                    "PrivateHyperparameterSearch: the group labels were read from sensitive_features, so which groups "
                    "occur is released without privacy protection; pass declared_groups=[...] to declare them",
                    PrivacyLeakWarning,
                    stacklevel=2,
                )
        K = labels.shape[0]
        rng = check_random_state(self.random_state)

        orders = np.asarray(DEFAULT_RDP_ORDERS, dtype=np.float64)
        val = rng.random(n) < p_val
        tr = ~val
        n_tr_est = max(1.0, tr.sum() + RECORD_COUNT_NOISE * float(rng.standard_normal()))
        models, curves, tail = self._candidates(candidates, n_tr_est, delta, orders,
                                                labels if sensitive_features is not None else None)
        run_rdp = np.maximum(np.max(curves, axis=0), rdp_gaussian(sigma_v, orders))
        total_rdp = tnb_selection_rdp(orders, run_rdp, eta, gamma) + rdp_gaussian(RECORD_COUNT_NOISE, orders)

        n_runs = sample_tnb(eta, gamma, rng)
        Xtr, ytr, gtr = X[tr], y01[tr], groups[tr]
        Xv, yv, gv = X[val], y01[val].astype(np.int64), groups[val]
        if Xtr.shape[0] == 0:
            raise ValueError("the random split left no training rows (every record went to validation); use more "
                             "data or a smaller validation_fraction")
        train = (_carrying(Xtr, domain), ytr.astype(np.int64),  # the 0/1 codes: a split may hold one class
                 {"sensitive_features": labels[gtr]} if sensitive_features is not None else {})
        best = None
        for _ in range(n_runs):
            j = int(rng.integers(len(candidates)))
            score, est = self._run(models[j], train, (Xv, yv, gv, K), rng)
            if best is None or score > best[0]:
                best = (score, j, est)
        if best[2] is None:
            raise TrainingDivergedError("every run of the search diverged (non-finite weights); lower the "
                                        "candidates' learning_rate or clip_norm")
        self.best_score_, j, self.best_estimator_ = best
        self.best_estimator_.classes_ = classes  # its predict maps the codes back to the labels
        self.best_params_ = dict(candidates[j])
        self.gamma_ = gamma
        self.n_train_estimate_ = n_tr_est
        self.privacy_spent_ = PrivacySpent(rdp_to_epsilon(orders, total_rdp, delta - tail)[0], delta, "rdp",
                                          "add_or_remove_one")
        self.run_epsilon_ = float(rdp_to_epsilon(orders, np.max(curves, axis=0), delta - tail)[0])
        self.classes_ = classes
        chosen = self.best_estimator_  # the raw-units check on its released centre (the runs' warnings were silenced)
        if domain is None:  # as in a fit: a declared domain's scale is the user's
            chosen._check_scale(chosen.center_, chosen.center_noise_multiplier_, chosen.n_samples_estimate_,
                                RECORD_COUNT_NOISE)
        return self

    def _run(self, model, train, validation, rng):
        """One run: (noisy validation score, fitted estimator), or (−∞, None) when its training diverged."""
        # a generator of its own, dropped after the fit: the shared one's state would tell how many runs came
        # before (K is secret) and, rewound, their noise
        est = _clone(model).set_params(random_state=np.random.default_rng(rng.integers(2**63)))
        Xv, yv, gv, K = validation
        hist = np.zeros((K, 2, 2))
        try:  # silently: a run's warning, even one per run, is not part of the released output (and would count K)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(train[0], train[1], **train[2])
        except TrainingDivergedError:
            est = None  # this run's output is "failed" (its validation noise is drawn all the same)
        else:
            est.set_params(random_state=None)
            if Xv.shape[0]:
                pred = (est.decision_function(Xv) > 0).astype(np.int64)
                np.add.at(hist, (gv, yv, pred), 1.0)
        hist += self.validation_noise * rng.standard_normal(hist.shape)
        if est is None:
            return -math.inf, None
        return _score(hist, self.constraint, float(self.bound), float(self.fairness_weight)), est

    def predict(self, X):
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        return self.best_estimator_.decision_function(X)


def _check_family(estimator):
    from .models.dpsgd import _DPSGDBase

    if not isinstance(estimator, _DPSGDBase):
        raise ValueError(
            "PrivateHyperparameterSearch supports the DP-SGD family (DPSGDClassifier, DPSGDFClassifier, "
            f"NaiveReweightedDPSGDClassifier, ConstrainedDPSGDClassifier), got {type(estimator).__name__}"
        )


def _carrying(X, domain):
    """X with ``.domain`` set, as a DomainEncoder's output carries it (rows only were selected, so it still holds)."""
    if domain is None:
        return X
    if isinstance(X, np.ndarray):
        X = X.view(EncodedArray)
    X.domain = domain
    return X


def _adaptive_candidate_rdp(est, batch_size: int, n_estimate: float, delta: float):
    """(RDP curve, tail) of a fixed-σ candidate whose q = b/ñ comes from the search's noisy count: the envelope of
    :func:`~dpfair_native.models.dpsgd.adaptive_rdp` over the counts near ñ (on DEFAULT_RDP_ORDERS), and its tail
    mass for δ."""
    from .models.dpsgd import _releases_before, adaptive_rdp

    # q = b/ñ' as a fit under RDP makes it (under PLD a fit takes q from ñ's cell; the tuner's run has q = b/ñ)
    sampling = _clone(est).set_params(sample_rate=None, batch_size=batch_size, accountant_method="rdp")._sampling
    q, steps = sampling(n_estimate)
    before = _releases_before(q, steps, est._center_noise)
    sigma_eff = est._effective_sigma(*est._noise_multipliers(q, steps, before))
    _, envelope, p_out = adaptive_rdp(sampling, est._center_noise, sigma_eff, n_estimate, delta)
    return envelope, p_out


def _calibrated_candidate_rdp(est, batch_size: int, n_estimate: float, delta: float, orders):
    """(RDP curve, tail) of a ``target_epsilon`` candidate whose q comes from the search's noisy count ñ through its
    cell edge (:func:`~dpfair_native.models.dpsgd._cell_edge`): the order-wise maximum of the calibrated curves of
    every cell that meets W = [ñ − 2kσ_n − 1, ñ + 2kσ_n + 1] (k = :func:`~dpfair_native.models.dpsgd.count_window`),
    and the count's tail mass for δ.

    Why it bounds the run: q, T and the σ calibrated at them are functions of the cell of ñ alone (the run's own
    releases, charged in its curve, do not feed them), so a run has the parameters of some cell. For a record count
    n_tr with |ñ − n_tr| <= kσ_n, the counts the release gives on n_tr or a neighbour's n_tr ± 1 except with
    probability p = P(|N(0, 1)| > k) lie in n_tr ± (kσ_n + 1) ⊆ W, and their cells are among
    ``_cell_index(lo) .. _cell_index(hi)`` (the index is non-decreasing), so the run's curve at every order is at most
    this maximum; p goes to δ. Calibrating at ñ itself instead left the
    bound over the counts near n_tr above the curve charged: 0.1–1.2 % in session 18's settings, up to 10 % with one
    epoch of batch 64 on 150–2,500 rows (review, session 20). Cost: one calibration per cell, about 1 s per candidate
    (20–70 cells) on a few thousand rows or fewer, 0.1 s on 20,000.
    """
    from .models.dpsgd import _ORDER_CELL, RECORD_COUNT_NOISE, _cell_index, count_range, count_window

    lo, hi, p_out = count_range(n_estimate, delta, 2)
    rates = {min(1.0, batch_size / _ORDER_CELL**i) for i in range(_cell_index(lo), _cell_index(hi) + 1)}
    envelope = np.zeros(len(orders))
    for q in sorted(rates):
        try:
            curve = PrivateHyperparameterSearch.candidate_rdp(_clone(est).set_params(sample_rate=q), q, orders)
        except ValueError as exc:
            raise ValueError(
                f"{exc} [at q = {q:.6g}: a candidate with target_epsilon and batch_size is charged at every training "
                f"count within {2 * count_window(delta) * RECORD_COUNT_NOISE:.0f} of the noisy count "
                f"{n_estimate:.0f}, down to {lo:.0f}; give it a sample_rate to charge only its own q]"
            ) from exc
        envelope = np.maximum(envelope, curve)
    return envelope, p_out


def _clone(estimator):
    return type(estimator)(**estimator.get_params(deep=False))
