// Input checks that would otherwise cost NumPy several passes over a large X.
#pragma once

#include <cstddef>

namespace dpfair {

// True when every |v[i]| <= limit (so no NaN and no infinity when limit is finite): one pass, on up to `n_threads`
// threads (0: all hardware threads; small inputs run on one).
template <class T>
bool magnitudes_at_most(const T* v, std::ptrdiff_t n, double limit, int n_threads);

extern template bool magnitudes_at_most<float>(const float*, std::ptrdiff_t, double, int);
extern template bool magnitudes_at_most<double>(const double*, std::ptrdiff_t, double, int);

}  // namespace dpfair
