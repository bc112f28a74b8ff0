// Software prefetch for kernels that read rows scattered over a matrix (the DP-SGD loops, clip_group_gradients).
// Internal to the core (not part of the public C++ API).
#pragma once

#include <cstddef>

namespace dpfair {

// Asks for the cache line of p (never faults, any address). The empty volatile asm is what keeps it: a prefetch
// has no side effect, so GCC (C++ is compiled with -ffinite-loops) deleted every loop whose body was only
// prefetches — all the row prefetches of this library until session 6, found by reading the generated code.
// A no-op on compilers without __builtin_prefetch.
inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
  __asm__ volatile("" : : "r"(p));
#else
  (void)p;
#endif
}

// Asks for every cache line of [p, p + bytes).
inline void prefetch_bytes(const void* p, std::ptrdiff_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (std::ptrdiff_t off = 0; off < bytes; off += 64) prefetch(c + off);
  if (bytes > 0) prefetch(c + bytes - 1);
}

}  // namespace dpfair
