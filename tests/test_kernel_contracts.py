"""Kernel contracts that review 24 (native layer) found broken on inputs the other tests never built.

- contingency_g2 with transposed codes skipped the range check, and the native loop indexed its table with them: a
  code past n_categories counted into another cell (a wrong G²) or wrote past the table (heap corruption).
- scipy builds a CSR matrix whose column indices exceed its shape without a word, and its own routines (the NumPy
  twins, the estimators' products) then crash the process; the kernels now refuse it with a ValueError.
- csr_in_domain tested each stored value alone, so two values in one cell (a stale canonical flag after an in-place
  edit of X.indices) passed where their sum, which is what X holds, was outside the domain.
- ‖r·[x, 1]‖ computed as sqrt(r²(‖x‖² + 1)) read 0 when r² underflowed: a row escaped its clip.
- n_threads >= 2**31 reached pybind11, whose TypeError prints every argument, records included.
"""

import math
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

from dpfair_native import kernels

sp = pytest.importorskip("scipy.sparse")
BACKENDS = ["native", "numpy"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code", [2, 3])  # inside the table (a wrong cell), or just past it
def test_transposed_codes_outside_their_categories_are_refused(backend, code):
    codes_t = np.zeros((2, 4), dtype=np.int32)
    codes_t[0, 1] = code
    with pytest.raises(ValueError, match="codes of variable 0 must lie in 0..n_categories-1"):
        kernels.contingency_g2(codes_t, [2, 2], [[0, 1]], codes_transposed=True, backend=backend)


FAR_CODES = textwrap.dedent("""
    import numpy as np
    from dpfair_native import kernels
    for code in (-1, 300_000_000, 2**31 - 1, -2**31):
        codes_t = np.zeros((2, 4), dtype=np.int32)
        codes_t[1, 3] = code
        try:
            kernels.contingency_g2(codes_t, [2, 2], [[0, 1]], codes_transposed=True)
            print("returned")
        except ValueError as exc:
            print("ValueError", "codes of variable 1" in str(exc))
""")


def test_transposed_codes_far_outside_are_refused_not_a_crash():
    out = subprocess.run([sys.executable, "-c", FAR_CODES], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]  # such a code wrote far past the table (SIGSEGV)
    assert out.stdout.split("\n")[:4] == ["ValueError True"] * 4, out.stdout


def test_transposed_codes_must_be_int32_and_unused_variables_are_not_read():
    with pytest.raises(ValueError, match="must be int32"):
        kernels.contingency_g2(np.zeros((2, 4), dtype=np.int64) + 2**32, [2, 2], [[0, 1]], codes_transposed=True)
    codes_t = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [9, 9, 9, 9]], dtype=np.int32)  # variable 2: no test uses it
    got = [kernels.contingency_g2(codes_t, [2, 2, 2], [[0, 1]], codes_transposed=True, backend=b) for b in BACKENDS]
    np.testing.assert_allclose(got[0], got[1], rtol=1e-12)


def test_contingency_max_cells_beyond_int64_is_a_clear_error():
    with pytest.raises(ValueError, match="below 2\\*\\*63"):
        kernels.contingency_g2(np.array([[0, 1], [1, 1], [1, 0]]), [2, 2], [[0, 1]], max_cells=2**64)


