"""Pure-NumPy twins of the native kernels.

Each function has the signature and the semantics of its native counterpart in :mod:`dpfair_native.kernels`
(inputs already validated by that module). They are the specification the native code is tested against and the
``backend="numpy"`` path that runs the whole library without the extension.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QuadraticSolution:
    """Result of :func:`dpfair_native.kernels.minimize_quadratic`: the minimizer of wᵀHw + bᵀw and what the PSD
    repair did. The native backend returns the bound struct ``_core.QuadraticSolution`` with the same read-only
    fields.

    w: the minimizer (d,). n_trimmed: eigen-directions dropped by psd="trim". shift: amount added to every
    eigenvalue by psd="shift". lambda_min: smallest eigenvalue of the symmetric input Q (before repair and
    ridge; estimated by Lanczos for the CG solver). iterations / converged: CG iterations (0 for direct solves).
    constraint_active / multiplier: whether |aᵀw| <= tau was binding and its Lagrange multiplier ν.
    """

    w: np.ndarray
    n_trimmed: int
    shift: float
    lambda_min: float
    iterations: int
    converged: bool
    constraint_active: bool
    multiplier: float


def _sum_by_group(M, groups, n_groups):
    """Row sums of M per group label, as one (n_groups, n) indicator product (np.add.at is ~50x slower)."""
    indicator = np.zeros((n_groups, M.shape[0]))
    indicator[groups, np.arange(M.shape[0])] = 1.0
    return indicator @ M


def poly2_coefficients(X, a, c, groups, n_groups):
    """b = Σ a_i x_i,  Q = Σ c_i x_i x_iᵀ,  group_sums[k] = Σ_{g(i)=k} x_i,  group_counts[k] = #{i: g(i)=k}."""
    if _is_csr(X):
        return poly2_coefficients_csr(X, a, c, groups, n_groups)
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    b = a @ X
    Q = (X * c[:, None]).T @ X
    Q = 0.5 * (Q + Q.T)
    if groups is None:
        return b, Q, np.zeros((0, d)), np.zeros(0, dtype=np.int64)
    group_sums = _sum_by_group(X, groups, n_groups)
    group_counts = np.bincount(groups, minlength=n_groups).astype(np.int64)
    return b, Q, group_sums, group_counts


def minimize_quadratic(Q, b, ridge, psd, floor, solver, constraint, tol, max_iter):
    """Minimize f(w) = wᵀ H w + bᵀw with H = repair(Q) + ridge·I, optionally s.t. |aᵀw| <= tau.

    PSD repair of the symmetric Q (eigenvalues λ_j, eigenvectors v_j):
      "trim":  keep the directions with λ_j >= floor, minimize within their span (w has no component along
               dropped directions); n_trimmed = number dropped.
      "shift": add s = max(0, floor - λ_min) to every eigenvalue; shift = s.
      "ridge": no repair beyond the ridge term; H must be positive definite (λ_min + ridge >= floor) or a
               ValueError is raised.
    The reference always solves through the eigendecomposition, so `solver`, `tol` and `max_iter` only set
    the reported iteration count (0).
    """
    del solver, tol, max_iter
    d = Q.shape[0]
    lam, V = np.linalg.eigh(0.5 * (Q + Q.T))
    lam_min = float(lam[0]) if d else 0.0
    shift = 0.0
    n_trimmed = 0
    if psd == "trim":
        keep = lam >= floor
        n_trimmed = int(d - keep.sum())
        V = V[:, keep]
        h = lam[keep] + ridge
    elif psd == "shift":
        shift = max(0.0, floor - lam_min) if d else 0.0
        h = lam + shift + ridge
    elif psd == "ridge":
        h = lam + ridge
        if d and h[0] < floor:
            raise ValueError(
                f"psd='ridge': Q + ridge*I has smallest eigenvalue {h[0]:.3g} < floor={floor:.3g}; "
                "increase ridge or use psd='shift' or psd='trim'"
            )
    else:  # validated by kernels.minimize_quadratic
        raise ValueError(f"unknown psd repair {psd!r}")
    if h.size and not h.min() > 0.0:  # floor + ridge = 0 with a zero eigenvalue, or lost to rounding
        raise ValueError(
            "H = repair(Q) + ridge*I is singular (floor + ridge = 0 and Q has a zero eigenvalue, or floor + ridge is "
            "below rounding at the scale of Q's eigenvalues); pass a larger floor or ridge"
        )

    # In eigen-coordinates z = Vᵀw the objective is Σ h_j z_j² + (Vᵀb)_j z_j.
    bz = V.T @ b
    z = -0.5 * bz / h
    multiplier = 0.0
    active = False
    if constraint is not None:
        avec, tau = constraint
        az = V.T @ avec
        value = float(az @ z)
        if abs(value) > tau:
            # Minimizer of the quadratic on the hyperplane aᵀw = sign(value)·tau:
            # grad 2Hw + b + ν a = 0  ->  z = z0 - (ν/2) az / h,  aᵀw = target.
            target = np.sign(value) * tau
            denom = float(az @ (az / h))
            if denom <= 0.0:
                raise ValueError("constraint vector is orthogonal to every kept direction; "
                                 "cannot satisfy |a^T w| <= tau")
            multiplier = 2.0 * (value - target) / denom
            z = z - 0.5 * multiplier * az / h
            active = True
    w = V @ z
    return QuadraticSolution(
        w=w,
        n_trimmed=n_trimmed,
        shift=shift,
        lambda_min=lam_min,
        iterations=0,
        converged=True,
        constraint_active=active,
        multiplier=multiplier,
    )


def clip_group_gradients(X, y, w, bias, rows, groups, clip, threshold, l2, center=None):
    """Per-group sums of L2-clipped per-example logistic-loss gradients over the rows in `rows`.

    For row i (label y_i in {0,1}, group g = groups[i]) with z_i = xᵢᵀw + bias, the gradient with respect to
    (w, bias) is g_i = (σ(z_i) − y_i)·[x_i, 1] + l2·[w, 0]. It is scaled by min(1, clip[g]/‖g_i‖₂) and added to
    sums[g]. n_above[g] / n_below[g] count the rows whose *unclipped* norm is > / <= threshold (threshold
    None: the row's own clip[g]). With a ``center`` μ each row reads as x_i − μ (a CSR X's batch rows are then
    densified).
    """
    if _is_csr(X) and center is None:
        return clip_group_gradients_csr(X, y, w, bias, rows, groups, clip, threshold, l2)
    n_groups = clip.shape[0]
    d = X.shape[1]
    Xb = np.asarray(X[rows].toarray() if _is_csr(X) else X[rows], dtype=np.float64)
    if center is not None:
        Xb = Xb - center
    gb = groups[rows]
    z = Xb @ w + bias
    resid = 0.5 * (1.0 + np.tanh(0.5 * z)) - y[rows]
    G = np.empty((rows.shape[0], d + 1))
    G[:, :d] = resid[:, None] * Xb + l2 * w
    G[:, d] = resid
    norms = np.sqrt(np.einsum("ij,ij->i", G, G))
    bound = clip[gb]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = np.where(norms > bound, bound / norms, 1.0)
    # a norm neither finite nor <= the bound (NaN: x·w overflowed to inf − inf) leaves its row out, as natively:
    # NaN > bound is False, so the scale alone would let it in unclipped
    left_out = ~(norms <= bound) & ~np.isfinite(norms)
    sums = _sum_by_group(np.where(left_out[:, None], 0.0, G * scale[:, None]), gb, n_groups)
    limit = bound if threshold is None else threshold
    above = norms > limit
    n_above = np.bincount(gb[above], minlength=n_groups).astype(np.int64)
    n_below = np.bincount(gb[~above], minlength=n_groups).astype(np.int64)
    return sums, n_above, n_below


