// Python binding of dpfair::values_within (the finiteness/magnitude check of X in _validation.py, the bounds check
// of FeatureDomain.contains_all); GIL released. Takes the array as it is (float32 or float64, contiguous): no copy
// of a large X.
#include <string>

#include "common.hpp"
#include "dpfair/validation.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

template <class T>
bool typed(const py::array& values, double lower, double upper, int n_threads) {
  const T* v = static_cast<const T*>(values.data());
  const py::ssize_t n = values.size();
  py::gil_scoped_release release;
  return dpfair::values_within(v, n, lower, upper, n_threads);
}

bool values_within(const py::array& values, double lower, double upper, int n_threads) {
  const bool contiguous = (values.flags() & py::array::c_style) || (values.flags() & py::array::f_style);
  if (!contiguous) throw py::value_error("values must be C- or F-contiguous");
  if (values.dtype().equal(py::dtype::of<double>())) return typed<double>(values, lower, upper, n_threads);
  if (values.dtype().equal(py::dtype::of<float>())) return typed<float>(values, lower, upper, n_threads);
  throw py::type_error("values must be float32 or float64, got " + std::string(py::str(values.dtype())));
}

}  // namespace

void bind_validation(py::module_& m) {
  m.def("values_within", &values_within, py::arg("values"), py::arg("lower"), py::arg("upper"),
        py::arg("n_threads") = 0,
        "True when lower <= value <= upper for every value (NaN fails) of a contiguous float32/float64 array of any "
        "shape; one pass on up to n_threads threads (0: all).");
}