MALFORMED_CSR = textwrap.dedent("""
    import numpy as np, scipy.sparse as sp, warnings
    from dpfair_native import kernels as K
    from dpfair_native.domain import FeatureDomain
    from dpfair_native.feature_selection import relevance_scores
    from dpfair_native.models import DPSGDClassifier, FunctionalMechanismLR
    warnings.simplefilter("ignore")
    for bad, fmt in ((4, "csr"), (2**40, "csr"), (2**40, "csc"), (10**7, "coo")):
        X = sp.csr_matrix((np.ones(3), np.array([0, bad, 1], dtype=np.int64), np.array([0, 2, 3, 3])), shape=(3, 4))
        if fmt == "csc":
            X = sp.csc_matrix((np.ones(3), np.array([0, bad, 1], dtype=np.int64), np.array([0, 2, 3, 3, 3])),
                              shape=(3, 4))
        elif fmt == "coo":
            X = sp.coo_matrix((np.ones(3), (np.array([0, 1, 2]), np.array([0, 1, 2]))), shape=(3, 4))
            X.col[1] = bad  # in place: scipy checked the coordinates when it built X, not since
        y = np.array([0.0, 1.0, 1.0])
        calls = {
            "poly2 numpy": lambda: K.poly2_coefficients(X, y, np.ones(3), backend="numpy"),
            "dpsgd secure": lambda: K.dpsgd_epochs(X, y, np.zeros(5), np.array([0, 1]), np.array([0, 2]), np.ones(1),
                                                   np.zeros((1, 5)), clip=1.0, expected_batch_size=2.0,
                                                   secure_key=bytes(32)),
            "FM fit": lambda: FunctionalMechanismLR(epsilon=1.0, random_state=0).fit(X, y),
            "DPSGD fit numpy": lambda: DPSGDClassifier(noise_multiplier=1.0, batch_size=2, epochs=1, backend="numpy",
                                                       random_state=0).fit(X, y),
            "poly2 native": lambda: K.poly2_coefficients(X, y, np.ones(3)),
            "relevance scores": lambda: relevance_scores(X, y, FeatureDomain.unit_box(4), 0.5),
            "domain check": lambda: FeatureDomain.unit_box(4).contains_all(X),
        }
        for name, call in calls.items():
            try:
                call()
                print(name, "returned")
            except ValueError as exc:
                said = str(exc)  # the native kernels' own check of a CSR, or the structure check of the rest
                clear = f"not a valid {fmt.upper()} matrix" in said or "outside 0 .. n_features" in said
                print(name, "ValueError", clear)
""")


