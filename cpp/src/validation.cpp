#include "dpfair/validation.hpp"

#include <algorithm>
#include <atomic>

#include "dpfair/parallel.hpp"

namespace dpfair {

namespace {

// Blocks of 4,096 values, each tested without a branch (NaN fails every comparison); a failing block stops the
// scan.
template <class T>
bool range_within(const T* v, std::ptrdiff_t begin, std::ptrdiff_t end, double lower, double upper,
                  const std::atomic<bool>& failed) {
  constexpr std::ptrdiff_t kBlock = 4096;
  for (std::ptrdiff_t b = begin; b < end; b += kBlock) {
    const std::ptrdiff_t stop = std::min(end, b + kBlock);
    unsigned bad = 0;  // an unsigned |= vectorises (a bool &= did not)
    for (std::ptrdiff_t i = b; i < stop; ++i) {
      const double x = static_cast<double>(v[i]);
      bad |= static_cast<unsigned>(!((x >= lower) & (x <= upper)));
    }
    if (bad) return false;
    if (failed.load(std::memory_order_relaxed)) return true;  // another chunk has the answer already
  }
  return true;
}

}  // namespace

template <class T>
bool values_within(const T* v, std::ptrdiff_t n, double lower, double upper, int n_threads) {
  std::atomic<bool> failed{false};
  const int chunks = threads_for(static_cast<double>(n), 1 << 20, n_threads);
  parallel_for(n, chunks, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
    if (!range_within(v, begin, end, lower, upper, failed)) failed.store(true, std::memory_order_relaxed);
  });
  return !failed.load();
}

template bool values_within<float>(const float*, std::ptrdiff_t, double, double, int);
template bool values_within<double>(const double*, std::ptrdiff_t, double, double, int);

}  // namespace dpfair
