// The extension modules dpfair_native._core (portable baseline) and dpfair_native._core_avx2 (same sources built
// with -mavx2 -mfma): the only place where C++ meets Python. CMake sets DPFAIR_MODULE_NAME and DPFAIR_MODULE_ISA.
#include "bindings.hpp"

#ifndef DPFAIR_MODULE_NAME
#define DPFAIR_MODULE_NAME _core
#endif
#ifndef DPFAIR_MODULE_ISA
#define DPFAIR_MODULE_ISA "baseline"
#endif

#ifdef DPFAIR_CPU_PROBE
namespace {

// True when the CPU and the OS support AVX2 and FMA. libgcc/compiler-rt also check that the OS saves the YMM
// registers (OSXSAVE + XGETBV), which a /proc/cpuinfo flag alone does not prove.
bool cpu_supports_avx2_fma() {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace
#endif

PYBIND11_MODULE(DPFAIR_MODULE_NAME, m) {
  m.doc() = "Native kernels of dpfair_native (poly2 coefficients, noisy quadratic minimization, clipped group gradients, DP-SGD loop, logistic Newton).";
  m.attr("isa") = DPFAIR_MODULE_ISA;
#ifdef DPFAIR_CPU_PROBE
  m.def("cpu_supports_avx2_fma", &cpu_supports_avx2_fma,
        "True when this CPU and OS support AVX2 and FMA, i.e. dpfair_native._core_avx2 can run here.");
#endif
  bind_poly2(m);
  bind_quadratic(m);
  bind_clipgrad(m);
  bind_sgd(m);
  bind_logistic(m);
  bind_secure_noise(m);
  bind_contingency(m);
  bind_constrained_sgd(m);
  bind_domain(m);
  bind_special(m);
  bind_pld(m);
  bind_validation(m);
}
