// Privacy-loss-distribution kernels of the PLD accountant (accountants/pld.py): the connect-the-dots
// discretisation of one worst-case pair and ε(δ) of a discretised PLD. Their NumPy twins in _reference.py are the
// specification (same operations in the same order; only exp may differ in the last bit, and the
// discretisation takes e^ε from the caller, so it is bit-identical to its twin).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpfair {

// u[i] = e^{ε_i} for the losses ε_0 < ... < ε_{m−1} of a grid (+∞ where e^ε overflows), gp[i] = P(L > ε_i) and
// gq[i] = Q(L > ε_i) of the pair (P, Q) (first clipped to [0, 1] and made non-increasing). Each bucket
// (ε_{i−1}, ε_i] becomes two atoms, at its ends, with the bucket's P- and Q-masses (Q-mass
// a = (P(B) − u_{i−1} Q(B)) / (u_i − u_{i−1}) at the top, clipped to [0, Q(B)]; a bucket without Q-mass keeps its
// P-mass at the top), P(L <= ε_0) goes to ε_0. Writes the P-masses to pmf (m values) and returns P(L > ε_{m−1}),
// the mass moved to +∞.
double pld_connect_the_dots(const double* u, const double* gp, const double* gq, double* pmf, std::ptrdiff_t m);

// The smallest ε >= 0 with δ(ε) = p_inf + Σ_{ε_j > ε} pmf_j (1 − e^{ε − ε_j}) <= delta for the P-masses pmf at the
// losses ε_j = (offset + j)·h (j < n, h > 0) and p_inf at +∞; +∞ when p_inf > delta or when δ is only met past
// ε ≈ 700 (where e^ε overflows).
double pld_epsilon_for_delta(const double* pmf, std::ptrdiff_t n, std::int64_t offset, double h, double p_inf,
                             double delta);

}  // namespace dpfair
