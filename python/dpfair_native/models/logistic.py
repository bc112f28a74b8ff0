"""Non-private baselines: exact logistic regression and its fair variant (Zafar et al. 2017), by Newton/IRLS.

Each Newton step is one pass of the ``poly2_coefficients`` kernel with row weights a_i = p_i − y_i (gradient)
and c_i = ½·p_i(1 − p_i) (half the Hessian), followed by ``minimize_quadratic`` on the local quadratic model —
with the linear constraint |aᵀw| <= τ for the fair variant, which keeps every iterate feasible. The scores
z = Xw + bias are updated along each step (one product with X per iteration, none per line-search loss), and
the iteration stops when the step, or in the quadratic phase its predicted successor, is <= tol·(1 + max|w|).
Neither model is private: ``privacy_spent_ = (inf, 0.0)``.
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from ._base import DPClassifierBase
from ._functional_core import taylor_terms

__all__ = ["LogisticRegression", "FairLogisticRegression"]


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _loss(z, y, w_coef, alpha):
    """Σ log(1 + e^z) − y z + (α/2)‖w_coef‖² at the scores z = Xw + bias, computed stably."""
    return float(np.sum(np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0.0) - y * z) + 0.5 * alpha * (w_coef @ w_coef))


def _newton(est, X, y, constraint=None):
    """Minimize Σ_i log(1 + e^{z_i}) − y_i z_i + (α/2)‖w‖² (z = xᵀw + bias) with damped Newton steps."""
    n, d = X.shape
    fi = bool(est.fit_intercept)
    alpha = float(est.alpha)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {est.alpha!r}")
    if int(est.max_iter) < 1:
        raise ValueError(f"max_iter must be >= 1, got {est.max_iter!r}")
    m = d + 1 if fi else d
    reg = np.full(m, alpha)
    if fi:
        reg[d] = 0.0
    w = np.zeros(m)
    z = np.zeros(n)  # the scores Xw + bias, kept up to date along the steps (no product with X per loss)
    loss = _loss(z, y, w[:d], alpha)
    n_iter = 0
    converged = False
    prev_change = np.inf
    for n_iter in range(1, int(est.max_iter) + 1):
        p = _sigmoid(z)
        g, H2, _, _ = taylor_terms(
            X, p - y, 0.5 * p * (1.0 - p), fit_intercept=fi, n_threads=est.n_threads, backend=est.backend
        )
        # Local model: ½ vᵀ(H + αI)v + (g + αw)ᵀv for v = w' − w, i.e. w'ᵀ Q w' + bᵀ w' with
        # Q = ½(H + αI), b = g + αw − (H + αI)w.
        Q = H2 + np.diag(0.5 * reg)
        b = g + reg * w - 2.0 * (Q @ w)
        sol = kernels.minimize_quadratic(
            Q, b, psd="trim", floor=1e-12 * max(1.0, float(np.max(np.diag(Q)))), constraint=constraint,
            backend=est.backend,
        )
        step = sol.w - w
        dz = X @ step[:d] + (step[d] if fi else 0.0)
        t = 1.0
        while True:  # backtracking: a convex combination of feasible points stays feasible
            w_new = w + t * step
            z_new = z + t * dz
            new_loss = _loss(z_new, y, w_new[:d], alpha)
            if new_loss <= loss + 1e-12 * abs(loss) or t < 1e-6:
                break
            t *= 0.5
        change = float(np.max(np.abs(w_new - w)))
        w, z, loss = w_new, z_new, new_loss
        bound = est.tol * (1.0 + float(np.max(np.abs(w))))
        # In the quadratic phase (full steps, change_k ≈ C·change_{k-1}²) the next step, i.e. the distance of w
        # to the optimum, is ≈ change_k³ / change_{k-1}²: stop once that prediction, or the step itself, is <= tol.
        quadratic = t == 1.0 and change <= 0.1 * prev_change < np.inf
        if change <= bound or (quadratic and change**3 <= bound * prev_change**2):
            converged = True
            break
        prev_change = change
    return w, n_iter, converged


class LogisticRegression(DPClassifierBase):
    """Non-private logistic regression, exact loss, Newton/IRLS on the native kernels.

    Minimizes Σ_i [log(1 + exp(z_i)) − y_i z_i] + (alpha/2)‖coef‖², z_i = x_iᵀcoef + intercept.
    Not private: ``privacy_spent_ = (inf, 0.0)``; an ``accountant`` refuses it (infinite ε).
    """

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
        w, n_iter, converged = _newton(self, X, y)
        d = X.shape[1]
        return {
            "coef_": w[:d].copy(),
            "intercept_": float(w[d]) if self.fit_intercept else 0.0,
            "privacy_spent_": (np.inf, 0.0),
            "n_iter_": n_iter,
            "converged_": converged,
        }


class FairLogisticRegression(LogisticRegression):
    """Non-private fair logistic regression: the loss of LogisticRegression subject to |cov(s, xᵀw)| <= tau.

    cov(s, xᵀw) = (1/n) Σ_i (s_i − s̄) x_iᵀw (decision-boundary covariance, Zafar et al. 2017; the intercept
    cancels), s_i ∈ {0, 1} the code of the row's group (exactly two groups). Solved exactly as a linearly
    constrained Newton method (each step's quadratic model minimized subject to the constraint).
    The sign of the group coding does not matter (the constraint is on |cov|). ``constraint_value_`` is the
    fitted covariance. Not private: ``privacy_spent_ = (inf, 0.0)``.
    """

    requires_sensitive_features = True

    def __init__(self, *, tau=0.0, alpha=1e-4, fit_intercept=True, max_iter=50, tol=1e-8, backend="native",
                 n_threads=None, random_state=None, accountant=None, declared_groups=None):
        super().__init__(alpha=alpha, fit_intercept=fit_intercept, max_iter=max_iter, tol=tol, backend=backend,
                         n_threads=n_threads, random_state=random_state, accountant=accountant)
        self.tau = tau
        self.declared_groups = declared_groups

    def _fit(self, X, y, groups, group_labels, rng):
        self._refuse_accountant()
        tau = float(self.tau)
        if not np.isfinite(tau) or tau < 0:
            raise ValueError(f"tau must be a finite number >= 0, got {self.tau!r}")
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
        n, d = X.shape
        s = groups.astype(np.float64)
        a = (s - s.mean()) @ X / n
        if self.fit_intercept:
            a = np.append(a, 0.0)
        if not np.any(a):
            raise ValueError("the two groups have identical feature means; the covariance constraint is void")
        w, n_iter, converged = _newton(self, X, y, constraint=(a, tau))
        return {
            "coef_": w[:d].copy(),
            "intercept_": float(w[d]) if self.fit_intercept else 0.0,
            "privacy_spent_": (np.inf, 0.0),
            "n_iter_": n_iter,
            "converged_": converged,
            "constraint_value_": float(a @ w),
        }
