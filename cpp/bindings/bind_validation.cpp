// Python binding of dpfair::magnitudes_at_most (the finiteness/magnitude check of X in _validation.py); GIL
// released. Takes the array as it is (float32 or float64, contiguous): no copy of a large X.
#include <string>

#include "common.hpp"
#include "dpfair/validation.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

template <class T>
bool typed(const py::array& values, double limit, int n_threads) {
  const T* v = static_cast<const T*>(values.data());
  const py::ssize_t n = values.size();
  py::gil_scoped_release release;
  return dpfair::magnitudes_at_most(v, n, limit, n_threads);
}

bool magnitudes_at_most(const py::array& values, double limit, int n_threads) {
  const bool contiguous = (values.flags() & py::array::c_style) || (values.flags() & py::array::f_style);
  if (!contiguous) throw py::value_error("values must be C- or F-contiguous");
  if (values.dtype().equal(py::dtype::of<double>())) return typed<double>(values, limit, n_threads);
  if (values.dtype().equal(py::dtype::of<float>())) return typed<float>(values, limit, n_threads);
  throw py::type_error("values must be float32 or float64, got " + std::string(py::str(values.dtype())));
}

}  // namespace

void bind_validation(py::module_& m) {
  m.def("magnitudes_at_most", &magnitudes_at_most, py::arg("values"), py::arg("limit"), py::arg("n_threads") = 0,
        "True when every |value| <= limit (NaN fails) over a contiguous float32/float64 array of any shape; one "
        "pass on up to n_threads threads (0: all).");
}