def dpsgd_epochs(X, y, params, batch_rows, batch_offsets, learning_rates, grad_noise, groups, clip, group_weights,
                 rule, count_noise, noise_multiplier, count_noise_multiplier, expected_batch_size, l2, noise,
                 weight_bound, secure_key=None, grid_inflation=1e-4, center=None):
    """The DP-SGD loop, step by step, on top of the reference ``clip_group_gradients``.

    Step t on params = [w, bias], batch B_t = batch_rows[offsets[t]:offsets[t+1]], expected batch size b:
      weight clipping (weight_bound M finite): w := w·min(1, M/‖w‖);
      per-group bounds C_k and weights a_k by ``rule`` ("fixed": C_k = clip[k], a_k = group_weights[k];
      "dpsgdf" and "naive": from the noisy counts, see :func:`dpfair_native.kernels.dpsgd_epochs`);
      S = Σ_k a_k·sums_k with sums_k the clipped gradient sum of group k (l2 = 0 inside the clipping);
      s_k = a_k·C_k; std = σ·max_k s_k ("shared") or σ·sqrt(Σ_k s_k²) ("per_group"), 0 when σ = 0;
      params -= lr_t·((S + std·grad_noise[t]) / b + l2·[w, 0]).
    Returns (params, step_bounds (T, K) holding s_k).
    Secure mode (``secure_key``): count and gradient noise are exact discrete Gaussians from the ChaCha20 stream
    (same order as the native loop; each row's clipped gradient is rounded to the grid and summed in integers: see
    :func:`secure_grid` and :func:`secure_row_units`).
    ``center`` μ (or None): every row reads as x_i − μ.
    """
    secure = secure_key is not None
    if secure:
        stream = ChaCha20Bits(secure_key)
        count_sigma2 = sigma2_upper_rational(count_noise_multiplier**2) if count_noise_multiplier > 0 else None

    def count_noise_of(t, width):
        if not secure:
            return count_noise_multiplier * count_noise[t]
        if count_sigma2 is None:
            return np.zeros(width)
        return np.array([float(_discrete_gaussian(stream, *count_sigma2)) for _ in range(width)])

    params = np.array(params, dtype=np.float64)
    d = X.shape[1]
    K = clip.shape[0]
    T = learning_rates.shape[0]
    b = expected_batch_size
    step_bounds = np.empty((T, K))
    for t in range(T):
        rows = batch_rows[batch_offsets[t]:batch_offsets[t + 1]]
        w = params[:d]
        if np.isfinite(weight_bound) and weight_bound > 0:
            norm = np.sqrt(w @ w)
            if norm > weight_bound:
                params[:d] = w * (weight_bound / norm)
        if rule == "fixed":
            bounds = clip.copy()
            weights = np.ones(K) if group_weights is None else group_weights.copy()
        elif rule == "dpsgdf":
            _, above, below = clip_group_gradients(X, y, params[:d], params[d], rows, groups, clip, None, 0.0,
                                                   center)
            u = count_noise_of(t, 2 * K)
            m_k = np.maximum(0.0, above + u[:K])
            o_k = np.maximum(0.0, below + u[K:])
            b_k = np.maximum(1.0, m_k + o_k)
            m_total = max(1.0, float(m_k.sum()))
            bounds = clip * (1.0 + (m_k / b_k) / (m_total / b))
            weights = np.ones(K)
        elif rule == "naive":
            counts = np.bincount(groups[rows], minlength=K).astype(np.float64)
            b_k = np.maximum(1.0, counts + count_noise_of(t, K))
            weights = (b / K) / b_k
            bounds = clip.copy()
        else:
            raise ValueError(f"unknown rule {rule!r}")
        s = np.where(weights == 0.0, 0.0, weights * bounds)
        step_bounds[t] = s
        std = 0.0
        if noise_multiplier > 0:
            std = noise_multiplier * (s.max() if noise == "shared" else np.sqrt(s @ s))
        if secure and noise_multiplier > 0:
            s_step = s.max() if noise == "shared" else float(np.sqrt(s @ s))
            gamma, limit, num, den = secure_grid(noise_multiplier, s_step, grid_inflation, d + 1)
            units = np.zeros(d + 1, dtype=np.int64)
            chunk = max(1, (1 << 22) // (d + 1))  # densified rows of at most 32 MiB at a time
            for start in range(0, rows.shape[0], chunk):
                V, coef = _clipped_rows(X, y, params[:d], params[d], rows[start:start + chunk], groups, bounds,
                                        weights, center)
                units += secure_row_units(V, coef, gamma, limit)
            params -= learning_rates[t] * _with_ridge(secure_release(stream, gamma, num, den, units) / b, params, l2)
            continue
        sums, _, _ = clip_group_gradients(X, y, params[:d], params[d], rows, groups, bounds, None, 0.0, center)
        total = (weights[:, None] * sums).sum(axis=0) if K else np.zeros(d + 1)
        if secure:
            g = total / b
        else:
            g = (total + std * grad_noise[t]) / b
        params -= learning_rates[t] * _with_ridge(g, params, l2)
    return params, step_bounds


def _with_ridge(g, params, l2):
    """g + l2·[w, 0] (the data-independent ridge, added after the noise)."""
    g[:-1] += l2 * params[:-1]
    return g


def _clipped_rows(X, y, w, bias, rows, groups, bounds, weights, center):
    """The batch's rows V_i = [x_i − μ, 1] (float64, densified) and their clipped coefficients
    c_i = a_k·r_i·min(1, C_k/‖g_i‖) (0 for a weight 0 or a norm neither finite nor <= C_k), as the native fused loop."""
    d = X.shape[1]
    Xb = np.asarray(X[rows].toarray() if _is_csr(X) else X[rows], dtype=np.float64)
    if center is not None:
        Xb = Xb - center
    V = np.empty((rows.shape[0], d + 1))
    V[:, :d] = Xb
    V[:, d] = 1.0
    gb = groups[rows]
    resid = 0.5 * (1.0 + np.tanh(0.5 * (Xb @ w + bias))) - y[rows]
    norms = np.sqrt(np.einsum("ij,ij->i", resid[:, None] * V, resid[:, None] * V))
    bound = bounds[gb]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = np.where(norms > bound, bound / norms, 1.0)
        coef = weights[gb] * resid * scale
    left_out = (~(norms <= bound) & ~np.isfinite(norms)) | (weights[gb] == 0.0)
    return V, np.where(left_out, 0.0, coef)


def _sigmoid(z):
    """σ(z) = (z >= 0 ? 1 : e) / (1 + e), e = exp(−|z|): no overflow (the native kernels' formula)."""
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0, e) / (1.0 + e)


