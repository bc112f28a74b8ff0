#include "bindings.hpp"

void bind_sgd(pybind11::module_& m) { (void)m; }
