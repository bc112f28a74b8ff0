// Input checks that would otherwise cost NumPy several passes over a large X.
#pragma once

#include <cstddef>

namespace dpfair {

// True when lower <= v[i] <= upper for every i (NaN fails): one pass, on up to `n_threads` threads (0: all hardware
// threads; small inputs run on one). With lower = −limit, upper = limit it is the finiteness/magnitude check of X.
template <class T>
bool values_within(const T* v, std::ptrdiff_t n, double lower, double upper, int n_threads);

extern template bool values_within<float>(const float*, std::ptrdiff_t, double, double, int);
extern template bool values_within<double>(const double*, std::ptrdiff_t, double, double, int);

}  // namespace dpfair