def test_sparse_input_whose_indices_exceed_its_shape_is_refused_not_a_crash():
    out = subprocess.run([sys.executable, "-c", MALFORMED_CSR], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]  # a crash in scipy kills the process (SIGSEGV / SIGABRT)
    lines = out.stdout.splitlines()
    assert len(lines) == 28 and all(line.endswith("ValueError True") for line in lines), out.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_duplicates_behind_a_stale_canonical_flag_are_refused_by_the_domain_check(backend):
    X = sp.csr_matrix((np.array([1.5, 0.25]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert X.has_canonical_format
    X.indices[1] = 0  # in place: scipy keeps its cached flag; the cell (0, 0) now holds 1.5 + 0.25 for scipy
    with pytest.raises(ValueError, match="duplicate entries"):
        kernels.csr_in_domain(X, np.zeros(2), np.full(2, 1.6), backend=backend)
    with pytest.raises(ValueError, match="duplicate entries"):  # also where a value fails on its own
        kernels.csr_in_domain(X, np.zeros(2), np.full(2, 1.0), backend=backend)


def _exact_norm(v):
    return float(sum(Fraction(float(t)) ** 2 for t in v)) ** 0.5


@pytest.mark.parametrize("layout", ["C", "F", "CSR"])
def test_a_residual_whose_square_underflows_is_still_clipped(layout):
    """x = (1e153, 1e153), score −373, label 0: r = σ(−373) ≈ 1e-162, so r² underflows to 0 while the gradient's
    norm |r|·‖[x, 1]‖ is 1.4e-9, 14 times the bound. (Native only: the twin's residual 0.5(1 + tanh(z/2)) − y is
    exactly 0 at this score, so it has nothing to clip.)"""
    X = np.array([[1e153, 1e153], [1e153, 1e153]])
    X = sp.csr_matrix(X) if layout == "CSR" else np.asarray(X, order=layout)
    C = 1e-10
    sums, above, _ = kernels.clip_group_gradients(X, np.zeros(2), np.zeros(2), -373.0, np.array([0]),
                                                  np.zeros(2, dtype=np.int64), [C])
    assert above[0] == 1 and C * (1 - 1e-15) <= _exact_norm(sums[0]) <= C * (1 + 1e-15)


def test_dpsgd_on_a_column_strided_x_clips_such_a_row():
    X = np.asfortranarray([[1e153, 1e153], [1e153, 1e153]])
    params, _ = kernels.dpsgd_epochs(X, np.zeros(2), np.array([0.0, 0.0, -373.0]), np.array([0]), np.array([0, 1]),
                                     np.ones(1), np.zeros((1, 3)), clip=1e-10, expected_batch_size=1.0)
    assert _exact_norm(params[:2]) <= 1e-10 * (1 + 1e-15)


@pytest.mark.parametrize("call", [
    lambda X, y: kernels.clip_group_gradients(X, y, np.zeros(2), 0.0, [0, 1], [0, 0, 0], [1.0], n_threads=2**31),
    lambda X, y: kernels.values_within(X, -1, 1, n_threads=2**31),
    lambda X, y: kernels.poly2_coefficients(X, y, 1.0, n_threads=2**40),
], ids=["clip", "values_within", "poly2"])
def test_thread_counts_beyond_a_c_int_get_a_message_without_the_records(call):
    X, y = np.full((3, 2), 0.4242424242), np.array([0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="n_threads must be a positive integer below 2\\*\\*31") as error:
        call(X, y)
    assert "0.4242" not in str(error.value)


def test_the_memory_check_counts_the_threads_a_small_x_would_start():
    b, Q, _, _ = kernels.poly2_coefficients(np.ones((5, 300)), 1.0, 1.0, n_threads=2**31 - 1)  # was "needs 1.5 PiB"
    assert Q.shape == (300, 300) and b[0] == 5.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_non_finite_label_is_refused_by_every_sgd_loop(backend):
    X, y = np.ones((4, 2)), np.array([0.0, 1.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="y"):
        kernels.dpsgd_epochs(X, y, np.zeros(3), np.array([0, 1, 2, 3]), np.array([0, 4]), np.ones(1),
                             np.zeros((1, 3)), clip=1.0, expected_batch_size=4.0, backend=backend)


def test_a_center_on_zero_rows_runs_natively_as_in_the_twin():
    X = np.zeros((0, 3))
    out = [kernels.dpsgd_epochs(X, np.zeros(0), np.zeros(4), np.zeros(0, dtype=np.int64), np.array([0, 0]),
                                np.ones(1), np.ones((1, 4)), clip=1.0, noise_multiplier=1.0,
                                expected_batch_size=1.0, center=np.zeros(3), backend=b)[0] for b in BACKENDS]
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


def test_pld_epsilon_at_an_offset_near_the_int64_limit_matches_the_twin():
    pmf = np.array([0.5, 0.5])
    got = [kernels.pld_epsilon_for_delta(pmf, 2**63 - 1, 1e-17, 0.0, 1e-5, backend=b) for b in BACKENDS]
    loss = (2**63 - 1) * 1e-17  # both losses, (2^63 − 1 + j)·1e-17, round to this: δ(ε) = 1 − e^(ε − loss)
    assert got[0] == got[1] == pytest.approx(loss + math.log1p(-1e-5), rel=1e-12)


def test_a_shift_lost_to_rounding_is_not_blamed_on_floor_plus_ridge():
    A = np.random.default_rng(0).standard_normal((5, 5))
    for backend in BACKENDS:
        with pytest.raises(ValueError, match="below rounding"):
            kernels.minimize_quadratic((A + A.T) * 1e8, np.ones(5), psd="shift", backend=backend)


def test_the_domain_check_reads_no_column_index_unchecked_after_an_early_failure():
    """Row 0 fails the bounds, so the pass stops before row 1, whose column index is past the shape; the duplicate
    scan that follows a failure then read it as an index into its own array (a write past it)."""
    X = sp.csr_matrix((np.array([5.0, 1.0]), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 3))
    X.indices[1] = 8  # in place, past the 3 columns
    with pytest.raises(ValueError, match="outside 0 .. n_features-1"):
        kernels.csr_in_domain(X, np.zeros(3), np.ones(3))
