"""Non-private baselines: exact logistic regression and its fair variant (Zafar et al. 2017), by damped Newton.

Both fit with the ``logistic_newton`` kernel: each Newton step is one pass over X giving the scores, the gradient
and the Hessian of the exact loss; the step minimizes the local quadratic model (with the linear constraint
|aᵀw| <= τ for the fair variant, which keeps every iterate feasible) and is checked, or shortened, by the slope of
the loss along it. On sparse X with many non-zeros per row the unconstrained steps are solved inexactly by
preconditioned conjugate gradients on Hessian-vector products instead (see ``kernels.logistic_newton``). Neither
model is private: ``privacy_spent_ = (inf, 0.0)``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import kernels
from .._validation import BACKEND, NON_NEGATIVE, POSITIVE, POSITIVE_INT
from ..accountants import PrivacySpent
from ._base import DPClassifierBase

__all__ = ["LogisticRegression", "FairLogisticRegression"]


def _fit_newton(est, X, y, constraint=None):
    """Fitted attributes of argmin Σ_i log(1 + e^{z_i}) − y_i z_i + (α/2)‖coef‖² (z = x_iᵀcoef + intercept),
    optionally s.t. |aᵀw| <= τ (the parameters were validated by ``fit``)."""
    fit = kernels.logistic_newton(
        X, y, alpha=est.alpha, fit_intercept=bool(est.fit_intercept), constraint=constraint, max_iter=int(est.max_iter),
        tol=est.tol, n_threads=est.n_threads, backend=est.backend,
    )
    d = X.shape[1]
    return {
        "coef_": fit.w[:d].copy(),
        "intercept_": float(fit.w[d]) if est.fit_intercept else 0.0,
        "privacy_spent_": PrivacySpent(math.inf, 0.0, "none"),
        "n_iter_": fit.n_iter,
        "converged_": fit.converged,
    }


class LogisticRegression(DPClassifierBase):
    """Non-private logistic regression, exact loss, damped Newton in the ``logistic_newton`` kernel.

    Parameters
    ----------
    alpha : float >= 0, default 1e-4
        Ridge weight on ``coef_``.
    fit_intercept : bool, default True
    max_iter : int, default 50
        Newton steps at most.
    tol : float > 0, default 1e-8
        Stop after a full Newton step v with max|v| <= tol·(1 + max|w|).
    backend : {"native", "numpy"}, default "native"
    n_threads : int or None, default None
    random_state : int, numpy Generator or None, default None
        Unused (the fit is deterministic); accepted for API uniformity.
    accountant : None
        Must be None: the model is not private.

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, feature_names_in_
        As every classifier of the package (:class:`~dpfair_native.models.DPClassifierBase`).
    privacy_spent_ : PrivacySpent
        (inf, 0.0), method "none": not private.
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    Minimizes Σ_i [log(1 + exp(z_i)) − y_i z_i] + (alpha/2)‖coef‖², z_i = x_iᵀcoef + intercept.
    Not private: ``privacy_spent_ = (inf, 0.0)``; an ``accountant`` refuses it (infinite ε).
    """

    _may_score_poorly = False  # exact, non-private
    _parameter_constraints = {
        "alpha": [NON_NEGATIVE],
        "fit_intercept": ["boolean"],
        "max_iter": [POSITIVE_INT],
        "tol": [POSITIVE],
        "backend": [BACKEND],
        "n_threads": [POSITIVE_INT, None],
        "random_state": ["random_state"],
        "accountant": [None, object],  # any object is refused in _fit, with the reason (not private)
    }

    def _adds_noise(self) -> bool:  # a non-private baseline: nothing to warn about
        return False

    def __init__(self, *, alpha=1e-4, fit_intercept=True, max_iter=50, tol=1e-8, backend="native", n_threads=None,
                 random_state=None, accountant=None):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.backend = backend
        self.n_threads = n_threads
        self.random_state = random_state
        self.accountant = accountant

    def _refuse_accountant(self):
        if self.accountant is not None:
            raise ValueError(
                f"{type(self).__name__} is not private (epsilon = inf); don't pass an accountant, "
                "or use a DP estimator such as FunctionalMechanismLR"
            )

    def _fit(self, X, y, groups, group_labels, rng):
        self._refuse_accountant()
        return _fit_newton(self, X, y)


class FairLogisticRegression(LogisticRegression):
    """Non-private fair logistic regression: the loss of LogisticRegression subject to |cov(s, xᵀw)| <= tau.

    Parameters
    ----------
    tau : float >= 0, default 0.0
        Bound on |cov(s, xᵀw)|.
    alpha, fit_intercept, max_iter, tol, backend, n_threads, random_state, accountant
        As :class:`LogisticRegression`.
    declared_groups : array-like or None, default None
        Public group labels (exactly two).

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, feature_names_in_, privacy_spent_, n_iter_, converged_
        As :class:`LogisticRegression`.
    groups_ : ndarray (2,)
    constraint_value_ : float
        The fitted covariance aᵀw.

    Notes
    -----

    cov(s, xᵀw) = (1/n) Σ_i (s_i − s̄) x_iᵀw (decision-boundary covariance, Zafar et al. 2017; the intercept
    cancels), s_i ∈ {0, 1} the code of the row's group (exactly two groups). Solved exactly as a linearly
    constrained Newton method (each step's quadratic model minimized subject to the constraint).
    The sign of the group coding does not matter (the constraint is on |cov|). ``constraint_value_`` is the
    fitted covariance. Not private: ``privacy_spent_ = (inf, 0.0)``.
    """

    requires_sensitive_features = True

    _may_score_poorly = True  # the fairness constraint trades accuracy
    _parameter_constraints = {
        **LogisticRegression._parameter_constraints,
        "tau": [NON_NEGATIVE],
        "declared_groups": ["array-like", None],
    }

    def __init__(self, *, tau=0.0, alpha=1e-4, fit_intercept=True, max_iter=50, tol=1e-8, backend="native",
                 n_threads=None, random_state=None, accountant=None, declared_groups=None):
        super().__init__(alpha=alpha, fit_intercept=fit_intercept, max_iter=max_iter, tol=tol, backend=backend,
                         n_threads=n_threads, random_state=random_state, accountant=accountant)
        self.tau = tau
        self.declared_groups = declared_groups

    def _fit(self, X, y, groups, group_labels, rng):
        self._refuse_accountant()
        tau = float(self.tau)
        if len(group_labels) != 2:
            raise ValueError(
                f"FairLogisticRegression needs exactly two groups in sensitive_features, got {len(group_labels)}"
            )
        counts = np.bincount(groups, minlength=2)
        if np.any(counts == 0):
            raise ValueError(
                f"declared group {group_labels[np.argmax(counts == 0)].item()!r} has no rows in sensitive_features; "
                "drop it from declared_groups or pass rows of both groups"
            )
        n = X.shape[0]
        s = groups.astype(np.float64)
        # a = Σ (s_i − s̄) x_i / n as poly2's b (c = 0: no Hessian work), not as `s @ X`: a threaded BLAS call
        # leaves OpenBLAS threads spinning, and on two cores they slow the next native call by ~70% (measured).
        a = kernels.poly2_coefficients(X, s - s.mean(), 0.0, n_threads=self.n_threads, backend=self.backend)[0] / n
        if self.fit_intercept:
            a = np.append(a, 0.0)
        if not np.any(a):
            raise ValueError("the two groups have identical feature means; the covariance constraint is void")
        fitted = _fit_newton(self, X, y, constraint=(a, tau))
        w = np.append(fitted["coef_"], fitted["intercept_"]) if self.fit_intercept else fitted["coef_"]
        fitted["constraint_value_"] = float(a @ w)
        return fitted
