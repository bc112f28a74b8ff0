// Python binding of dpfair::normal_cdf (the PLD accountant's tails); GIL released.
#include "common.hpp"
#include "dpfair/special.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

py::array_t<double> normal_cdf(Doubles z) {
  if (z.ndim() != 1) throw py::value_error("z must be one-dimensional");
  py::array_t<double> out(z.shape(0));
  const double* in = z.data();
  double* o = out.mutable_data();
  const py::ssize_t n = z.shape(0);
  {
    py::gil_scoped_release release;
    dpfair::normal_cdf(in, o, n);
  }
  return out;
}

}  // namespace

void bind_special(py::module_& m) {
  m.def("normal_cdf", &normal_cdf, py::arg("z"),
        "Φ(z) = erfc(−z/√2)/2 elementwise (1-D float64), accurate in relative terms in the lower tail.");
}