def _newton_target(H, reg, w, grad, constraint):
    """Minimizer over feasible w + v of ½vᵀ(H + R)v + gradᵀv, returned as w + v (Cholesky, else trimmed eigenbasis)."""
    S = H + np.diag(reg)
    b = grad - S @ w
    floor = 1e-12 * max(1.0, 0.5 * float(np.max(np.diag(S))))
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        L = None
    if L is not None and 0.5 * float(np.min(np.diag(L))) ** 2 >= floor:
        target = np.linalg.solve(S, -b)
        if constraint is None:
            return target
        a, tau = constraint
        value = float(a @ target)
        if abs(value) <= tau:
            return target
        u = np.linalg.solve(S, a)
        denom = float(a @ u)
        if denom > 0.0:
            goal = np.copysign(tau, value)
            target = target - ((value - goal) / denom) * u
            return target - ((float(a @ target) - goal) / denom) * u
    return minimize_quadratic(0.5 * S, b, 0.0, "trim", floor, "newton", constraint, 0.0, 0).w


def damped_newton(full_pass, segment_slope, reg, constraint, max_iter, tol, hessian_times=None, refresh_after=0):
    """The damped Newton iteration of ``kernels.logistic_newton`` over any way of making full passes.

    ``full_pass(w, hessian) -> (z, g, H)``: the scores z at w (any object the line search understands), the
    loss gradient g and, when ``hessian``, the Hessian H (else None); ``segment_slope(t, z0, z1, w, v)``: the
    slope of the regularized loss at w + t·v given the scores z0 at w and z1 at w + v (scores are linear along
    the segment, so no pass). ``reg``: the ridge per coordinate. Step: the minimizer of the Newton model over
    the feasible set, taken whole when the slope at its end is <= 0, else bisected on the slope for a Wolfe
    step; stops after a full step with max|v| <= tol·(1 + max|w|), or in the quadratic phase when the
    predicted next step is that small. Returns (w, n_iter, converged). Shared by the NumPy twin below and by
    :mod:`dpfair_native.distributed` (per-partition passes).

    ``hessian_times(z, v) -> (Σ_i p_i(1 − p_i) x̃_i x̃_iᵀ) v`` at the scores z (one more pass), given without a
    constraint: the inexact steps of the native CSR kernel (cpp/src/logistic.cpp, before run_newton): each step
    solved by conjugate gradients preconditioned with an earlier pass's Hessian, to Eisenstat & Walker's
    tolerance η_k, a Hessian pass only after a solve of more than ``refresh_after`` products.
    """
    w = np.zeros(reg.shape[0])
    z, g, H = full_pass(w, True)
    precond = _preconditioner(H, reg) if hessian_times is not None and constraint is None else None
    eta, prev_grad_norm, refresh = _CG_ETA_MAX, 0.0, False
    converged = False
    n_iter = 0
    prev_change = np.inf
    for n_iter in range(1, max_iter + 1):
        grad = g + reg * w
        if precond is not None:
            grad_norm = float(np.linalg.norm(grad))
            if n_iter > 1:
                ratio, floor = grad_norm / prev_grad_norm, 0.9 * eta * eta
                eta = min(_CG_ETA_MAX, 0.9 * ratio * ratio)
                eta = max(eta, floor) if floor > 0.1 else eta
                eta = max(eta, _CG_ETA_MIN)
            prev_grad_norm = grad_norm
            v, products = _preconditioned_cg(lambda p, z=z: hessian_times(z, p) + reg * p, precond, -grad, eta)
            refresh = products > refresh_after
        else:
            v = _newton_target(H, reg, w, grad, constraint) - w
        hessian = precond is None or refresh
        change = float(np.max(np.abs(v)))
        bound = tol * (1.0 + float(np.max(np.abs(w + v))))
        quadratic = np.isfinite(prev_change) and change <= 0.1 * prev_change
        final = change <= bound or (quadratic and change**3 <= bound * prev_change**2)
        last = final or n_iter == max_iter
        trial = w + v
        z1, g1, H1 = full_pass(trial, not last and hessian)
        slope0 = float(grad @ v)
        slope1 = float((g1 + reg * trial) @ v)
        if slope1 <= 0.0 or (final and slope1 <= -0.5 * slope0):
            w, z, g, H = trial, z1, g1, H1
            if final:
                converged = True
                break
            if precond is not None and refresh:
                precond = _refreshed(precond, H, reg)
            prev_change = change
            continue
        t = _wolfe_step(lambda mid, z=z, z1=z1, w=w, v=v: segment_slope(mid, z, z1, w, v), slope0)
        if t == 0.0:
            converged = change <= bound
            break
        w = w + t * v
        prev_change = t * change
        if n_iter < max_iter:
            z, g, H = full_pass(w, hessian)
            if precond is not None and refresh:
                precond = _refreshed(precond, H, reg)
    return w, n_iter, converged


_CG_ETA_MAX, _CG_ETA_MIN, _CG_MAX_ITER = 0.5, 1e-10, 200
_CG_MIN_NONZEROS_PER_ROW = 24
_CSR_MAX_DENSITY = 0.1  # dense X with at most this share of non-zeros (and the rows above) is fitted as CSR


def _preconditioner(H, reg):
    """(H + diag(reg))⁻¹ when that matrix is positive definite by newton_target's margin, else None (the twin
    applies the inverse; the native kernel solves with the Cholesky factor)."""
    S = H + np.diag(reg)
    floor = 1e-12 * max(1.0, 0.5 * float(np.max(np.diag(S))))
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return None
    if np.min(0.5 * np.diag(L) ** 2) < floor:
        return None
    L_inv = np.linalg.inv(L)
    return L_inv.T @ L_inv


