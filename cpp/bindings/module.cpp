// The extension module dpfair_native._core: the only place where C++ meets Python.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native kernels of dpfair_native (poly2 coefficients, noisy quadratic minimization, clipped group gradients).";
  bind_poly2(m);
  bind_quadratic(m);
  bind_clipgrad(m);
  bind_sgd(m);
}
