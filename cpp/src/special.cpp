#include "dpfair/special.hpp"

#include <cmath>

namespace dpfair {

void normal_cdf(const double* z, double* out, std::ptrdiff_t n) {
  constexpr double kMinusInvSqrt2 = -0.70710678118654752440;
  for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = 0.5 * std::erfc(kMinusInvSqrt2 * z[i]);
}

}  // namespace dpfair