def _refreshed(precond, H, reg):
    new = _preconditioner(H, reg)
    return precond if new is None else new


def _preconditioned_cg(times, M_inv, b, eta):
    """CG for S x = b from 0 (S applied by ``times``), preconditioned by M⁻¹, until ‖b − Sx‖ <= eta‖b‖, a
    direction of non-positive curvature or 200 products. Returns (x, products)."""
    x = np.zeros_like(b)
    target = eta * float(np.linalg.norm(b))
    if not np.linalg.norm(b) > 0.0:
        return x, 0
    r = b.copy()
    z = M_inv @ r
    p = z.copy()
    rz = float(r @ z)
    for it in range(1, _CG_MAX_ITER + 1):
        Sp = times(p)
        curvature = float(p @ Sp)
        if not curvature > 0.0:
            return x, it
        step = rz / curvature
        x += step * p
        r -= step * Sp
        if np.linalg.norm(r) <= target:
            return x, it
        z = M_inv @ r
        rz_next = float(r @ z)
        p = z + (rz_next / rz) * p
        rz = rz_next
    return x, _CG_MAX_ITER


def _wolfe_step(slope, slope0):
    """Bisection on t in (0, 1) for 0.9·slope0 <= slope(t) <= 1e-4·slope0 (slope0 < 0); 0.0 when none is found."""
    lo, hi = 0.0, 1.0
    if slope0 < 0.0:
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            s = slope(mid)
            if s < 0.9 * slope0:
                lo = mid
            elif s > 1e-4 * slope0:
                hi = mid
            else:
                return mid
    return 0.0


def logistic_newton(X, y, alpha, fit_intercept, constraint, max_iter, tol):
    """Exact logistic regression by damped Newton steps (the algorithm of the native kernel, dense NumPy passes).

    Returns (w, n_iter, converged, n_passes); w = [coef, intercept (if fit_intercept)].
    """
    n, d = X.shape
    m = d + 1 if fit_intercept else d
    reg = np.full(m, float(alpha))
    if fit_intercept:
        reg[d] = 0.0
    X = X.astype(np.float64, copy=False)
    n_passes = 0

    def full_pass(w, hessian):
        nonlocal n_passes
        n_passes += 1
        z = np.asarray(X @ w[:d]) + (w[d] if fit_intercept else 0.0)
        p = _sigmoid(z)
        a = p - y
        g = np.empty(m)
        g[:d] = X.T @ a  # also for a scipy.sparse X
        if fit_intercept:
            g[d] = a.sum()
        if n_passes == 1 and not (np.all(np.isfinite(z)) and np.all(np.isfinite(g))):
            raise ValueError("X contains NaN or infinity; remove or impute those values first")
        if not hessian:
            return z, g, None
        c = p * (1.0 - p)
        H = np.empty((m, m))
        H[:d, :d] = _weighted_gram(X, c)
        if fit_intercept:
            H[:d, d] = H[d, :d] = X.T @ c
            H[d, d] = c.sum()
        return z, g, H

    def segment_slope(t, z0, z1, w, v):
        dz = z1 - z0
        return float((_sigmoid(z0 + t * dz) - y) @ dz + np.sum(reg * (w + t * v) * v))

    def hessian_times(z, v):
        nonlocal n_passes
        n_passes += 1
        p = _sigmoid(z)
        u = (p * (1.0 - p)) * (np.asarray(X @ v[:d]) + (v[d] if fit_intercept else 0.0))
        out = np.empty(m)
        out[:d] = X.T @ u
        if fit_intercept:
            out[d] = u.sum()
        return out

    sparse = hasattr(X, "nnz")
    inexact = False
    if constraint is None and (sparse or d * _CSR_MAX_DENSITY >= _CG_MIN_NONZEROS_PER_ROW):
        # CSR X, or dense X whose rows are wide and mostly zero (the native kernel fits it as CSR)
        counts = (np.diff(X.tocsr().indptr) if sparse else np.count_nonzero(X, axis=1)).astype(np.float64)
        nnz = float(counts.sum())
        inexact = nnz >= _CG_MIN_NONZEROS_PER_ROW * n and (sparse or nnz <= _CSR_MAX_DENSITY * n * d)
    refresh_after = 0
    if inexact:  # products that cost one Hessian pass: Σ nnz_i²/2 pair updates against 2·Σ nnz_i visits
        refresh_after = int(max(4.0, math.floor(float(counts @ counts) / (4.0 * max(float(counts.sum()), 1.0)))))
    w, n_iter, converged = damped_newton(full_pass, segment_slope, reg, constraint, max_iter, tol,
                                         hessian_times if inexact else None, refresh_after)
    return w, n_iter, converged, n_passes


# -- exact discrete noise on a ChaCha20 bit stream (twin of cpp/src/secure_noise.cpp) ---------------------------------
# Python integers replace unsigned __int128; every draw consumes exactly the bits the native sampler consumes, so both
# return identical integers for the same key.
_MASK32 = 0xFFFFFFFF
_SECURE_MAX = 1 << 48


def _rotl32(v, c):
    return ((v << c) & _MASK32) | (v >> (32 - c))


