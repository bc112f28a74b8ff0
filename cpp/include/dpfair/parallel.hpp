// A small parallel-for over index ranges on std::thread, with exception propagation.
// No OpenMP: two OpenMP runtimes in one process crash wheels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dpfair {

// Number of worker threads to use: `requested` if > 0, else the hardware concurrency (at least 1).
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Threads for a pass of `work` units (multiply-adds, non-zeros, ...) when each thread should get at least
// `min_per_thread` units (what starting it, and zeroing and reducing its private accumulators, costs in the same
// units): min(resolve_threads(requested), floor(work / min_per_thread)), at least 1. The one home of the
// thread heuristics of poly2, logistic_newton and the CSR kernels.
inline int threads_for(double work, double min_per_thread, int requested) {
  const double most = static_cast<double>(resolve_threads(requested));
  return static_cast<int>(std::max(1.0, std::min(most, std::floor(work / min_per_thread))));
}

// Splits [0, n) into `n_chunks` contiguous chunks and calls fn(chunk_index, begin, end) for each, on up to
// `n_chunks` threads (chunk 0 runs on the calling thread). The first exception thrown by any chunk is
// rethrown on the caller after all threads have joined.
template <class Fn>
void parallel_for(std::ptrdiff_t n, int n_chunks, Fn&& fn) {
  n_chunks = static_cast<int>(std::max<std::ptrdiff_t>(1, std::min<std::ptrdiff_t>(n_chunks, n)));
  auto bounds = [&](int k) { return n * k / n_chunks; };
  if (n_chunks == 1) {
    fn(0, std::ptrdiff_t{0}, n);
    return;
  }
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto run = [&](int k) {
    try {
      fn(k, bounds(k), bounds(k + 1));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(n_chunks - 1));
  for (int k = 1; k < n_chunks; ++k) workers.emplace_back(run, k);
  run(0);
  for (auto& t : workers) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace dpfair
