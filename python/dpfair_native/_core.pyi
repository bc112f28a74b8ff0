"""Type stubs of the native extension (the portable build; ``_core_avx2`` has the same kernels).

Call these through :mod:`dpfair_native.kernels`, which validates inputs and documents the math; the functions here
take already-validated arrays and raise ValueError on bad shapes, dtypes or non-finite values.
"""

import enum
from typing import Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt

isa: str

class QuadraticSolution:
    """Result of minimize_quadratic (read-only fields; the NumPy twin is _reference.QuadraticSolution)."""

    @property
    def w(self) -> npt.NDArray[np.float64]: ...
    @property
    def n_trimmed(self) -> int: ...
    @property
    def shift(self) -> float: ...
    @property
    def lambda_min(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def converged(self) -> bool: ...
    @property
    def constraint_active(self) -> bool: ...
    @property
    def multiplier(self) -> float: ...

class ClipRule(enum.Enum):
    """How a DP-SGD step chooses its per-group clip bounds and weights."""

    fixed = 0
    dpsgdf = 1
    naive = 2

class NoiseRule(enum.Enum):
    """How a DP-SGD step scales its Gaussian noise from the group sensitivities."""

    shared = 0
    per_group = 1

def cpu_supports_avx2_fma() -> bool: ...
def poly2_coefficients(
    X: npt.NDArray[np.floating],
    a: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    groups: Optional[npt.NDArray[np.int64]],
    n_groups: Optional[int],
    n_threads: int,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
def minimize_quadratic(
    Q: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    ridge: float,
    psd: str,
    floor: float,
    solver: str,
    a: Optional[npt.NDArray[np.float64]],
    tau: Optional[float],
    tol: float,
    max_iter: int,
) -> QuadraticSolution: ...
def clip_group_gradients(
    X: npt.NDArray[np.floating],
    y: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    bias: float,
    rows: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64],
    clip: npt.NDArray[np.float64],
    threshold: Optional[float],
    l2: float,
    n_threads: int,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def dpsgd_epochs(
    X: npt.NDArray[np.floating],
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    clip: npt.NDArray[np.float64],
    group_weights: Optional[npt.NDArray[np.float64]],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: Optional[npt.NDArray[np.float64]],
    count_noise: Optional[npt.NDArray[np.float64]],
    rule: ClipRule,
    noise: NoiseRule,
    noise_multiplier: float,
    count_noise_multiplier: float,
    expected_batch_size: float,
    l2: float,
    weight_bound: float,
    params: npt.NDArray[np.float64],
    secure_key: Optional[bytes] = None,
    grid_inflation: float = 1e-4,
    center: Optional[npt.NDArray[np.float64]] = None,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def logistic_newton(
    X: npt.NDArray[np.floating],
    y: npt.NDArray[np.float64],
    alpha: float,
    fit_intercept: bool,
    max_iter: int,
    tol: float,
    n_threads: int,
    constraint: Optional[npt.NDArray[np.float64]],
    tau: float,
) -> Tuple[npt.NDArray[np.float64], int, bool, int, bool]: ...
def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes: ...
def discrete_gaussian_noise(key: bytes, size: int, sigma2_num: int, sigma2_den: int) -> npt.NDArray[np.int64]: ...
def discrete_laplace_noise(key: bytes, size: int, scale_num: int, scale_den: int) -> npt.NDArray[np.int64]: ...
def secure_poisson_slots(key: bytes, total: int, lambda_den: int, lambda_num: int) -> npt.NDArray[np.int64]: ...
def secure_row_units(
    X: npt.NDArray[np.float64],
    coef: npt.NDArray[np.float64],
    gamma: float,
    limit: int,
    center: Optional[npt.NDArray[np.float64]] = None,
) -> npt.NDArray[np.int64]: ...
def contingency_g2(
    codes_t: npt.NDArray[np.int32],
    n_categories: npt.NDArray[np.int64],
    tests: npt.NDArray[np.int64],
    max_cells: int,
    n_threads: int,
) -> npt.NDArray[np.float64]: ...

# CSR kernels: X as scipy.sparse's (data float32/float64, indices, indptr both int32 or both int64) and n_features.
def poly2_coefficients_csr(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    a: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    groups: Optional[npt.NDArray[np.int64]],
    n_groups: Optional[int],
    n_threads: int,
    one_hot_of: Optional[npt.NDArray[np.int64]] = None,
    n_one_hot: int = 0,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
def csr_in_domain(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
    group_of: npt.NDArray[np.int64],
    n_groups: int,
    l1_cap: float = ...,
    l2_cap: float = ...,
    n_threads: int = ...,
) -> bool: ...
def normal_cdf(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
def pld_connect_the_dots(
    u: npt.NDArray[np.float64], gp: npt.NDArray[np.float64], gq: npt.NDArray[np.float64]
) -> Tuple[npt.NDArray[np.float64], float]: ...
def pld_epsilon_for_delta(pmf: npt.NDArray[np.float64], offset: int, h: float, p_inf: float, delta: float) -> float: ...
def values_within(values: npt.NDArray[np.floating], lower: float, upper: float, n_threads: int = ...) -> bool: ...
def clip_group_gradients_csr(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    y: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    bias: float,
    rows: npt.NDArray[np.int64],
    groups: npt.NDArray[np.int64],
    clip: npt.NDArray[np.float64],
    threshold: Optional[float],
    l2: float,
    n_threads: int,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def dpsgd_epochs_csr(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    clip: npt.NDArray[np.float64],
    group_weights: Optional[npt.NDArray[np.float64]],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: Optional[npt.NDArray[np.float64]],
    count_noise: Optional[npt.NDArray[np.float64]],
    rule: ClipRule,
    noise: NoiseRule,
    noise_multiplier: float,
    count_noise_multiplier: float,
    expected_batch_size: float,
    l2: float,
    weight_bound: float,
    params: npt.NDArray[np.float64],
    center: Optional[npt.NDArray[np.float64]] = None,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
class PackedCsr:
    def __init__(
        self,
        data: npt.NDArray[np.floating],
        indices: npt.NDArray[np.integer],
        indptr: npt.NDArray[np.integer],
        n_features: int,
        y: npt.NDArray[np.float64],
        groups: npt.NDArray[np.int64],
        n_groups: int,
    ) -> None: ...
    @property
    def shape(self) -> Tuple[int, int]: ...
    @property
    def n_groups(self) -> int: ...

def dpsgd_epochs_packed(
    packed: PackedCsr,
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    clip: npt.NDArray[np.float64],
    group_weights: Optional[npt.NDArray[np.float64]],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: Optional[npt.NDArray[np.float64]],
    count_noise: Optional[npt.NDArray[np.float64]],
    rule: ClipRule,
    noise: NoiseRule,
    noise_multiplier: float,
    count_noise_multiplier: float,
    expected_batch_size: float,
    l2: float,
    weight_bound: float,
    params: npt.NDArray[np.float64],
    center: Optional[npt.NDArray[np.float64]] = None,
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def logistic_newton_csr(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    y: npt.NDArray[np.float64],
    alpha: float,
    fit_intercept: bool,
    max_iter: int,
    tol: float,
    n_threads: int,
    constraint: Optional[npt.NDArray[np.float64]],
    tau: float,
) -> Tuple[npt.NDArray[np.float64], int, bool, int]: ...
def constrained_sgd_epochs(
    X: npt.NDArray[np.floating],
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    events: npt.NDArray[np.int64],
    active: npt.NDArray[np.int64],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: npt.NDArray[np.float64],
    hist_noise: npt.NDArray[np.float64],
    config: Dict[str, float],
    avg_start: int,
    step_index: int,
    avg_count: int,
    params: npt.NDArray[np.float64],
    lambdas: npt.NDArray[np.float64],
    hist: npt.NDArray[np.float64],
    avg: npt.NDArray[np.float64],
) -> Tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int, int
]: ...
def constrained_sgd_epochs_csr(
    data: npt.NDArray[np.floating],
    indices: npt.NDArray[np.integer],
    indptr: npt.NDArray[np.integer],
    n_features: int,
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    events: npt.NDArray[np.int64],
    active: npt.NDArray[np.int64],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: npt.NDArray[np.float64],
    hist_noise: npt.NDArray[np.float64],
    config: Dict[str, float],
    avg_start: int,
    step_index: int,
    avg_count: int,
    params: npt.NDArray[np.float64],
    lambdas: npt.NDArray[np.float64],
    hist: npt.NDArray[np.float64],
    avg: npt.NDArray[np.float64],
) -> Tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int, int
]: ...
def constrained_sgd_epochs_packed(
    packed: PackedCsr,
    y: npt.NDArray[np.float64],
    groups: npt.NDArray[np.int64],
    events: npt.NDArray[np.int64],
    active: npt.NDArray[np.int64],
    batch_rows: npt.NDArray[np.int64],
    batch_offsets: npt.NDArray[np.int64],
    learning_rates: npt.NDArray[np.float64],
    grad_noise: npt.NDArray[np.float64],
    hist_noise: npt.NDArray[np.float64],
    config: Dict[str, float],
    avg_start: int,
    step_index: int,
    avg_count: int,
    params: npt.NDArray[np.float64],
    lambdas: npt.NDArray[np.float64],
    hist: npt.NDArray[np.float64],
    avg: npt.NDArray[np.float64],
) -> Tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int, int
]: ...
