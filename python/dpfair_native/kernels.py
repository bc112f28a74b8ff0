"""The compute kernels, one typed function each, with ``backend="native" | "numpy"``.

``native`` runs the C++ extension ``dpfair_native._core`` (GIL released, threads over rows), or its AVX2/FMA build
``_core_avx2`` when the CPU supports it (see :func:`native_isa`); ``numpy`` runs the
pure-NumPy twin in :mod:`dpfair_native._reference`. Both get the same validated inputs and return the same
results (to float summation order). Inputs are never modified.
"""

from __future__ import annotations

import importlib
import math
import os
from typing import Literal, NamedTuple, Optional, Tuple

import numpy as np

from . import _reference
from ._reference import QuadraticSolution

Backend = Literal["native", "numpy"]

__all__ = [
    "QuadraticSolution",
    "poly2_coefficients",
    "minimize_quadratic",
    "clip_group_gradients",
    "native_available",
    "native_isa",
]


_ISA_ENV = "DPFAIR_NATIVE_ISA"
_ISA_MODULES = {"baseline": "_core", "avx2": "_core_avx2"}
_loaded_native: dict = {}  # value of DPFAIR_NATIVE_ISA -> chosen extension module


def _import_native(isa: str):
    try:
        return importlib.import_module(f".{_ISA_MODULES[isa]}", __package__)
    except ImportError as exc:
        raise ImportError(
            f"dpfair_native.{_ISA_MODULES[isa]} is not built; reinstall with `pip install .` or pass backend='numpy'"
        ) from exc


def _select_native(requested: str):
    """The extension module for DPFAIR_NATIVE_ISA = requested ('' = automatic).

    Automatic: ``_core_avx2`` (AVX2 + FMA build) when the baseline module's CPU probe says this CPU and OS support
    both, else ``_core`` (portable build). The AVX2 module is never imported on a CPU without AVX2: its code could
    fault with an illegal instruction.
    """
    if requested not in ("", "baseline", "avx2"):
        raise ValueError(f"{_ISA_ENV} must be 'baseline', 'avx2' or unset, got {requested!r}")
    baseline = _import_native("baseline")
    if requested == "baseline":
        return baseline
    if not baseline.cpu_supports_avx2_fma():
        if requested == "avx2":
            raise ValueError(f"{_ISA_ENV}=avx2 but this CPU does not support AVX2 and FMA; unset it or use 'baseline'")
        return baseline
    try:
        return _import_native("avx2")
    except ImportError:
        if requested == "avx2":
            raise
        return baseline  # built without the AVX2 module (non-x86 compiler, or flags rejected)


def _native():
    """The extension module in use (chosen once per value of the DPFAIR_NATIVE_ISA environment variable)."""
    requested = os.environ.get(_ISA_ENV, "")
    module = _loaded_native.get(requested)
    if module is None:
        module = _loaded_native[requested] = _select_native(requested)
    return module


def native_available() -> bool:
    """True when the compiled extension imports."""
    try:
        _native()
    except ImportError:
        return False
    return True


def native_isa() -> str:
    """Instruction set of the extension module in use: 'baseline' (portable) or 'avx2' (AVX2 + FMA).

    Chosen at first use from the CPU; the environment variable DPFAIR_NATIVE_ISA=baseline|avx2 forces one.
    """
    return _native().isa


def _check_backend(backend: str) -> str:
    if backend not in ("native", "numpy"):
        raise ValueError(f"backend must be 'native' or 'numpy', got {backend!r}")
    return backend


def _threads(n_threads: Optional[int]) -> int:
    if n_threads is None:
        return os.cpu_count() or 1
    if (isinstance(n_threads, (bool, np.bool_)) or not isinstance(n_threads, (int, np.integer))
            or not 1 <= n_threads < 2**31):  # the bindings take a C int
        raise ValueError(f"n_threads must be a positive integer below 2**31 or None, got {n_threads!r}")
    return int(n_threads)


