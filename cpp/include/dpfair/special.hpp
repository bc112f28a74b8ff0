// Special functions of the accountants (the PLD discretisation of accountants/pld.py).
#pragma once

#include <cstddef>

namespace dpfair {

// out[i] = Φ(z[i]) = erfc(−z[i]/√2)/2, the standard normal CDF, with the relative accuracy of std::erfc in the
// lower tail (down to the smallest normal double, Φ ≈ 1e-308 at z ≈ −37.5; 0 below) and Φ(NaN) = NaN.
void normal_cdf(const double* z, double* out, std::ptrdiff_t n);

}  // namespace dpfair
