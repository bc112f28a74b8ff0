#include "bindings.hpp"

void bind_clipgrad(pybind11::module_& m) { (void)m; }