def _busy_threads(threads: int, X, width: int) -> int:
    """How many of ``threads`` a kernel may start on X with ``width``-wide rows, so that a memory check counts only
    their accumulators: dense, at least 50,000 multiply-adds each (the native ``threads_for`` of poly2 and
    logistic_newton); CSR, whose rule counts pairs of non-zeros, all of them (conservative)."""
    if _is_csr(X):
        return threads
    return max(1, min(threads, X.shape[0] * width // 50_000))


def _float_matrix(X, name: str) -> np.ndarray:
    """A 2-D float32/float64 view of X (other real dtypes are converted to float64; no copy otherwise)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_features), got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must have a real numeric dtype, got {X.dtype}")
        X = X.astype(np.float64)
    return X


def _float_vector(v, n: int, name: str) -> np.ndarray:
    """A float64 vector of length n; a scalar is broadcast."""
    v = np.asarray(v)
    if v.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numeric, got dtype {v.dtype}")
    v = v.astype(np.float64, copy=False)
    if v.ndim == 0:
        return np.full(n, float(v))
    if v.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match X, got {v.shape}")
    return v


def _physical_memory_bytes() -> Optional[int]:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not available on this platform
        return None


def _square_fits(d: int, copies: int) -> bool:
    """Whether a d x d float64 working set of `copies` matrices fits in physical memory (True when unknown)."""
    have = _physical_memory_bytes()
    return have is None or 8 * d * d * copies <= have


def _check_square_fits(d: int, copies: int, name: str) -> None:
    """Refuse, before allocating, a d x d float64 working set (`copies` matrices) larger than physical memory."""
    need = 8 * d * d * copies
    have = _physical_memory_bytes()
    if not _square_fits(d, copies):
        raise ValueError(
            f"{name} has {d} features: the {d}x{d} coefficient matrices need {need / 2**30:.3g} GiB, more than this "
            f"machine's {have / 2**30:.3g} GiB of memory; reduce the number of features "
            "(e.g. hashing or PCA on public data)"
        )


def _all_finite(arr: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those values first")


def _index_vector(v, n: int, name: str) -> np.ndarray:
    v = np.asarray(v)
    if v.dtype.kind not in "iub":
        raise TypeError(f"{name} must be an integer array, got dtype {v.dtype}")
    v = v.astype(np.int64, copy=False)
    if v.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {v.shape}")
    return v


def poly2_coefficients(
    X,
    a,
    c,
    *,
    groups=None,
    n_groups: Optional[int] = None,
    one_hot_groups=None,
    n_threads: Optional[int] = None,
    backend: Backend = "native",
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients of a degree-2 polynomial in w summed over rows, in one pass over X.

    Returns ``(b, Q, group_sums, group_counts)`` with
    ``b = Σ_i a_i x_i`` (d,), ``Q = Σ_i c_i x_i x_iᵀ`` (d, d, symmetric),
    ``group_sums[k] = Σ_{groups_i = k} x_i`` (n_groups, d) and ``group_counts[k]`` (n_groups,), int64.
    Without ``groups`` the last two have zero rows.

    X: (n, d) float32 or float64, any order/strides (accumulated in float64; other real dtypes are
    converted). a, c: (n,) row weights or scalars. groups: (n,) integers in [0, n_groups);
    n_groups defaults to max(groups) + 1.
    Example: the degree-2 Taylor expansion of the logistic loss uses a_i = ½ − y_i, c_i = ⅛; one Newton step of
    exact logistic regression uses c_i = p_i(1 − p_i).

    one_hot_groups (optional; a sequence of disjoint column-index sequences, e.g. a FeatureDomain's one-hot
    groups) is a speed hint for CSR X with one weight c for every row (the Taylor terms): in a group where nearly
    every row holds exactly one value 1.0, the native pass leaves the group's most frequent column out of the
    pairs and recovers its sums from the others (x_ref = 1 − Σ of the group's other columns, row by row), about
    half the work on one-hot encoded rows. The result is the same Q up to rounding whether or not the rows conform
    (rows that do not are summed as they are). Ignored for dense X, for per-row weights c and by the NumPy twin.
    """
    _check_backend(backend)
    X = _float_matrix_or_csr(X, "X")
    n, d = X.shape
    one_hot_of = None if one_hot_groups is None else _column_groups(one_hot_groups, d)
    threads = _threads(n_threads)
    _check_square_fits(d, _busy_threads(threads, X, d) + 1, "X")  # a d×d accumulator per thread, and Q
    if one_hot_of is not None and not (_is_csr(X) and _square_fits(d, 2 * threads + 3)):
        one_hot_of = None  # the basis also needs (d+1)² per thread and two for the change of basis: a hint, dropped
    a = _float_vector(a, n, "a")
    c = _float_vector(c, n, "c")
    _all_finite(a, "a")
    _all_finite(c, "c")
    if groups is not None:
        groups = _index_vector(groups, n, "groups")
        if n and groups.min() < 0:
            raise ValueError("groups must be non-negative integers (0 .. n_groups-1)")
        top = int(groups.max()) + 1 if n else 0
        if n_groups is None:
            n_groups = top
        elif n_groups < top:
            raise ValueError(f"groups contains label {top - 1} but n_groups={n_groups}; pass n_groups >= {top}")
        n_groups = int(n_groups)
    elif n_groups is not None:
        raise ValueError("n_groups is given but groups is None; pass groups too")
    if backend == "numpy":
        _twin_input(X)
        return _reference.poly2_coefficients(X, a, c, groups, n_groups)
    if _is_csr(X):
        n_one_hot = 0 if one_hot_of is None else int(one_hot_of.max(initial=-1)) + 1
        return _native().poly2_coefficients_csr(*_csr_arrays(X), a, c, groups, n_groups, threads, one_hot_of,
                                                n_one_hot)
    return _native().poly2_coefficients(X, a, c, groups, n_groups, threads)


def _column_groups(groups, d: int) -> np.ndarray:
    """Disjoint column groups (sequences of indices in 0 .. d-1) -> group_of (d,) int64: group k, or -1."""
    group_of = np.full(d, -1, dtype=np.int64)
    for k, g in enumerate(groups):
        g = np.asarray(g, dtype=np.int64).ravel()
        if g.size and (g.min() < 0 or g.max() >= d or np.any(group_of[g] >= 0) or np.unique(g).size < g.size):
            raise ValueError("groups must be disjoint sequences of column indices in 0 .. n_features-1")
        group_of[g] = k
    return group_of


_PSD_REPAIRS = ("trim", "ridge", "shift")
_SOLVERS = ("newton", "cg")


def minimize_quadratic(
    Q,
    b,
    *,
    ridge: float = 0.0,
    psd: Literal["trim", "ridge", "shift"] = "trim",
    floor: float = 1e-8,
    solver: Literal["newton", "cg"] = "newton",
    constraint=None,
    tol: float = 1e-10,
    max_iter: Optional[int] = None,
    backend: Backend = "native",
) -> QuadraticSolution:
    """Minimize ``f(w) = wᵀ H w + bᵀw`` where ``H = repair(Q) + ridge·I``, Q symmetric and possibly indefinite.

    psd: how an indefinite (noisy) Q is made positive definite before solving —
      ``"trim"``  drop eigen-directions with eigenvalue < floor and minimize in the span of the rest;
      ``"shift"`` add ``max(0, floor − λ_min)`` to the diagonal;
      ``"ridge"`` rely on ``ridge`` alone (ValueError if ``λ_min + ridge < floor``).
    solver: ``"newton"`` (direct: Cholesky/LDLT or eigendecomposition; exact for a quadratic) or ``"cg"``
    (Jacobi-preconditioned conjugate gradients to relative residual ``tol``; λ_min by Lanczos; not with "trim").
    constraint: optional ``(a, tau)``: the solution satisfies ``|aᵀw| <= tau`` (tau >= 0), exactly — the
    minimizer on the hyperplane ``aᵀw = ±tau`` when the unconstrained one violates it.
    """
    _check_backend(backend)
    Q = np.asarray(Q)
    if Q.dtype.kind not in "biuf":
        raise TypeError(f"Q must have a real numeric dtype, got {Q.dtype}")
    Q = Q.astype(np.float64, copy=False)
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise ValueError(f"Q must be a square 2-D array, got shape {Q.shape}")
    d = Q.shape[0]
    b = _float_vector(b, d, "b")
    _all_finite(Q, "Q")
    _all_finite(b, "b")
    scale = max(1.0, float(np.max(np.abs(Q)))) if d else 1.0
    if not np.allclose(Q, Q.T, rtol=1e-10, atol=1e-12 * scale):
        raise ValueError("Q must be symmetric; pass (Q + Q.T) / 2")
    if psd not in _PSD_REPAIRS:
        raise ValueError(f"psd must be one of {_PSD_REPAIRS}, got {psd!r}")
    if solver not in _SOLVERS:
        raise ValueError(f"solver must be one of {_SOLVERS}, got {solver!r}")
    if solver == "cg" and psd == "trim":
        raise ValueError("psd='trim' needs the eigendecomposition; use solver='newton', or psd='shift'/'ridge' with cg")
    for name, value in (("ridge", ridge), ("floor", floor), ("tol", tol)):
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    if max_iter is None:
        max_iter = max(10 * d, 100)
    if max_iter < 1:
        raise ValueError(f"max_iter must be >= 1, got {max_iter!r}")
    if constraint is not None:
        try:
            avec, tau = constraint
        except (TypeError, ValueError):
            raise ValueError("constraint must be a pair (a, tau) meaning |a^T w| <= tau") from None
        avec = _float_vector(avec, d, "constraint vector a")
        _all_finite(avec, "constraint vector a")
        tau = float(tau)
        if not np.isfinite(tau) or tau < 0:
            raise ValueError(f"constraint tau must be a finite number >= 0, got {tau!r}")
        if not np.any(avec):
            raise ValueError("constraint vector a is all zeros; drop the constraint instead")
        constraint = (avec, tau)
    if backend == "numpy":
        return _reference.minimize_quadratic(Q, b, float(ridge), psd, float(floor), solver, constraint, float(tol),
                                             int(max_iter))
    avec, tau = constraint if constraint is not None else (None, None)
    r = _native().minimize_quadratic(Q, b, float(ridge), psd, float(floor), solver, avec, tau, float(tol),
                                     int(max_iter))
    # The bound struct _core.QuadraticSolution has the same read-only fields; copied into the NumPy twin's frozen
    # dataclass because fitted estimators keep it and must pickle (the bound type has no pickle support yet).
    return QuadraticSolution(
        w=np.array(r.w), n_trimmed=r.n_trimmed, shift=r.shift, lambda_min=r.lambda_min, iterations=r.iterations,
        converged=r.converged, constraint_active=r.constraint_active, multiplier=r.multiplier,
    )


def clip_group_gradients(
    X,
    y,
    w,
    bias: float,
    rows,
    groups,
    clip,
    *,
    threshold: Optional[float] = None,
    l2: float = 0.0,
    n_threads: Optional[int] = None,
    backend: Backend = "native",
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-group sums of per-example logistic-loss gradients, each L2-clipped to its group's bound.

    For each i in ``rows`` (a row may repeat), with z = x_iᵀw + bias and y_i in {0, 1}:
    ``g_i = (σ(z) − y_i)·[x_i, 1] + l2·[w, 0]`` (gradient w.r.t. (w, bias), length d + 1),
    ``ḡ_i = g_i · min(1, clip[k]/‖g_i‖₂)`` with k = groups[i] (ḡ_i = 0 when ‖g_i‖ is neither finite nor <= clip[k]:
    a NaN from a score x·w that overflowed to inf − inf would otherwise be summed unclipped).
    Returns ``(sums, n_above, n_below)``: ``sums[k] = Σ ḡ_i`` over the batch rows of group k, shape
    (n_groups, d + 1), with n_groups = len(clip); ``n_above[k]``/``n_below[k]`` count batch rows of group k whose
    unclipped norm is > / <= ``threshold`` (None: the row's own clip bound). No (batch, d) gradient matrix is formed.
    On CSR X with l2 > 0 the norm's part off the row's columns, l2²(‖w‖² − Σ_row w_j²), is rounded up by its error
    bound (d + 2)·ε_mach·l2²‖w‖², so a row can count as above where the dense layout counts it below.
    """
    _check_backend(backend)
    X = _float_matrix_or_csr(X, "X")
    n, d = X.shape
    y = _float_vector(y, n, "y")
    _all_finite(y, "y")
    w = _float_vector(w, d, "w")
    _all_finite(w, "w")
    bias = float(bias)
    if not np.isfinite(bias):
        raise ValueError("bias must be finite")
    rows = np.asarray(rows)
    if rows.ndim != 1 or rows.dtype.kind not in "iu":
        raise ValueError("rows must be a 1-D integer array of row indices into X")
    rows = rows.astype(np.int64, copy=False)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise ValueError(f"rows must index X's {n} rows (0 .. {n - 1})")
    groups = _index_vector(groups, n, "groups")
    clip = np.asarray(clip, dtype=np.float64)
    if clip.ndim != 1 or clip.size == 0:
        raise ValueError("clip must be a non-empty 1-D array with one bound per group")
    if np.any(np.isnan(clip)) or np.any(clip <= 0):
        raise ValueError("clip bounds must be > 0 (use np.inf for no clipping)")
    if n and (groups.min() < 0 or groups.max() >= clip.size):
        raise ValueError(f"groups must lie in 0 .. {clip.size - 1} (one clip bound per group)")
    if threshold is not None:
        threshold = float(threshold)
        if np.isnan(threshold):
            raise ValueError("threshold must be a number or None")
    l2 = float(l2)
    if not np.isfinite(l2) or l2 < 0:
        raise ValueError(f"l2 must be a finite number >= 0, got {l2!r}")
    threads = _threads(n_threads)
    if backend == "numpy":
        if _is_csr(X):
            _check_sparse_structure(X, "X")
        _all_finite(_values(X[rows]), "X")
        return _reference.clip_group_gradients(X, y, w, bias, rows, groups, clip, threshold, l2)
    if _is_csr(X):
        return _native().clip_group_gradients_csr(*_csr_arrays(X), y, w, bias, rows, groups, clip, threshold, l2,
                                                  threads)
    return _native().clip_group_gradients(X, y, w, bias, rows, groups, clip, threshold, l2, threads)


_SGD_RULES = ("fixed", "dpsgdf", "naive")  # the native ClipRule / NoiseRule enums have these member names
_SGD_NOISE = ("shared", "per_group")


def _step_schedule(learning_rates, batch_rows, batch_offsets, n: int):
    """The per-step inputs of the SGD loops, checked: (rates (T,), rows, offsets (T+1,), T); batch t is
    ``rows[offsets[t]:offsets[t+1]]``, every row an index into X's ``n`` rows."""
    learning_rates = np.asarray(learning_rates, dtype=np.float64)
    if learning_rates.ndim != 1:
        raise ValueError("learning_rates must be 1-D, one rate per step")
    _all_finite(learning_rates, "learning_rates")
    T = learning_rates.shape[0]
    batch_rows = np.asarray(batch_rows)
    if batch_rows.ndim != 1 or (batch_rows.size and batch_rows.dtype.kind not in "iu"):
        raise ValueError("batch_rows must be a 1-D integer array of row indices into X")
    batch_rows = batch_rows.astype(np.int64, copy=False)
    if batch_rows.size and (batch_rows.min() < 0 or batch_rows.max() >= n):
        raise ValueError(f"batch_rows must index X's {n} rows (0 .. {n - 1})")
    batch_offsets = np.asarray(batch_offsets)
    if batch_offsets.shape != (T + 1,) or batch_offsets.dtype.kind not in "iu":
        raise ValueError(f"batch_offsets must be T+1 = {T + 1} integers (batch t is rows[offsets[t]:offsets[t+1]])")
    batch_offsets = batch_offsets.astype(np.int64, copy=False)
    if np.any(np.diff(batch_offsets) < 0) or batch_offsets[0] < 0 or batch_offsets[-1] > batch_rows.size:
        raise ValueError("batch_offsets must be non-decreasing and lie in 0 .. len(batch_rows)")
    return learning_rates, batch_rows, batch_offsets, T


def dpsgd_epochs(
    X,
    y,
    params,
    batch_rows,
    batch_offsets,
    learning_rates,
    grad_noise,
    *,
    groups=None,
    clip=1.0,
    group_weights=None,
    rule: Literal["fixed", "dpsgdf", "naive"] = "fixed",
    count_noise=None,
    noise_multiplier: float = 0.0,
    count_noise_multiplier: float = 0.0,
    expected_batch_size: float,
    l2: float = 0.0,
    noise: Literal["shared", "per_group"] = "shared",
    weight_bound: Optional[float] = None,
    backend: Backend = "native",
    secure_key: Optional[bytes] = None,
    grid_inflation: float = 1e-4,
    packed: Optional[PackedCsrRows] = None,
    center=None,
) -> Tuple[np.ndarray, np.ndarray]:
    """Run T = len(learning_rates) DP-SGD steps of a linear logistic model; all randomness is passed in.

    params: (d + 1,) start point [w, bias] (not modified). Step t uses the batch
    ``B_t = batch_rows[batch_offsets[t]:batch_offsets[t + 1]]`` (any row subset, rows may repeat; draw it with
    Poisson sampling, e.g. :func:`dpfair_native.models.dpsgd.poisson_batches`) and standard normals
    ``grad_noise[t]`` (T, d + 1) and ``count_noise[t]`` (T, 2K for "dpsgdf", T, K for "naive"):

    1. weight clipping, if ``weight_bound`` M is given: ``w := w·min(1, M/‖w‖)`` (bias untouched);
    2. per-group clip bounds C_k and weights a_k (K = len(clip) groups, ``groups`` in 0..K-1, default all 0):
       "fixed"  C_k = clip[k], a_k = group_weights[k] (default 1);
       "dpsgdf" (thesis Alg. 7) m_k/o_k = rows of B_t in group k with ‖g_i‖ > / <= clip[k], released as
                m̃_k = max(0, m_k + σ₁u_k), õ_k = max(0, o_k + σ₁u_{K+k}); b̃_k = max(1, m̃_k + õ_k),
                m̃ = max(1, Σ m̃_k); C_k = clip[k]·(1 + (m̃_k/b̃_k)/(m̃/b)); a_k = 1;
       "naive"  (thesis Alg. 8) b̃_k = max(1, |B_t ∩ group k| + σ₁u_k); a_k = (b/K)/b̃_k; C_k = clip[k];
       (the clamps are post-processing of the noisy counts);
    3. ``S = Σ_{i∈B_t} a_{k(i)}·g_i·min(1, C_{k(i)}/‖g_i‖)`` with g_i = (σ(x_iᵀw + bias) − y_i)·[x_i, 1] (a row
       whose ‖g_i‖ is neither finite nor <= C_k, e.g. NaN from a score that overflowed, adds 0);
    4. noise std from the group sensitivities s_k = a_k·C_k: σ·max_k s_k ("shared": one Gaussian release of
       S) or σ·sqrt(Σ_k s_k²) ("per_group": one independent release per disjoint group, summed);
    5. ``params -= lr_t·((S + std·grad_noise[t]) / b + l2·[w, 0])`` with b = ``expected_batch_size`` (public:
       never the realized batch size); the ridge term is data-independent, so it is added after the noise.

    σ = ``noise_multiplier``, σ₁ = ``count_noise_multiplier``. clip may be +inf (no clipping) only with σ = 0.

    **Secure mode** (``secure_key``: 32 bytes, e.g. ``dpfair_native._secure_random.SecureKeys(None).next()``):
    ``grad_noise`` and ``count_noise`` are ignored (pass None) and every noise value is an exact discrete Gaussian
    drawn inside the loop from the ChaCha20 stream of the key (:func:`discrete_gaussian_noise`; same stream order:
    per step the count draws — DPSGD-F: the K "above" cells, then the K "below" cells — then the d + 1 gradient
    draws). Counts get N_Z(0, σ₁²). Steps 3–5 become, with s = the step's sensitivity (max_k s_k, or
    sqrt(Σ_k s_k²) for "per_group") and D = d + 1: γ = the largest power of two <= ``grid_inflation``·s/√D and
    L = ⌈s/γ + √D/2⌉ + 1 (γ doubled while L > 2^26 or σ·L > 2^23, so the grid noise stays below 2^24 units;
    ValueError if σ·(⌊√D/2⌋ + 2) > 2^23, where no grid does); each
    batch row's clipped gradient is rounded to the grid, k_i = rint(c_i·[x_i − μ, 1]/γ) with c_i its clipped
    coefficient, and enters the sum only if Σ_j k_ij² <= L² in exact integer arithmetic; the integer sum
    Σ_i k_i (clamped to ±2^52, 1-Lipschitz per coordinate) is released as ``γ·(Σ_i k_i + Z)`` with Z_j ~ N_Z(0, σ_g²),
    σ_g² >= (σL)² rounded UP to a rational. Neighbouring batches' integer sums differ by one row's k_i, whose norm is
    <= L exactly, so the sensitivity is L grid units with no floating-point rounding in it: not the clip's (a
    float clipped vector can exceed its bound by a few ulps), nor the sum's (a float sum of B rows is off by up to
    about B²·2^-53·s). A clipped row has norm s up to 1e-12 relative, and rounding adds at most √D/2, so the check
    always passes in practice; should it fail (the check, not the clip, is what the guarantee rests on), the row
    retries at c_i·(1 − 2^-20) and is otherwise left out. Each step is thus N_Z noise with multiplier σ on an
    integer-valued query of sensitivity L, i.e. (1/(2σ²))-zCDP before subsampling (CKS 2020, Thm 14) — account it with
    :mod:`dpfair_native._secure_accounting`, not with the continuous-Gaussian formula. γ and L are functions of the
    released s only (public), so the grid leaks nothing; ``step_bounds`` reports s_k without the rounding allowance
    (Lγ <= s + (√D/2 + 2)γ, i.e. at most (1/2 + 2/√D)·grid_inflation more noise while the grid is not
    coarsened). Secure mode reads dense X as C-contiguous rows (copied if it is not).
    Returns ``(params, step_bounds)``: the final (d + 1,) params and the (T, K) sensitivities s_k of each step.
    The native loop runs single-threaded with the GIL released (steps are sequential and batches small). Secure
    mode on CSR input runs the NumPy twin whatever ``backend`` says (the native CSR loops draw no discrete
    Gaussians; ``packed`` is then unused).

    ``packed``: :func:`pack_csr_rows` of these same ``X``, ``y`` and ``groups`` objects (checked by identity),
    so that a caller running the loop in several calls (one per epoch) packs a CSR X once instead of per call.
    Same results; without it the native CSR path packs X on each call.

    ``center``: a fixed (d,) point μ the loop trains around (e.g. a privately released feature mean), or None.
    Every x_i then reads as x_i − μ in the scores, the clipping norms and the sum (S's first d entries are
    Σ c_i·x_i − (Σ c_i)·μ, O(d) per step), so a CSR X stays sparse; the model [w, bias] scores x as
    wᵀ(x − μ) + bias. μ must be public (released before the loop): the sum's sensitivity is unchanged. On CSR
    rows the native loop reads ‖x_i − μ‖² as ‖x_i‖² − 2x_iᵀμ + ‖μ‖², which cancels when x_i ≈ μ, so it adds its
    rounding bound (d + 4)·ε_mach·(‖x_i‖² + ‖μ‖²): the norm is never underestimated, and the clip is conservative
    (negligibly for |μ_j| <= 1; far from tight for a μ in raw units such as 1e9 — centre in scaled units).
    """
    _check_backend(backend)
    _check_packed_sources(packed, X, y, groups)
    X = _float_matrix_or_csr(X, "X")
    n, d = X.shape
    y = _float_vector(y, n, "y")
    params = _float_vector(params, d + 1, "params")
    _all_finite(params, "params")
    if rule not in _SGD_RULES:
        raise ValueError(f"rule must be one of {tuple(_SGD_RULES)}, got {rule!r}")
    if noise not in _SGD_NOISE:
        raise ValueError(f"noise must be one of {tuple(_SGD_NOISE)}, got {noise!r}")
    learning_rates, batch_rows, batch_offsets, T = _step_schedule(learning_rates, batch_rows, batch_offsets, n)
    center = _center_vector(center, d)
    if (center is not None or secure_key is not None) and not _is_csr(X):
        X = np.ascontiguousarray(X)  # the native loop takes a center, and runs secure mode, on unit-stride rows
    if secure_key is not None:
        if not isinstance(secure_key, (bytes, bytearray)) or len(secure_key) != 32:
            raise ValueError("secure_key must be 32 bytes (a ChaCha20 key) or None")
        secure_key = bytes(secure_key)
        grid_inflation = float(grid_inflation)
        if not np.isfinite(grid_inflation) or grid_inflation <= 0:
            raise ValueError(f"grid_inflation must be a finite number > 0, got {grid_inflation!r}")
        grad_noise = None
    else:
        grad_noise = np.asarray(grad_noise, dtype=np.float64)
        if grad_noise.shape != (T, d + 1):
            raise ValueError(f"grad_noise must have shape (T, d+1) = ({T}, {d + 1}), got {grad_noise.shape}")
        _all_finite(grad_noise, "grad_noise")
    clip = np.asarray(clip, dtype=np.float64)
    if clip.ndim == 0:
        clip = clip.reshape(1)
    if clip.ndim != 1 or clip.size == 0:
        raise ValueError("clip must be a number or a non-empty 1-D array with one bound per group")
    if np.any(np.isnan(clip)) or np.any(clip <= 0):
        raise ValueError("clip bounds must be > 0 (np.inf: no clipping, only with noise_multiplier = 0)")
    K = clip.size
    groups = np.zeros(n, dtype=np.int64) if groups is None else _index_vector(groups, n, "groups")
    if n and (groups.min() < 0 or groups.max() >= K):
        raise ValueError(f"groups must lie in 0 .. {K - 1} (one clip bound per group)")
    sigma = float(noise_multiplier)
    sigma_count = float(count_noise_multiplier)
    for name, value in (("noise_multiplier", sigma), ("count_noise_multiplier", sigma_count), ("l2", float(l2))):
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    if sigma > 0 and not np.all(np.isfinite(clip)):
        raise ValueError("clip must be finite when noise_multiplier > 0 (the noise is scaled by the clip bound)")
    b = float(expected_batch_size)
    if not np.isfinite(b) or b <= 0:
        raise ValueError(f"expected_batch_size must be a finite number > 0 (q·n), got {expected_batch_size!r}")
    if group_weights is not None:
        if rule != "fixed":
            raise ValueError("group_weights applies to rule='fixed' only (dpsgdf/naive set their own weights)")
        group_weights = _float_vector(group_weights, K, "group_weights")
        if not np.all(np.isfinite(group_weights)) or np.any(group_weights < 0):
            raise ValueError("group_weights must be finite numbers >= 0")
    if rule == "fixed" or secure_key is not None:
        count_noise = None
    else:
        width = 2 * K if rule == "dpsgdf" else K
        if count_noise is None:
            raise ValueError(f"rule={rule!r} needs count_noise: standard normals of shape (T, {width})")
        count_noise = np.asarray(count_noise, dtype=np.float64)
        if count_noise.shape != (T, width):
            raise ValueError(f"count_noise must have shape (T, {width}) = ({T}, {width}), got {count_noise.shape}")
        _all_finite(count_noise, "count_noise")
    if weight_bound is None:
        weight_bound = np.inf
    weight_bound = float(weight_bound)
    if np.isnan(weight_bound) or weight_bound <= 0:
        raise ValueError(f"weight_bound must be > 0 or None (no weight clipping), got {weight_bound!r}")
    if backend == "numpy" or (secure_key is not None and _is_csr(X)):
        _twin_input(X)
        _all_finite(y, "y")  # the native loops refuse a non-finite label too (when a batch visits its row)
        return _reference.dpsgd_epochs(
            X, y, params, batch_rows, batch_offsets, learning_rates, grad_noise, groups, clip, group_weights, rule,
            count_noise, sigma, sigma_count, b, float(l2), noise, weight_bound, secure_key, grid_inflation,
            center=center,
        )
    core = _native()
    rule_code, noise_code = getattr(core.ClipRule, rule), getattr(core.NoiseRule, noise)
    native_packed = _native_packed(packed, K, "clip has {} bounds")
    if native_packed is not None:
        return core.dpsgd_epochs_packed(
            native_packed, y, groups, clip, group_weights, batch_rows, batch_offsets, learning_rates, grad_noise,
            count_noise, rule_code, noise_code, sigma, sigma_count, b, float(l2), weight_bound, params, center,
        )
    if _is_csr(X):
        return core.dpsgd_epochs_csr(
            *_csr_arrays(X), y, groups, clip, group_weights, batch_rows, batch_offsets, learning_rates, grad_noise,
            count_noise, rule_code, noise_code, sigma, sigma_count, b, float(l2), weight_bound, params, center,
        )
    return core.dpsgd_epochs(
        X, y, groups, clip, group_weights, batch_rows, batch_offsets, learning_rates, grad_noise, count_noise,
        rule_code, noise_code, sigma, sigma_count, b, float(l2), weight_bound, params, secure_key, grid_inflation,
        center,
    )

__all__.append("dpsgd_epochs")


def secure_row_units(X, coef, gamma: float, limit: int, *, center=None, backend: Backend = "native") -> np.ndarray:
    """The secure loop's exact integer row sum on its own (int64, length d + 1): Σ_i k_i over the rows with
    coef_i != 0, k_i = rint(coef_i·[x_i − μ, 1]/γ) admitted only if Σ_j k_ij² <= L² = ``limit``² exactly, a failing
    row retried at coef_i·(1 − 2^-20) and then left out (:func:`dpsgd_epochs`, secure mode). The loop's rows
    always pass; here any ``limit`` (1 .. 2^26) and any ``coef`` can be given, so the test is reachable. γ must be a
    power of two in 2^-1021 .. 2^1021, where γ and 1/γ are normal and the scaling by them exact, as in the loop.
    X: dense float64 (m, d); center: d values or None."""
    _check_backend(backend)
    X = np.ascontiguousarray(_float_matrix(X, "X"))
    m, d = X.shape
    coef = _float_vector(coef, m, "coef")
    center = _center_vector(center, d)
    gamma = float(gamma)
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)):
        raise TypeError(f"limit must be an integer, got {limit!r}")
    limit = int(limit)
    if not 1 <= limit <= 2**26:
        raise ValueError("limit must lie in 1 .. 2^26")
    _, e = math.frexp(gamma)
    if not (2.0**-1021 <= gamma <= 2.0**1021 and math.ldexp(1.0, e - 1) == gamma):  # also refuses NaN
        raise ValueError("gamma must be a power of two in 2^-1021 .. 2^1021 (as the loop's grids are)")
    if backend == "native":
        return _native().secure_row_units(X, coef, gamma, limit, center)
    V = np.empty((m, d + 1))
    V[:, :d] = X if center is None else X - center
    V[:, d] = 1.0
    return _reference.secure_row_units(V, coef, gamma, limit)


__all__.append("secure_row_units")


def _center_vector(center, d: int) -> Optional[np.ndarray]:
    """The loops' optional (d,) center, checked: finite float64, or None."""
    if center is None:
        return None
    center = _float_vector(center, d, "center")
    _all_finite(center, "center")
    return center


class PackedCsrRows:
    """X's rows with their labels and groups, packed once for several :func:`dpsgd_epochs` or
    :func:`constrained_sgd_epochs` calls.

    Built by :func:`pack_csr_rows`. Holds the native packed copy (each CSR row one cache-aligned record; None for
    dense X or the NumPy backend, where there is nothing to pack) and the X, y, groups objects it was built from:
    the loops accept it only with those same objects. They must not be modified while it is in use
    (the packed copy is a snapshot).

    Attributes
    ----------
    shape : tuple of int
        X's (n, d).
    n_groups : int
        K, the number of clip bounds it was built for (a record's group must lie in 0 .. K-1).
    """

    def __init__(self, X, y, groups, n_groups: int, native):
        self._sources = (X, y, groups)
        self._native = native
        self.shape = tuple(X.shape)
        self.n_groups = n_groups

    def _built_from(self, X, y, groups) -> bool:
        return all(a is b for a, b in zip(self._sources, (X, y, groups)))


def _check_packed_sources(packed: Optional[PackedCsrRows], X, y, groups) -> None:
    """The loops' ``packed`` argument must come from these very X, y and groups objects."""
    if packed is not None and not packed._built_from(X, y, groups):
        raise ValueError("packed must be pack_csr_rows(X, y, groups=groups) of the same X, y and groups objects")


def _native_packed(packed: Optional[PackedCsrRows], K: int, what: str):
    """The native packed rows to run on (None: nothing packed), checked to hold K groups; ``what`` ("... {} ...")
    says where the loop's K comes from, for the error."""
    if packed is None or packed._native is None:
        return None
    if packed.n_groups != K:
        raise ValueError(f"packed was built for n_groups={packed.n_groups}, but " + what.format(K))
    return packed._native


def pack_csr_rows(X, y, *, groups=None, n_groups: int = 1, backend: Backend = "native") -> PackedCsrRows:
    """Pack a CSR X's rows, labels y and groups (in 0 .. n_groups-1, default all 0) once for :func:`dpsgd_epochs`
    or :func:`constrained_sgd_epochs`.

    Costs one pass over X (its rows' faults — bad offsets, columns, values, groups or labels — are recorded, and
    raised only by a loop call that visits the row, as :func:`dpsgd_epochs` does without packing; unpacked,
    :func:`constrained_sgd_epochs` checks all of X first). Pass the result as
    ``packed=`` with the same X, y and groups objects. For dense X or ``backend="numpy"`` nothing is packed (the
    result only records the objects).
    """
    _check_backend(backend)
    n_groups = int(n_groups)
    if n_groups < 1:
        raise ValueError(f"n_groups must be >= 1 (one clip bound per group), got {n_groups}")
    native = None
    if backend == "native" and _is_csr(X):
        Xc = _float_matrix_or_csr(X, "X")
        n = Xc.shape[0]
        yv = _float_vector(y, n, "y")
        gv = np.zeros(n, dtype=np.int64) if groups is None else _index_vector(groups, n, "groups")
        native = _native().PackedCsr(*_csr_arrays(Xc), yv, gv, n_groups)
    return PackedCsrRows(X, y, groups, n_groups, native)


__all__ += ["PackedCsrRows", "pack_csr_rows"]


class LogisticFit(NamedTuple):
    """Result of :func:`logistic_newton`: w = [coef (d), intercept (if fitted)]."""

    w: np.ndarray
    n_iter: int
    converged: bool
    n_passes: int


def logistic_newton(
    X,
    y,
    *,
    alpha: float = 0.0,
    fit_intercept: bool = True,
    constraint=None,
    max_iter: int = 50,
    tol: float = 1e-8,
    n_threads: Optional[int] = None,
    backend: Backend = "native",
) -> LogisticFit:
    """Exact logistic regression by damped Newton steps, one pass over X per step (inexact steps on wide sparse X).

    Minimizes ``L(w) = Σ_i [log(1 + e^{z_i}) − y_i z_i] + (alpha/2)‖coef‖²``, ``z_i = x_iᵀcoef + intercept``
    (the intercept is not penalized), subject to ``|aᵀw| <= tau`` when ``constraint = (a, tau)`` is given
    (a: (d + fit_intercept,), tau >= 0; w = 0 is feasible, so every iterate is).

    Step k computes the scores, the gradient ``Σ(p_i − y_i)x̃_i`` and the Hessian ``Σ p_i(1 − p_i)x̃_i x̃_iᵀ``
    (x̃ = [x, 1]) in one pass, minimizes the Newton model over the feasible set (Cholesky; the trimmed eigenbasis
    when the model is singular to 1e-12 relative) and takes the full step v when the slope ∇L(w + v)ᵀv <= 0 (then,
    by convexity, no shorter step is better); otherwise it bisects on the slope along the segment for a Wolfe step
    (no extra pass: the scores are linear along it). It stops after a full step with ``max|v| <= tol·(1 + max|w|)``,
    or in the quadratic phase when the predicted next step ``max|v_k|³/max|v_{k−1}|²`` is that small; such a final
    step is also taken when its end slope is positive but at most half the initial slope's size (at a constrained
    optimum that slope is rounding noise).

    X: (n, d) float32/float64, any layout, or scipy.sparse CSR; y: (n,) in [0, 1]. The native kernel reads rows in
    place, except when a sample of rows shows 0/1 columns that are mostly 0 (one-hot encodings): then it copies the
    other columns plus, per row, the index of its set of ones (its "pattern") once, and each pass sums a row's
    contributions per pattern before spreading them over the pattern's columns, so the per-row work is that of the
    other columns.

    Sparse X with 24 or more non-zeros per row on average and no constraint: a Hessian pass costs Σ nnz_i²/2 pair
    updates, so the steps are inexact instead. Each solves ``(H(w) + αI)v = −∇L(w)`` by conjugate gradients on
    Hessian-vector products (one sweep over the non-zeros each, counted in ``n_passes``), preconditioned with the
    Cholesky factor of the Hessian at w = 0, to the relative residual η_k of Eisenstat & Walker's choice 2
    (η₁ = ½, η_k = min(½, 0.9 (‖∇_k‖/‖∇_{k−1}‖)²), >= 1e-10); a solve that takes more products than a Hessian pass
    costs (Σ nnz_i² / (4 Σ nnz_i), at least 4) has the next pass compute the Hessian at the new iterate as the new
    preconditioner. Line search and stopping rule as above. When that is smaller (most stored values exactly 1, as
    in one-hot columns), the products and gradient passes read a copy of the rows holding the 16-bit column
    indices of the ones and the other values with theirs (census rows: 100 instead of 408 bytes). Census-style
    rows (240,000 × 508, 34 non-zeros): 7 steps, 1 Hessian pass and 22 products instead of 7 Hessian passes.
    Dense X with such rows (no constraint, 24 or more non-zeros per row on average, at most 10 % of all entries
    non-zero) is fitted the same way: the native kernel copies it to CSR first (two passes over X; at most 0.2
    times its size), as each of those rows would otherwise be a pattern of its own.
    Same iterates as the NumPy reference up to float summation order (n_iter and n_passes agree).
    Returns ``LogisticFit(w, n_iter, converged, n_passes)``; with a single class in y there is no minimizer and
    the fit stops with ``converged=False``.
    """
    _check_backend(backend)
    X = _float_matrix_or_csr(X, "X")
    n, d = X.shape
    if n == 0 or d == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
    y = _float_vector(y, n, "y")
    if not np.all((y >= 0.0) & (y <= 1.0)):
        raise ValueError("y must lie in [0, 1] (labels 0/1, or probabilities)")
    alpha = float(alpha)
    tol = float(tol)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    m = d + 1 if fit_intercept else d
    threads = _threads(n_threads)
    _check_square_fits(m, _busy_threads(threads, X, m) + 3, "X")
    a = None
    tau = 0.0
    if constraint is not None:
        try:
            a, tau = constraint
        except (TypeError, ValueError):
            raise ValueError("constraint must be a pair (a, tau) meaning |aᵀw| <= tau") from None
        a = np.asarray(a, dtype=np.float64)
        if a.shape != (m,):
            raise ValueError(f"constraint vector must have shape ({m},) (n_features + fit_intercept), got {a.shape}")
        _all_finite(a, "constraint vector")
        tau = float(tau)
        if not np.isfinite(tau) or tau < 0:
            raise ValueError(f"tau must be a finite number >= 0, got {tau!r}")
    if backend == "numpy":
        _twin_input(X)
        w, n_iter, converged, n_passes = _reference.logistic_newton(
            X, y, alpha, bool(fit_intercept), None if a is None else (a, tau), int(max_iter), tol
        )
    elif _is_csr(X):
        w, n_iter, converged, n_passes = _native().logistic_newton_csr(
            *_csr_arrays(X), y, alpha, bool(fit_intercept), int(max_iter), tol, threads, a, tau
        )
    else:
        w, n_iter, converged, n_passes, _ = _native().logistic_newton(
            X, y, alpha, bool(fit_intercept), int(max_iter), tol, threads, a, tau
        )
    return LogisticFit(w=np.asarray(w), n_iter=int(n_iter), converged=bool(converged), n_passes=int(n_passes))


__all__ += ["LogisticFit", "logistic_newton"]


# -- exact discrete noise (secure sampling path) ----------------------------------------------------------------------
def _secure_rational(value, name: str):
    """An exact rational (num, den) with 1 <= num, den <= 2^48 that is >= ``value`` (int, Fraction or float).

    Exact when ``value``'s numerator and denominator fit; otherwise rounded UP to num/2^k (k <= 20, the same rule
    as the native loop): more noise than asked, never less.
    """
    from fractions import Fraction

    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        frac = Fraction(value) if not isinstance(value, (float, np.floating)) else Fraction(float(value))
    except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: an infinite float
        raise TypeError(f"{name} must be an int, a Fraction or a finite float, got {value!r}") from exc
    if frac <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    limit = 1 << 48
    if frac.numerator <= limit and frac.denominator <= limit:
        return frac.numerator, frac.denominator
    for k in range(20, -1, -1):
        num = -((-frac.numerator << k) // frac.denominator)  # ceil(frac·2^k)
        if num <= limit:
            return max(num, 1), 1 << k
    raise ValueError(f"{name} = {float(frac):.6g} is too large for the secure samplers (at most 2^48)")


def _secure_draws(kind: str, size, param, random_state, backend: Backend) -> np.ndarray:
    from ._secure_random import SecureKeys

    _check_backend(backend)
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) or size < 0:
        raise ValueError(f"size must be an integer >= 0, got {size!r}")
    num, den = _secure_rational(param, "sigma2" if kind == "gaussian" else "scale")
    key = SecureKeys(random_state).next()
    if backend == "numpy":
        fn = _reference.discrete_gaussian_noise if kind == "gaussian" else _reference.discrete_laplace_noise
    else:
        fn = getattr(_native(), f"discrete_{kind}_noise")
    return fn(key, int(size), num, den)


def discrete_gaussian_noise(size: int, sigma2, *, random_state=None, backend: Backend = "native") -> np.ndarray:
    """``size`` independent exact draws from the discrete Gaussian P(z) ∝ exp(−z²/(2σ²)) on the integers (int64).

    σ² = ``sigma2``: an int, a ``fractions.Fraction`` or a float (taken exactly); numerator and denominator must be
    <= 2^48, otherwise σ² is rounded UP to num/2^k (more noise never weakens DP; accountants keep the requested σ,
    which is then conservative). Algorithm: Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for
    Differential Privacy", Algorithms 1–3 — Bernoulli(exp(−γ)) by the K-loop, the discrete Laplace via a geometric,
    the discrete Gaussian by rejection from the discrete Laplace with t = ⌊σ⌋ + 1 — in integer arithmetic only
    (no floating point touches a sample), driven by the bits of a ChaCha20 keystream (RFC 8439 block function).

    ``random_state``: None = a fresh 32-byte key from the OS CSPRNG (``secrets``): the secure setting; an int (or a
    Generator, or a 32-byte key) derives the key deterministically for reproducible research runs — **anyone who
    knows it can regenerate the noise, so the DP guarantee does not hold against them.**
    The native and the NumPy (pure-Python) backends consume the same stream and return identical integers.
    Truncation: a proposal with |y|·D·t >= 2^62 (D the denominator of σ²) is rejected, so the support is cut
    no closer to 0 than 2^12·max(σ, 1) in magnitude; this changes the distribution by less than exp(−2^22) in
    total variation per draw, an additive δ of (1 + e^ε)·exp(−2^22) per draw on top of the mechanism's.
    """
    return _secure_draws("gaussian", size, sigma2, random_state, backend)


def discrete_laplace_noise(size: int, scale, *, random_state=None, backend: Backend = "native") -> np.ndarray:
    """``size`` independent exact draws from the discrete Laplace P(z) ∝ exp(−|z|/scale) on the integers (int64).

    ``scale`` = t/s rational (int, Fraction or float; rounded UP to num/2^k if its parts exceed 2^48), CKS 2020
    Algorithm 2 on the ChaCha20 stream; ``random_state`` as in :func:`discrete_gaussian_noise`. Draws with
    |z| >= 2^62 (>= 2^14 scales) are rejected: an additive δ below (1 + e^ε)·2·exp(−2^14) per draw.
    """
    return _secure_draws("laplace", size, scale, random_state, backend)


def poisson_rate_rational(sample_rate: float) -> tuple:
    """(t, s), 1 <= t, s <= 2^48, with λ = s/t <= −ln(1 − q): the secure sampler's selection probability
    p = 1 − e^{−λ} is then <= q = ``sample_rate``, so an accountant run at q covers it (Poisson-subsampled
    guarantees only weaken as the rate grows: sampling at p is sampling at q and then keeping each selected record
    with probability p/q, data-independent post-selection). λ = ⌊λ_f·2^k⌋/2^k with λ_f = −log1p(−q)·(1 − 2^-40),
    which is below the exact −ln(1 − q) for any log1p within 2^-40 (libm's is within an ulp or two); k the
    smallest in 0..48 with s >= 2^24 (the sampler draws a k-bit uniform per gap: fewer bits, faster), so the floor
    loses at most 2^-24 of λ, or 2^-48 absolute where k = 48 caps it; s <= 2^48 as λ < 37; p/q >= λ/(−ln(1 − q))
    (p is concave in λ) >= 1 − 2^-40 − 2^-24 − 2^-48/q.

    ValueError for q outside (0, 1) or so small that s = 0 (q below about 2^-48); q = 1 needs no draw (every record
    is selected).
    """
    q = float(sample_rate)
    if not 0.0 < q < 1.0:
        raise ValueError(f"sample_rate must lie in (0, 1) for the secure sampler, got {sample_rate!r}")
    lam = -math.log1p(-q) * (1.0 - 2.0**-40)
    k = 0  # the smallest k with s >= 2^24 (a short uniform draw in the sampler), at most 48
    while k < 48 and math.ldexp(lam, k) < float(1 << 24):
        k += 1
    s = math.floor(math.ldexp(lam, k))
    if s < 1:
        raise ValueError(f"sample_rate {q:.3g} is too small for the secure sampler (about 2^-48 at least)")
    return 1 << k, int(s)


def secure_poisson_slots(total: int, sample_rate: float, key: bytes, *, backend: Backend = "native") -> np.ndarray:
    """The slots of {0, ..., total − 1} each selected independently with probability p <= ``sample_rate``
    (:func:`poisson_rate_rational`; every slot when the rate is 1), sorted, int64: the secure DP-SGD loop's Poisson
    sampling. Gaps between selected slots are 1 + Y with P(Y >= k) = e^{−λk} = (1 − p)^k, Y the geometric of
    Canonne, Kamath & Steinke's (2020) discrete Laplace sampler (Algorithm 2), exact in integer arithmetic on the
    ChaCha20 stream of the 32-byte ``key``; the native and NumPy (pure-Python) backends return the same slots.
    """
    _check_backend(backend)
    if not isinstance(key, (bytes, bytearray)) or len(key) != 32:
        raise ValueError("key must be 32 bytes (a ChaCha20 key)")
    total = int(total)
    if total < 0:
        raise ValueError("total must be >= 0")
    if not 0.0 < float(sample_rate) <= 1.0:
        raise ValueError(f"sample_rate must lie in (0, 1], got {sample_rate!r}")
    if float(sample_rate) == 1.0:
        return np.arange(total, dtype=np.int64)
    t, s = poisson_rate_rational(sample_rate)
    fn = _reference.secure_poisson_slots if backend == "numpy" else _native().secure_poisson_slots
    return fn(bytes(key), total, t, s)


__all__ += ["discrete_gaussian_noise", "discrete_laplace_noise", "poisson_rate_rational", "secure_poisson_slots"]
# -- contingency_g2 -------------------------------------------------------------------------------------------------
def _categorical_codes_t(codes, n_categories):
    """(codes transposed to (p, n) int32 C order, n_categories int64) after checking every code is in range."""
    C = np.asarray(codes)
    if C.ndim != 2:
        raise ValueError(f"codes must be a 2-D array (n_samples, n_features), got shape {C.shape}")
    if C.dtype.kind not in "iub":
        raise TypeError(f"codes must be integer category codes 0..n_categories-1, got dtype {C.dtype}")
    cats = np.asarray(n_categories)
    if cats.dtype.kind not in "iu" or cats.shape != (C.shape[1],):
        raise ValueError(f"n_categories must be {C.shape[1]} integers (one per column), got {n_categories!r}")
    cats = cats.astype(np.int64)
    if np.any(cats < 1) or np.any(cats > 2**31 - 1):
        raise ValueError("n_categories must be >= 1 (and fit in int32)")
    if C.shape[0] > 0:
        lo, hi = C.min(axis=0), C.max(axis=0)
        bad = np.flatnonzero((lo < 0) | (hi >= cats))
        if bad.size:  # the message names the column, not the code (a rare code is a record's)
            v = int(bad[0])
            raise ValueError(
                f"column {v} has codes outside the declared 0..{int(cats[v]) - 1}; fix the coding or the public "
                "n_categories"
            )
    return np.ascontiguousarray(C.T, dtype=np.int32), cats


def contingency_g2(
    codes,
    n_categories,
    tests,
    *,
    max_cells: int = 1 << 24,
    backend: Backend = "native",
    n_threads: Optional[int] = None,
    codes_transposed: bool = False,
) -> np.ndarray:
    """G² statistics of many conditional-independence tests i ⟂ j | k on integer-coded categorical data.

    Parameters
    ----------
    codes : (n, p) integer array with codes[:, v] in 0..n_categories[v]-1 (or (p, n) int32 C-ordered with
        ``codes_transposed=True``, as :func:`categorical_codes` returns it, to skip the transpose; the codes of the
        variables the tests use are checked either way).
    n_categories : (p,) public category counts.
    tests : (T, 2 + m) integer array; row t = (i, j, k_1, ..., k_m), −1 pads shorter conditioning sets.
    max_cells : refuse any test whose table r_i r_j ∏ r_k has more cells (memory guard).

    Returns
    -------
    (T,) float64 with G² = 2 Σ_{z,a,b} N_zab ln(N_zab N_z / (N_za N_zb)) (cells with N = 0 contribute 0). Each
    table is counted in one pass over the rows (mixed-radix key of (k, j, i)); native threads over tests.
    Degrees of freedom are the caller's (from public category counts).
    """
    backend = _check_backend(backend)
    if codes_transposed:
        if np.asarray(codes).dtype != np.int32:  # a cast could wrap a code into range
            raise ValueError(f"transposed codes must be int32 (categorical_codes), got {np.asarray(codes).dtype}")
        codes_t = np.ascontiguousarray(codes)
        cats = np.asarray(n_categories, dtype=np.int64)
        if codes_t.ndim != 2 or cats.shape != (codes_t.shape[0],):
            raise ValueError("transposed codes must be (p, n) with n_categories of shape (p,)")
    else:
        codes_t, cats = _categorical_codes_t(codes, n_categories)
    T = np.asarray(tests)
    if T.dtype.kind not in "iu" or T.ndim != 2 or T.shape[1] < 2:
        raise ValueError(f"tests must be a 2-D integer array (n_tests, 2 + max_order), got {T.dtype} {T.shape}")
    T = np.ascontiguousarray(T, dtype=np.int64)
    p = codes_t.shape[0]
    if T.size and (T[:, :2].min() < 0 or T.max() >= p):
        raise ValueError(f"tests index variables outside 0..{p - 1}")
    if (isinstance(max_cells, (bool, np.bool_)) or not isinstance(max_cells, (int, np.integer))
            or not 1 <= max_cells < 2**63):
        raise ValueError(f"max_cells must be a positive integer below 2**63, got {max_cells!r}")
    for row in T:
        used = [int(v) for v in row if v >= 0]
        if len(set(used)) != len(used) or row[0] == row[1]:
            raise ValueError(f"test {row.tolist()} repeats a variable")
        cells = int(np.prod(cats[used], dtype=np.float64))
        if cells > max_cells:
            raise ValueError(f"test {row.tolist()} needs a {cells}-cell table, more than max_cells={max_cells}")
    if backend == "numpy":
        if codes_transposed:  # the native kernel checks these codes itself
            for v in np.unique(T[T >= 0]):
                if codes_t.shape[1] and (codes_t[v].min() < 0 or codes_t[v].max() >= cats[v]):
                    raise ValueError(f"codes of variable {v} must lie in 0..n_categories-1")
        return _reference.contingency_g2(codes_t, cats, T, int(max_cells))
    return _native().contingency_g2(codes_t, cats, T, int(max_cells), _threads(n_threads))


def categorical_codes(codes, n_categories):
    """Checked, transposed (p, n) int32 codes and int64 category counts, for repeated ``contingency_g2`` calls."""
    return _categorical_codes_t(codes, n_categories)


__all__ += ["contingency_g2", "categorical_codes"]
# -- scipy.sparse input -------------------------------------------------------------------------------------------
# Every kernel above also takes a scipy.sparse matrix or array X (scipy is an optional dependency, never imported
# here: a sparse X is recognised by its type's module). CSR is used as it is; CSC and COO are converted to CSR once
# (a copy of the non-zeros); other formats are refused. A CSR matrix that is not in canonical form (unsorted column
# indices or duplicate entries) is canonicalized once on a copy (duplicates summed, as scipy's sum_duplicates does).
# The native CSR kernels do work proportional to the non-zeros: poly2's Q and logistic_newton's Hessian cost
# Σ_i nnz_i(nnz_i + 1)/2 multiply-adds (each row's non-zero pairs), the gradient kernels O(batch non-zeros) per
# call/step (plus O(d) per DP-SGD step for the dense noise). X is never densified. Memory safety of the three arrays
# is checked natively: over the whole matrix before poly2/logistic_newton, and row by row as they are read by the
# gradient kernels and the DP-SGD loop (so an epoch costs O(visited non-zeros), not a pass over X per call); the
# loop also prefetches the rows of the next batch positions, whose reads are otherwise latency-bound.
_SPARSE_FORMATS = ("csr", "csc", "coo")


def is_sparse(X) -> bool:
    """True for a scipy.sparse matrix or array (checked without importing scipy)."""
    from ._validation import is_scipy_sparse

    return is_scipy_sparse(X) and hasattr(X, "format")


def _is_csr(X) -> bool:
    return not isinstance(X, np.ndarray) and getattr(X, "format", None) == "csr"


def _csr_matrix(X, name: str):
    """X as a canonical float32/float64 CSR matrix (the same object when it already is one)."""
    fmt = X.format
    if fmt not in _SPARSE_FORMATS:
        raise TypeError(
            f"{name} is a scipy.sparse matrix in {fmt!r} format; pass CSR (CSC and COO are converted), "
            f"e.g. {name}.tocsr()"
        )
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if fmt != "csr":  # scipy's conversion trusts the structure as its products do
        _check_sparse_structure(X, name)
        X = X.tocsr()
    if X.dtype not in (np.float32, np.float64):
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must have a real numeric dtype, got {X.dtype}")
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _check_sparse_structure(X, name: str) -> None:
    """A CSR/CSC matrix's offsets non-decreasing and within the stored values and its indices within the shape, or a
    COO matrix's coordinates within the shape: scipy's constructors check neither after an in-place edit, and its
    conversions and products (the NumPy twins', the estimators') trust them and can crash the process on a
    violation; the native kernels check CSR themselves. O(nnz) vectorised (~3-6 ms for 8 M values), so it runs
    where scipy is about to compute — a conversion, the twins, an estimator's input once per fit or predict — not on
    every native call of a fit's loop. It checks a new scipy object over the same arrays, since scipy's check may
    rewrite the attributes of the matrix it checks (and a subclass's constructor may take other arguments)."""
    import scipy.sparse as sp

    if X.format not in ("csr", "csc", "coo"):  # the others (lil, dok, ...) are built from Python objects
        return
    try:
        if X.format == "coo":
            sp.coo_array((X.data, (X.row, X.col)), shape=X.shape)
        else:
            kind = {"csr": sp.csr_array, "csc": sp.csc_array}[X.format]
            kind((X.data, X.indices, X.indptr), shape=X.shape, copy=False).check_format(full_check=True)
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid {X.format.upper()} matrix ({exc})") from None


def _twin_input(X) -> None:
    """What the NumPy twins need of X before scipy reads it: a valid CSR structure, finite values."""
    if _is_csr(X):
        _check_sparse_structure(X, "X")
    _all_finite(_values(X), "X")


def _float_matrix_or_csr(X, name: str):
    return _csr_matrix(X, name) if is_sparse(X) else _float_matrix(X, name)


def _values(X):
    """The stored values of X (its non-zeros when sparse)."""
    return X.data if _is_csr(X) else X


def _csr_arrays(X):
    """(data, indices, indptr, n_features) of a CSR matrix, with indices and indptr of one integer dtype."""
    indices, indptr = X.indices, X.indptr
    if indices.dtype != indptr.dtype or indices.dtype not in (np.int32, np.int64):
        indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
    return X.data, indices, indptr, int(X.shape[1])


def csr_in_domain(X, lower, upper, groups=(), l1_cap=None, l2_cap=None, *, pair_sums=None,
                  n_threads: Optional[int] = None, backend: Backend = "native") -> bool:
    """True when every row of a scipy.sparse X, its implicit zeros included, lies in a declared feature domain.

    The test of :meth:`dpfair_native.domain.FeatureDomain.contains_all` on sparse rows, in one pass over the stored
    values: ``lower[j] <= x_ij <= upper[j]`` for every stored value, and ``lower[j] <= 0 <= upper[j]`` for every
    column with fewer than n stored values (some row holds an implicit zero there); a column of a one-hot group
    (``groups``: a sequence of column-index sequences, disjoint) stores only 0 or 1, with at most one non-zero per
    group and row; row norms ``sum_j |x_ij| <= l1_cap`` and ``sqrt(sum_j x_ij²) <= l2_cap`` (None: no cap). NaN
    fails every test. Exact comparisons; X is never densified. ``pair_sums`` (optional, a positive multiple of
    XᵀX) lets the NumPy twin read the one-hot test from its within-group entries instead of per-row counts (less
    memory); the native pass counts per row either way, on up to ``n_threads`` threads (None: every core).
    """
    _check_backend(backend)
    threads = _threads(n_threads)
    X = _csr_matrix(X, "X")
    d = X.shape[1]
    lower = _float_vector(lower, d, "lower")
    upper = _float_vector(upper, d, "upper")
    groups = [np.asarray(g, dtype=np.int64).ravel() for g in groups]
    group_of = _column_groups(groups, d)
    caps = [np.inf if c is None else float(c) for c in (l1_cap, l2_cap)]
    if backend == "numpy":
        _check_sparse_structure(X, "X")
        return _reference.csr_in_domain(X, lower, upper, groups, *caps, pair_sums)
    return bool(_native().csr_in_domain(*_csr_arrays(X), lower, upper, group_of, len(groups), *caps, threads))


__all__ += ["is_sparse", "csr_in_domain"]


def normal_cdf(z, *, backend: Backend = "native") -> np.ndarray:
    """Φ(z), the standard normal CDF, elementwise over a 1-D float64 array: erfc(−z/√2)/2 with relative accuracy
    in the lower tail (Φ(−30) ≈ 4.9e-198 to ~1e-15), as the PLD accountant's discretisation needs. The native
    kernel uses the C library's erfc (0 once Φ is below the smallest normal double, z < −37.5); the NumPy twin,
    which NumPy lacks an erfc for, ``accountants._special.normal_cdf``, a Chebyshev fit of erfcx (5–10× slower)."""
    _check_backend(backend)
    z = np.ascontiguousarray(z, dtype=np.float64)
    if z.ndim != 1:
        raise ValueError(f"z must be one-dimensional, got shape {z.shape}")
    if backend == "numpy":
        from .accountants._special import normal_cdf as twin

        return twin(z)
    return _native().normal_cdf(z)


__all__ += ["normal_cdf"]


def _pld_vector(a, name: str) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a


def pld_connect_the_dots(eps, gp, gq, *, backend: Backend = "native") -> Tuple[np.ndarray, float]:
    """The PLD accountant's pessimistic discretisation of one worst-case pair (P, Q) on a loss grid ("connect the
    dots", see ``accountants.pld``): ``eps`` the increasing grid losses ε_0 < ... < ε_{m−1}, ``gp[i]`` = P(L > ε_i)
    and ``gq[i]`` = Q(L > ε_i) (clipped to [0, 1] and made non-increasing first). Each bucket (ε_{i−1}, ε_i] is
    replaced by atoms at its two ends with the bucket's P- and Q-masses: Q-mass a = (P(B) − e^{ε_{i−1}}Q(B)) /
    (e^{ε_i} − e^{ε_{i−1}}), clipped to [0, Q(B)], at the top (P-mass e^{ε_i}·a), the rest at the bottom; a bucket
    without Q-mass keeps its P-mass at the top; P(L <= ε_0) goes to ε_0. Returns (pmf, p_inf): the P-masses at the
    m grid losses and P(L > ε_{m−1}), which the accountant moves to +∞. Both backends take e^ε from one
    ``np.exp`` (the bucket masses cancel to a relative 1/(e^h − 1), so a last-bit difference in e^ε would show),
    and agree bit for bit."""
    _check_backend(backend)
    eps = _pld_vector(eps, "eps")
    gp, gq = _pld_vector(gp, "gp"), _pld_vector(gq, "gq")
    if eps.shape[0] < 2 or gp.shape != eps.shape or gq.shape != eps.shape:
        raise ValueError(f"eps, gp and gq must have one shape of at least 2 points, got {eps.shape}, {gp.shape}, "
                         f"{gq.shape}")
    with np.errstate(over="ignore"):  # e^ε = inf past ε ≈ 709.78: those buckets keep their P-mass, see the twin
        u = np.exp(eps)
    if backend == "numpy":
        return _reference.pld_connect_the_dots(u, gp, gq)
    pmf, p_inf = _native().pld_connect_the_dots(u, gp, gq)
    return pmf, float(p_inf)


def pld_epsilon_for_delta(pmf, offset: int, h: float, p_inf: float, delta: float, *,
                          backend: Backend = "native") -> float:
    """The smallest ε >= 0 with δ(ε) <= ``delta`` for a discretised PLD: P-masses ``pmf`` at the losses
    ε_j = (``offset`` + j)·``h`` and ``p_inf`` at +∞, where δ(ε) = p_inf + Σ_{ε_j > ε} pmf_j (1 − e^{ε − ε_j}).
    Exact for that PLD (δ is p_inf + S1 − e^ε S2 between grid losses, solved in closed form); +∞ when
    p_inf > delta, or when delta is only met past ε ≈ 700, where e^ε overflows (no privacy is left there)."""
    _check_backend(backend)
    pmf = _pld_vector(pmf, "pmf")
    h = float(h)
    if not h > 0:
        raise ValueError(f"h must be > 0, got {h!r}")
    if backend == "numpy":
        return _reference.pld_epsilon_for_delta(pmf, int(offset), h, float(p_inf), float(delta))
    return float(_native().pld_epsilon_for_delta(pmf, int(offset), h, float(p_inf), float(delta)))


__all__ += ["pld_connect_the_dots", "pld_epsilon_for_delta"]


def values_within(values, lower: float, upper: float, *, n_threads: int = 0, backend: Backend = "native") -> bool:
    """True when lower <= v <= upper for every v of a real array of any shape (NaN fails; so does infinity when
    the bounds are finite): the input check of X (bounds ∓1e150) and the bounds check of a domain
    whose columns share their bounds, in one pass over memory (NumPy's min and max make two). The native kernel
    reads a C- or F-contiguous float32/float64 array in place on up to ``n_threads`` threads (0: all); other
    layouts and dtypes, and the NumPy twin, take NumPy's min and max (no temporary)."""
    _check_backend(backend)
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"values must be real numbers, got dtype {values.dtype}")
    lower, upper = float(lower), float(upper)
    native_layout = (values.dtype in (np.float32, np.float64) and values.dtype.isnative
                     and (values.flags.c_contiguous or values.flags.f_contiguous))
    if backend == "native" and native_layout and native_available():
        return bool(_native().values_within(values, lower, upper, 0 if n_threads == 0 else _threads(n_threads)))
    if values.size == 0:
        return True
    with np.errstate(invalid="ignore"):  # min/max propagate NaN, which then fails both comparisons
        return bool(values.min() >= lower) and bool(values.max() <= upper)


__all__ += ["values_within"]


class ConstrainedSgdState(NamedTuple):
    """State of :func:`constrained_sgd_epochs` carried from one call to the next."""

    params: np.ndarray  # (d + 1,) current iterate [w, bias]
    lambdas: np.ndarray  # (2, K, E) multipliers λ⁺, λ⁻ >= 0
    hist: np.ndarray  # (K, E, 2) exponential moving average of the noisy histograms (not bias-corrected)
    avg: np.ndarray  # (d + 1,) running mean of the iterates from step avg_start on
    avg_count: int  # number of iterates in avg
    step_index: int  # global index of the next step


def constrained_sgd_state(d: int, n_groups: int, n_events: int) -> ConstrainedSgdState:
    """The start state: zero weights, multipliers and histogram."""
    return ConstrainedSgdState(
        np.zeros(d + 1), np.zeros((2, n_groups, n_events)), np.zeros((n_groups, n_events, 2)), np.zeros(d + 1), 0, 0
    )


def constrained_sgd_epochs(
    X,
    y,
    groups,
    events,
    active,
    batch_rows,
    batch_offsets,
    learning_rates,
    grad_noise,
    hist_noise,
    state: ConstrainedSgdState,
    *,
    noise_multiplier: float = 0.0,
    hist_noise_multiplier: float = 0.0,
    clip: float = 1.0,
    expected_batch_size: float,
    l2: float = 0.0,
    dual_learning_rate: float = 1.0,
    bound: float = 0.0,
    temperature: float = 1.0,
    ema: float = 1.0,
    count_floor: float = 1.0,
    avg_start: int = 0,
    backend: Backend = "native",
    center=None,
    packed: Optional[PackedCsrRows] = None,
) -> ConstrainedSgdState:
    """Run T = len(learning_rates) steps of fairness-constrained DP-SGD (proxy Lagrangian) on a logistic model.

    Records fall into histogram cells (k, e, p): group ``groups[i]`` in 0..K-1, event ``events[i]`` in 0..E-1
    (E = len(active); e.g. the label for equalized odds, 0 for demographic parity) and prediction p = [z_i > 0],
    z_i = wᵀx_i + bias. Step t, batch B_t = ``batch_rows[batch_offsets[t]:batch_offsets[t+1]]``:

    1. H_t = counts of B_t per cell + σ_h·``hist_noise[t]`` (flattened (K, E, 2)); Hbar := (1−β)Hbar + βH_t;
       Ĥ = Hbar/(1 − (1−β)^(s+1)), s the global step index (a bias-corrected moving average; β = ``ema``);
    2. n_ke = max(floor, Ĥ_ke0 + Ĥ_ke1), m_ke = min(n_ke, max(0, Ĥ_ke1)); r_ke = m_ke/n_ke,
       r_e = Σ_k m_ke/Σ_k n_ke; for events with active[e]: λ⁺_ke := max(0, λ⁺_ke + η_λ(r_ke − r_e − bound)),
       λ⁻_ke := max(0, λ⁻_ke + η_λ(r_e − r_ke − bound));
    3. μ = λ⁺ − λ⁻, κ_ke = μ_ke − Σ_j μ_je·n_je/n_e (n_e = Σ_k n_ke; 0 for inactive events);
       a_i = σ(z_i) − y_i + κ_{k(i)e(i)}·σ(z_i/τ)(1 − σ(z_i/τ))/τ; g_i = a_i·[x_i, 1] clipped to L2 norm C
       (g_i = 0 when its norm is neither finite nor <= C: a NaN a_i from a score that overflowed to inf − inf);
    4. params −= lr_t·((Σ g_i + σ_g·C·grad_noise[t])/b + l2·[w, 0]); from global step ``avg_start`` on, the
       iterates are averaged into ``avg``.

    X: (n, d) float32/float64 in any layout, or a scipy.sparse matrix (CSR; CSC/COO converted): the CSR kernel
    does O(batch non-zeros + d + KE) work per step and never densifies X. All randomness is passed in
    (grad_noise (T, d+1), hist_noise (T, 2KE) standard normals). Returns the new :class:`ConstrainedSgdState`
    (the input state is not modified).

    ``center``: a fixed, public (d,) point μ, or None: every x_i then reads as x_i − μ (z_i = wᵀ(x_i − μ) + bias,
    g_i = a_i·[x_i − μ, 1]; a CSR X stays sparse and its norms are rounded up, as in :func:`dpsgd_epochs`).

    ``packed``: :func:`pack_csr_rows` of these same ``X``, ``y`` and ``groups`` objects (checked by identity, with
    ``n_groups`` = K), so that a caller running one call per epoch packs a CSR X once; same results. Without it
    the native CSR path checks and packs X on each call.
    """
    _check_backend(backend)
    _check_packed_sources(packed, X, y, groups)
    X = _float_matrix_or_csr(X, "X")
    n, d = X.shape
    y = _float_vector(y, n, "y")
    active = np.asarray(active)
    if active.ndim != 1 or active.size == 0 or active.dtype.kind not in "biu":
        raise ValueError("active must be a non-empty 1-D array of 0/1 flags, one per event")
    active = active.astype(np.int64)
    E = active.size
    if not isinstance(state, ConstrainedSgdState):
        raise TypeError("state must be a ConstrainedSgdState (see constrained_sgd_state)")
    params = _float_vector(state.params, d + 1, "state.params")
    _all_finite(params, "state.params")
    lambdas = np.asarray(state.lambdas, dtype=np.float64)
    if lambdas.ndim != 3 or lambdas.shape[0] != 2 or lambdas.shape[2] != E or lambdas.shape[1] < 1:
        raise ValueError(f"state.lambdas must have shape (2, K, {E}), got {lambdas.shape}")
    K = lambdas.shape[1]
    if not np.all(np.isfinite(lambdas)) or np.any(lambdas < 0):
        raise ValueError("state.lambdas must be finite numbers >= 0")
    hist = np.asarray(state.hist, dtype=np.float64)
    if hist.shape != (K, E, 2):
        raise ValueError(f"state.hist must have shape ({K}, {E}, 2), got {hist.shape}")
    _all_finite(hist, "state.hist")
    avg = _float_vector(state.avg, d + 1, "state.avg")
    groups = _index_vector(groups, n, "groups")
    events = _index_vector(events, n, "events")
    if n and (groups.min() < 0 or groups.max() >= K):
        raise ValueError(f"groups must lie in 0 .. {K - 1}")
    if n and (events.min() < 0 or events.max() >= E):
        raise ValueError(f"events must lie in 0 .. {E - 1}")
    learning_rates, batch_rows, batch_offsets, T = _step_schedule(learning_rates, batch_rows, batch_offsets, n)
    grad_noise = np.asarray(grad_noise, dtype=np.float64)
    if grad_noise.shape != (T, d + 1):
        raise ValueError(f"grad_noise must have shape (T, d+1) = ({T}, {d + 1}), got {grad_noise.shape}")
    _all_finite(grad_noise, "grad_noise")
    hist_noise = np.asarray(hist_noise, dtype=np.float64)
    if hist_noise.shape != (T, 2 * K * E):
        raise ValueError(f"hist_noise must have shape (T, 2KE) = ({T}, {2 * K * E}), got {hist_noise.shape}")
    _all_finite(hist_noise, "hist_noise")
    values = {}
    for name, value in (("noise_multiplier", noise_multiplier), ("hist_noise_multiplier", hist_noise_multiplier),
                        ("l2", l2), ("dual_learning_rate", dual_learning_rate), ("bound", bound)):
        value = float(value)
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        values[name] = value
    clip = float(clip)
    if np.isnan(clip) or clip <= 0 or (values["noise_multiplier"] > 0 and not np.isfinite(clip)):
        raise ValueError(f"clip must be > 0 (inf only with noise_multiplier = 0), got {clip!r}")
    b = float(expected_batch_size)
    if not np.isfinite(b) or b <= 0:
        raise ValueError(f"expected_batch_size must be a finite number > 0, got {expected_batch_size!r}")
    temperature, ema, count_floor = float(temperature), float(ema), float(count_floor)
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    if not 0 < ema <= 1:
        raise ValueError(f"ema must lie in (0, 1], got {ema!r}")
    if not np.isfinite(count_floor) or count_floor <= 0:
        raise ValueError(f"count_floor must be a finite number > 0, got {count_floor!r}")
    config = dict(values, clip=clip, expected_batch_size=b, temperature=temperature, ema=ema, count_floor=count_floor,
                  center=_center_vector(center, d))
    args = (
        y, groups, events, active, batch_rows, batch_offsets, learning_rates, grad_noise, hist_noise, config,
        int(avg_start), int(state.step_index), int(state.avg_count), params, lambdas, hist, avg,
    )
    if backend == "numpy":
        _twin_input(X)
        _all_finite(y, "y")  # the native loops refuse a non-finite label too (when a batch visits its row)
        out = _reference.constrained_sgd_epochs(X, *args)
    elif _native_packed(packed, K, "state.lambdas has {} groups") is not None:
        out = _native().constrained_sgd_epochs_packed(packed._native, *args)
    elif _is_csr(X):
        out = _native().constrained_sgd_epochs_csr(*_csr_arrays(X), *args)
    else:
        out = _native().constrained_sgd_epochs(X, *args)
    p, lam, h, a, count, step = out
    return ConstrainedSgdState(p, lam, h, a, int(count), int(step))

__all__ += ["constrained_sgd_epochs", "constrained_sgd_state", "ConstrainedSgdState"]
