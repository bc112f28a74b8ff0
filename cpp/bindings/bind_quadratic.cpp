#include "bindings.hpp"

void bind_quadratic(pybind11::module_& m) { (void)m; }