def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """The 64-byte ChaCha20 block of RFC 8439 §2.3 (key 32 bytes, 32-bit block counter, nonce 12 bytes)."""
    words = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    words += [int.from_bytes(key[4 * i : 4 * i + 4], "little") for i in range(8)]
    words += [counter & _MASK32] + [int.from_bytes(nonce[4 * i : 4 * i + 4], "little") for i in range(3)]
    x = list(words)

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & _MASK32
        x[d] = _rotl32(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & _MASK32
        x[b] = _rotl32(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & _MASK32
        x[d] = _rotl32(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & _MASK32
        x[b] = _rotl32(x[b] ^ x[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12)
        qr(1, 5, 9, 13)
        qr(2, 6, 10, 14)
        qr(3, 7, 11, 15)
        qr(0, 5, 10, 15)
        qr(1, 6, 11, 12)
        qr(2, 7, 8, 13)
        qr(3, 4, 9, 14)
    return b"".join(((x[i] + words[i]) & _MASK32).to_bytes(4, "little") for i in range(16))


class ChaCha20Bits:
    """The bit stream of the secure samplers: ChaCha20 blocks j = 0, 1, ... (counter j mod 2^32, nonce
    (j >> 32, 0, 0)), read as little-endian 32-bit words; ``bits(k)`` takes the k low bits of a 64-bit buffer
    refilled with one whole word (at its top) whenever it holds fewer than k bits."""

    def __init__(self, key: bytes):
        self._key = bytes(key)
        self._block = 0
        self._words = []
        self._buf = 0
        self._n = 0

    def next_word(self) -> int:
        if not self._words:
            nonce = (self._block >> 32).to_bytes(4, "little") + bytes(8)
            raw = chacha20_block(self._key, self._block & _MASK32, nonce)
            self._words = [int.from_bytes(raw[4 * i : 4 * i + 4], "little") for i in range(15, -1, -1)]
            self._block += 1
        return self._words.pop()

    def bits(self, k: int) -> int:
        if self._n < k:
            self._buf |= self.next_word() << self._n
            self._n += 32
        r = self._buf & ((1 << k) - 1)
        self._buf >>= k
        self._n -= k
        return r

    def uniform_below(self, m: int) -> int:
        if m <= 1:
            return 0
        k = (m - 1).bit_length()
        while True:
            if k <= 32:
                r = self.bits(k)
            else:
                r = self.bits(32)
                r |= self.bits(k - 32) << 32
            if r < m:
                return r


def _bernoulli_rational(rng: ChaCha20Bits, num: int, den: int) -> bool:
    """Bernoulli(num/den): compare random bits with the binary expansion of num/den (long division)."""
    if num == 0:
        return False
    if num >= den:
        return True
    rem = num
    while True:
        rem <<= 1
        p_bit = 0
        if rem >= den:
            rem -= den
            p_bit = 1
        u_bit = rng.bits(1)
        if u_bit != p_bit:
            return u_bit < p_bit


def _bernoulli_exp_unit(rng, num, den) -> bool:
    k = 1
    while _bernoulli_rational(rng, 1, k) and _bernoulli_rational(rng, num, den):
        k += 1
    return k % 2 == 1


def _bernoulli_exp(rng, num, den) -> bool:
    """Bernoulli(exp(−num/den)) (CKS Algorithm 1)."""
    if num == 0:
        return True
    if num < den:
        return _bernoulli_exp_unit(rng, num, den)
    for _ in range(num // den):
        if not _bernoulli_exp_unit(rng, 1, 1):
            return False
    return _bernoulli_exp_unit(rng, num % den, den)


def _geometric_exp(rng, t: int, s: int) -> int:
    """Y >= 0 with P(Y >= k) = exp(−k·s/t): ⌊X/s⌋ for CKS Algorithm 2's X = U + t·V ~ Geometric(1 − e^{−1/t})."""
    while True:
        u = rng.uniform_below(t)
        if not _bernoulli_exp(rng, u, t):
            continue
        v = 0
        while _bernoulli_exp(rng, 1, 1):
            v += 1
        return (u + t * v) // s


def _discrete_laplace(rng, t: int, s: int) -> int:
    """P(z) ∝ exp(−|z|·s/t) (CKS Algorithm 2); rejects |y| >= 2^62 as the native sampler does."""
    while True:
        y = _geometric_exp(rng, t, s)
        negative = rng.bits(1) == 1
        if negative and y == 0:
            continue
        if y >= 1 << 62:
            continue
        return -y if negative else y


def _discrete_gaussian(rng, num: int, den: int) -> int:
    """P(z) ∝ exp(−z²/(2σ²)), σ² = num/den (CKS Algorithm 3); same truncation as the native sampler."""
    t = math.isqrt(num // den) + 1
    dt = den * t
    gamma_den = 2 * num * dt * t
    limit = (1 << 62) // dt
    while True:
        y = _discrete_laplace(rng, t, 1)
        if abs(y) >= limit:
            continue
        diff = abs(abs(y) * dt - num)
        if _bernoulli_exp(rng, diff * diff, gamma_den):
            return y


def _check_rational(num: int, den: int, what: str) -> None:
    if not (1 <= num <= _SECURE_MAX and 1 <= den <= _SECURE_MAX):
        raise ValueError(f"{what} = num/den needs 1 <= num, den <= 2^48")


def discrete_gaussian_noise(key: bytes, size: int, sigma2_num: int, sigma2_den: int) -> np.ndarray:
    """``size`` exact discrete Gaussian draws (σ² = sigma2_num/sigma2_den) from the ChaCha20 stream of ``key``."""
    _check_rational(sigma2_num, sigma2_den, "sigma^2")
    rng = ChaCha20Bits(key)
    return np.array([_discrete_gaussian(rng, sigma2_num, sigma2_den) for _ in range(size)], dtype=np.int64)


def discrete_laplace_noise(key: bytes, size: int, scale_num: int, scale_den: int) -> np.ndarray:
    """``size`` exact discrete Laplace draws (scale = scale_num/scale_den) from the ChaCha20 stream of ``key``."""
    _check_rational(scale_num, scale_den, "scale")
    rng = ChaCha20Bits(key)
    return np.array([_discrete_laplace(rng, scale_num, scale_den) for _ in range(size)], dtype=np.int64)


def secure_poisson_slots(key: bytes, total: int, lambda_den: int, lambda_num: int) -> np.ndarray:
    """The slots of {0, ..., total − 1} selected independently with probability 1 − exp(−lambda_num/lambda_den),
    in increasing order: gaps 1 + Y between selections, Y = :func:`_geometric_exp` (twin of the native sampler)."""
    _check_rational(lambda_den, lambda_num, "lambda")
    if total < 0:
        raise ValueError("total must be >= 0")
    rng = ChaCha20Bits(key)
    slots, last = [], -1
    while True:
        y = _geometric_exp(rng, lambda_den, lambda_num)
        if y >= total - last - 1:
            return np.array(slots, dtype=np.int64)
        last += 1 + y
        slots.append(last)


def sigma2_upper_rational(sigma2: float):
    """(num, 2^k): ceil(sigma2·2^k) + 1 over 2^k with the largest k <= 20 keeping num <= 2^48 (the native rule)."""
    if not (math.isfinite(sigma2) and sigma2 > 0):
        raise ValueError("the secure noise variance must be a finite number > 0")
    for k in range(20, -1, -1):
        x = math.ldexp(sigma2, k)
        if x <= float(_SECURE_MAX) - 2.0:
            return int(math.ceil(x)) + 1, 1 << k
    raise ValueError("the secure noise standard deviation exceeds 2^24 grid units; use a coarser grid")


def secure_grid(sigma: float, s: float, inflation: float, D: int):
    """(γ, L, num, den) of one secure DP-SGD step (twin of the native loop's): γ = the largest power of two <=
    inflation·s/√D and L = ⌈s/γ + √D/2⌉ + 1 (γ doubled while L > 2^26 or σ·L > 2^23); σ_g² = num/den >= (σ·L)²."""
    root_d = math.sqrt(D)
    if sigma * (math.floor(0.5 * root_d) + 2) > 8388608.0:  # L >= ⌊√D/2⌋ + 2 on every grid (see the native code)
        raise ValueError("secure mode: noise_multiplier·(⌊√(d+1)/2⌋ + 2) exceeds 2^23 grid units, the discrete "
                         "Gaussian sampler's range; use a smaller noise_multiplier or secure=False")
    e = 1
    if s > 0:
        _, e = math.frexp(inflation * s / root_d)
    e = max(e, -1020)  # γ >= 2^-1021: 1/γ is finite

    def limit_at(ex):
        return math.ceil(math.ldexp(s, 1 - ex) + 0.5 * root_d) + 1

    while limit_at(e) > 2**26 or sigma * limit_at(e) > 8388608.0:
        e += 1
    limit = limit_at(e)
    sd = sigma * float(limit)
    return (math.ldexp(1.0, e - 1), limit, *sigma2_upper_rational(sd * sd))


def secure_row_units(V, coef, gamma, limit):
    """The secure loop's per-row grid vectors: K = rint(coef_i·V_i/γ) (V: (m, D) rows [x_i − μ, 1]), and which rows
    pass |K_ij| <= L and Σ_j K_ij² <= L² exactly (a failing row retries at coef_i·(1 − 2^-20), then adds nothing).
    Returns the (D,) int64 sum of the passing rows' K_i."""
    coef = np.asarray(coef, dtype=np.float64)
    units = np.zeros(V.shape[1], dtype=np.int64)
    todo = coef != 0.0
    for c in (coef, coef * (1.0 - 2.0**-20)):
        if not todo.any():
            break
        with np.errstate(over="ignore", invalid="ignore"):
            Q = np.rint(c[todo, None] * V[todo] / gamma)
        within = np.all(np.abs(Q) <= limit, axis=1)  # NaN fails
        Q = np.where(within[:, None], Q, 0.0)
        # integers of magnitude <= L <= 2^26: squares and partial sums up to 2^53 are exact in float64, in any order,
        # and a partial sum above L² stays above it (the native test's argument)
        ok = within & (np.einsum("ij,ij->i", Q, Q) <= float(limit) ** 2)
        K = Q.astype(np.int64)
        units += K[ok].sum(axis=0, dtype=np.int64)
        todo[np.flatnonzero(todo)[ok]] = False
    return units


def secure_release(rng: ChaCha20Bits, gamma: float, num: int, den: int, units):
    """γ·(k_j + Z_j), k_j = units_j clamped to ±2^52, Z_j ~ N_Z(0, num/den) (twin of the native release)."""
    k = np.clip(units, -(2**52), 2**52)
    return np.array([float(int(kj) + _discrete_gaussian(rng, num, den)) * gamma for kj in k])


# -- contingency_g2 (PC / PrivPC conditional-independence tests) ----------------------------------------------------
def g2_from_table(N):
    """2 Σ N ln(N N_z / (N_za N_zb)) over the cells N > 0 of a (Z, B, A) table (0 ln 0 = 0)."""
    N = np.asarray(N, dtype=np.float64)
    Nz = N.sum(axis=(1, 2))[:, None, None]
    Na = N.sum(axis=1)[:, None, :]
    Nb = N.sum(axis=2)[:, :, None]
    mask = N > 0
    ratio = np.where(mask, N * Nz / np.where(mask, Na * Nb, 1.0), 1.0)
    return float(2.0 * np.sum(np.where(mask, N * np.log(ratio), 0.0)))


def contingency_table(codes_t, n_categories, i, j, cond):
    """Counts N[z, b, a] of (k-code z, x_j = b, x_i = a); codes_t is the (p, n) transposed data."""
    n = codes_t.shape[1]
    key = np.zeros(n, dtype=np.int64)
    nz = 1
    for k in cond:
        key = key * n_categories[k] + codes_t[k]
        nz *= int(n_categories[k])
    ri, rj = int(n_categories[i]), int(n_categories[j])
    key = (key * rj + codes_t[j]) * ri + codes_t[i]
    return np.bincount(key, minlength=nz * rj * ri).reshape(nz, rj, ri)


def contingency_g2(codes_t, n_categories, tests, max_cells):
    out = np.empty(tests.shape[0])
    for t, row in enumerate(tests):
        i, j = int(row[0]), int(row[1])
        cond = [int(k) for k in row[2:] if k >= 0]
        out[t] = g2_from_table(contingency_table(codes_t, n_categories, i, j, cond))
    return out
# -- scipy.sparse (CSR) twins ---------------------------------------------------------------------------------------
# kernels.py hands these a canonical float32/float64 CSR matrix; they compute with scipy.sparse products and never
# form a dense n × d (or batch × d) matrix. dpsgd_epochs and logistic_newton above work unchanged on CSR input:
# the first through clip_group_gradients, the second through products that scipy.sparse implements.


def _is_csr(X) -> bool:
    return not isinstance(X, np.ndarray) and getattr(X, "format", None) == "csr"


def _row_scaled(X, s):
    """diag(s) @ X for a CSR X (each row i times s_i), as CSR."""
    out = X.astype(np.float64, copy=True)
    out.data *= np.repeat(np.asarray(s, dtype=np.float64), np.diff(out.indptr))
    return out


def _weighted_gram(X, c):
    """Σ_i c_i x_i x_iᵀ as a dense (d, d) array (X dense or CSR)."""
    if _is_csr(X):
        return np.asarray((X.T @ _row_scaled(X, c)).toarray())
    return (X * c[:, None]).T @ X


def _group_indicator(groups, n_groups):
    """The (n_groups, n) 0/1 matrix with a 1 at (groups[i], i), as CSR (needs scipy, like any sparse input)."""
    import scipy.sparse as sp

    n = groups.shape[0]
    return sp.csr_matrix((np.ones(n), (groups, np.arange(n))), shape=(n_groups, n))


def poly2_coefficients_csr(X, a, c, groups, n_groups):
    """poly2_coefficients of a CSR X: b = Xᵀa, Q = Xᵀ diag(c) X (symmetrized), group sums by an indicator product."""
    d = X.shape[1]
    b = np.asarray(X.T @ a, dtype=np.float64)
    Q = _weighted_gram(X, c)
    Q = 0.5 * (Q + Q.T)
    if groups is None:
        return b, Q, np.zeros((0, d)), np.zeros(0, dtype=np.int64)
    group_sums = np.asarray((_group_indicator(groups, n_groups) @ X.astype(np.float64)).toarray())
    group_counts = np.bincount(groups, minlength=n_groups).astype(np.int64)
    return b, Q, group_sums, group_counts


def clip_group_gradients_csr(X, y, w, bias, rows, groups, clip, threshold, l2):
    """clip_group_gradients of a CSR X, from the batch's rows as a CSR matrix B (m × d).

    r = σ(Bw + bias) − y_B; G = diag(r) B (sparse); the gradient of row t is [G_t + l2·w, r_t], so
    ‖g_t‖² = r_t² + Σ_{j in row t} (G_tj + l2·w_j)² + l2²·(‖w‖² − Σ_{j in row t} w_j²), the last difference rounded
    up by (d + 2)·ε_mach·‖w‖² as in the native kernel (it cancels when w sits on the row's columns), and the clipped
    sum of group k is Σ_t s_t [G_t, r_t] + (Σ_t s_t)·[l2·w, 0] over its rows (s_t the clip factor).
    """
    n_groups = clip.shape[0]
    d = X.shape[1]
    B = X[rows].astype(np.float64)
    gb = groups[rows]
    z = np.asarray(B @ w) + bias
    resid = 0.5 * (1.0 + np.tanh(0.5 * z)) - y[rows]
    G = _row_scaled(B, resid)
    if l2 == 0.0:
        sq = resid**2 + np.asarray(G.multiply(G).sum(axis=1)).ravel()
    else:
        row_of = np.repeat(np.arange(B.shape[0]), np.diff(B.indptr))
        w_nz = w[B.indices]
        on_row = np.bincount(row_of, weights=(G.data + l2 * w_nz) ** 2, minlength=B.shape[0])
        ww = float(w @ w)
        off_row = np.maximum(ww - np.bincount(row_of, weights=w_nz**2, minlength=B.shape[0]), 0.0)
        sq = resid**2 + on_row + l2**2 * (off_row + (d + 2) * np.finfo(np.float64).eps * ww)
    norms = np.sqrt(np.maximum(sq, 0.0))
    bound = clip[gb]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = np.where(norms > bound, bound / norms, 1.0)
    left_out = ~(norms <= bound) & ~np.isfinite(norms)  # as in clip_group_gradients
    if np.any(left_out):
        scale = np.where(left_out, 0.0, scale)
        resid = np.where(left_out, 0.0, resid)
        G = _row_scaled(B, resid)
    indicator = _group_indicator(gb, n_groups)
    sums = np.empty((n_groups, d + 1))
    sums[:, :d] = np.asarray((indicator @ _row_scaled(G, scale)).toarray())
    sums[:, :d] += np.outer(indicator @ scale, l2 * w)
    sums[:, d] = indicator @ (resid * scale)
    limit = bound if threshold is None else threshold
    above = norms > limit
    n_above = np.bincount(gb[above], minlength=n_groups).astype(np.int64)
    n_below = np.bincount(gb[~above], minlength=n_groups).astype(np.int64)
    return sums, n_above, n_below


def csr_in_domain(X, lower, upper, groups, l1_cap, l2_cap, pair_sums=None):
    """kernels.csr_in_domain on a canonical CSR X, in chunks of stored values (temporaries ~10 MB, not nnz-sized)."""
    n, d = X.shape
    if n == 0:
        return True
    _require_no_duplicates(X)
    cols, vals = X.indices, X.data
    chunk = 1 << 20
    with np.errstate(invalid="ignore"):  # NaN fails every comparison, as it should
        for k in range(0, vals.size, chunk):
            c, v = cols[k:k + chunk], vals[k:k + chunk]
            if not (np.all(v >= lower[c]) and np.all(v <= upper[c])):
                return False
        has_zero = np.bincount(cols, minlength=d) < n  # some row stores nothing (an implicit zero) in the column
        if np.any(has_zero & ((lower > 0.0) | (upper < 0.0))):
            return False
        if groups and not _csr_groups_one_hot(X, groups, pair_sums):
            return False
        if np.isfinite(l1_cap) or np.isfinite(l2_cap):
            rows = np.repeat(np.arange(n), np.diff(X.indptr))
            l1 = np.bincount(rows, weights=np.abs(vals), minlength=n)
            l2 = np.sqrt(np.bincount(rows, weights=np.square(vals), minlength=n))
            if np.any(l1 > l1_cap) or np.any(l2 > l2_cap):
                return False
    return True


def _require_no_duplicates(X):
    """The native check: no column twice in a row (scipy's cached canonical flag can be stale after an in-place edit
    of X.indices); each stored value is tested alone, and two in one cell would pass where their sum may not."""
    rows = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr))
    keys = rows * X.shape[1] + X.indices
    if keys.size and not np.all(np.diff(keys) > 0) and np.unique(keys).size != keys.size:
        raise ValueError("X has duplicate entries (a column twice in a row); call X.sum_duplicates() first")


def _csr_groups_one_hot(X, groups, pair_sums):
    """The one-hot groups' columns of CSR X store only 0/1, at most one 1 per group and row (from pair_sums, a
    positive multiple of XᵀX, when given: a sum of non-negative 0/1 products is 0 iff every product is)."""
    n, d = X.shape
    group_of = np.full(d, -1, dtype=np.int64)
    for k, g in enumerate(groups):
        group_of[g] = k
    in_group = group_of >= 0
    cols, vals = X.indices, X.data
    chunk = 1 << 20
    for k in range(0, vals.size, chunk):
        v = vals[k:k + chunk][in_group[cols[k:k + chunk]]]
        if not np.all((v == 0.0) | (v == 1.0)):
            return False
    if pair_sums is not None:
        from .domain import _pair_sums_break_groups  # lazily: domain's sparse path calls this module

        return not _pair_sums_break_groups(groups, pair_sums)
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    keep = in_group[cols] & (vals != 0.0)
    key = rows[keep] * len(groups) + group_of[cols[keep]]
    return not (key.size and np.bincount(key).max() > 1)


def constrained_sgd_epochs(X, y, groups, events, active, batch_rows, batch_offsets, learning_rates, grad_noise,
                           hist_noise, config, avg_start, step_index, avg_count, params, lambdas, hist, avg):
    """Fairness-constrained DP-SGD steps (proxy Lagrangian), step by step as in cpp/src/constrained_sgd.cpp.

    X dense or scipy.sparse CSR (only each batch's rows are densified); ``config`` holds the scalar settings
    (noise_multiplier, hist_noise_multiplier, clip, expected_batch_size, l2, dual_learning_rate, bound,
    temperature, ema, count_floor) and the optional ``center`` μ (each batch row read as x_i − μ). Returns
    (params, lambdas, hist, avg, avg_count, step_index); see kernels.constrained_sgd_epochs.
    """
    sparse_x = hasattr(X, "tocsr") and not isinstance(X, np.ndarray)
    X = X.tocsr() if sparse_x else np.asarray(X, dtype=np.float64)
    c = config
    noise_multiplier, hist_noise_multiplier, clip = c["noise_multiplier"], c["hist_noise_multiplier"], c["clip"]
    expected_batch_size, l2, dual_learning_rate = c["expected_batch_size"], c["l2"], c["dual_learning_rate"]
    bound, temperature, ema, count_floor = c["bound"], c["temperature"], c["ema"], c["count_floor"]
    params, lambdas, hist, avg = params.copy(), lambdas.copy(), hist.copy(), avg.copy()
    K, E = hist.shape[0], hist.shape[1]
    d = X.shape[1]
    active = np.asarray(active) != 0
    for t in range(learning_rates.shape[0]):
        B = batch_rows[batch_offsets[t]:batch_offsets[t + 1]]
        xb = X[B].toarray().astype(np.float64) if sparse_x else X[B]
        if c.get("center") is not None:
            xb = xb - c["center"]
        z = xb @ params[:d] + params[d]
        counts = np.zeros((K, E, 2))
        np.add.at(counts, (groups[B], events[B], (z > 0).astype(np.int64)), 1.0)
        hist = (1.0 - ema) * hist + ema * (counts + hist_noise_multiplier * hist_noise[t].reshape(K, E, 2))
        s = step_index + t
        h = hist / (1.0 - (1.0 - ema) ** (s + 1))
        nke = np.maximum(count_floor, h[:, :, 0] + h[:, :, 1])
        mke = np.minimum(nke, np.maximum(0.0, h[:, :, 1]))
        ne, me = nke.sum(axis=0), mke.sum(axis=0)
        viol = mke / nke - me / ne
        lp, lm = lambdas[0], lambdas[1]
        lp[:, active] = np.maximum(0.0, lp[:, active] + dual_learning_rate * (viol[:, active] - bound))
        lm[:, active] = np.maximum(0.0, lm[:, active] + dual_learning_rate * (-viol[:, active] - bound))
        mu = lp - lm
        coef = np.where(active[None, :], mu - (mu * nke).sum(axis=0) / ne, 0.0)
        st = _sigmoid(z / temperature)
        a = _sigmoid(z) - y[B] + coef[groups[B], events[B]] * st * (1.0 - st) / temperature
        norm = np.abs(a) * np.sqrt(1.0 + np.einsum("ij,ij->i", xb, xb))
        # !(norm <= C): a NaN coefficient (x·w overflowed to inf − inf) would pass norm > C unclipped; it gives 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            clipped = np.where(np.isfinite(norm), a * (clip / np.where(norm > 0, norm, 1.0)), 0.0)
        a = np.where(norm <= clip, a, clipped)
        total = np.append(a @ xb, a.sum())
        std = noise_multiplier * clip if noise_multiplier > 0 else 0.0
        step = (total + std * grad_noise[t]) / expected_batch_size
        step[:d] += l2 * params[:d]
        params = params - learning_rates[t] * step
        if s >= avg_start:
            avg_count += 1
            avg += (params - avg) / avg_count
    return params, lambdas, hist, avg, avg_count, step_index + learning_rates.shape[0]


def pld_connect_the_dots(u, gp, gq):
    """Twin of ``kernels.pld_connect_the_dots`` (u = e^ε): (pmf, p_inf) of the connect-the-dots discretisation."""
    gp = np.minimum.accumulate(np.clip(gp, 0.0, 1.0))
    gq = np.minimum.accumulate(np.clip(gq, 0.0, 1.0))
    p_b = gp[:-1] - gp[1:]
    q_b = gq[:-1] - gq[1:]
    du = u[1:] - u[:-1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = (p_b - u[:-1] * q_b) / du  # Q-mass moved to the upper end of each bucket
    a = np.clip(np.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0), 0.0, q_b)
    with np.errstate(invalid="ignore"):
        upper = u[1:] * a
    lower = np.maximum(p_b - upper, 0.0)  # = u_{k−1} (Q(B) − a) up to rounding; >= 0 as a <= (P(B) − u_{k−1}Q(B))/du
    no_q = q_b <= 0  # a bucket with P-mass but no Q-mass left (underflow) keeps its P-mass at the upper end
    upper = np.where(no_q, p_b, upper)
    lower = np.where(no_q, 0.0, lower)
    pmf = np.zeros(u.shape[0])
    pmf[1:] += upper
    pmf[:-1] += lower
    pmf[0] += 1.0 - gp[0]  # P(L <= ε_0): rounded up to the bottom grid point
    return pmf, float(gp[-1])  # P(L > ε_{m−1}): moved to +∞


_PLD_MAX_EXP = 700.0  # below log(DBL_MAX) ≈ 709.78, with room for the products it multiplies


def pld_epsilon_for_delta(pmf, offset, h, p_inf, delta):
    """Twin of ``kernels.pld_epsilon_for_delta``: exact for the discrete PLD, as δ(ε) is piecewise of the form
    A − e^ε B between grid losses."""
    if p_inf > delta:
        return math.inf
    eps = (float(offset) + np.arange(pmf.shape[0], dtype=np.float64)) * h  # as natively: no int64 wrap near 2^63
    keep = eps > 0
    eps, p = eps[keep], pmf[keep]
    if eps.size == 0:
        return 0.0
    # S1[k] = Σ_{j>=k} p_j, S2[k] = Σ_{j>=k} p_j e^{−ε_j}; for ε in [ε_{k−1}, ε_k): δ(ε) = p_inf + S1[k] − e^ε S2[k]
    s1 = np.cumsum(p[::-1])[::-1]
    s2 = np.cumsum((p * np.exp(-eps))[::-1])[::-1]
    # δ at ε = ε_k (only j > k contribute)
    s1n = np.append(s1[1:], 0.0)
    s2n = np.append(s2[1:], 0.0)
    # e^ε overflows past ε ≈ 709.78: there δ(ε_k) is not computable this way, and an overflowed term would make a
    # grid point look admissible (ε was capped at 709.78 whatever its true value). Such a point is never taken:
    # if no computable one meets delta, ε is reported as inf (an upper bound; no privacy is left there anyway).
    computable = eps < _PLD_MAX_EXP
    with np.errstate(over="ignore", invalid="ignore"):
        delta_at = p_inf + s1n - np.exp(np.minimum(eps, _PLD_MAX_EXP)) * s2n
    if p_inf + s1[0] - s2[0] <= delta:  # δ(0) <= target
        return 0.0
    admissible = computable & (delta_at <= delta)
    if not np.any(admissible) and not np.all(computable):
        return math.inf
    k = int(np.argmax(admissible)) if np.any(admissible) else eps.size - 1
    # ε lies in [ε_{k−1}, ε_k] (ε_{−1} := 0); solve p_inf + S1[k] − e^ε S2[k] = delta there
    num = p_inf + s1[k] - delta
    if s2[k] <= 0 or num <= 0:
        return float(eps[k])
    val = math.log(num / s2[k])
    lo = float(eps[k - 1]) if k > 0 else 0.0
    return float(min(max(val, lo), eps[k]))
