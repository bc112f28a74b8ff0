#include "bindings.hpp"

void bind_poly2(pybind11::module_& m) { (void)m; }
