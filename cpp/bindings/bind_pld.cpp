// Python bindings of the PLD accountant's kernels (dpfair::pld_connect_the_dots, pld_epsilon_for_delta); GIL
// released.
#include "common.hpp"
#include "dpfair/pld.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

py::tuple pld_connect_the_dots(Doubles u, Doubles gp, Doubles gq) {
  if (u.ndim() != 1) throw py::value_error("u must be one-dimensional");
  const py::ssize_t m = u.shape(0);
  if (gp.ndim() != 1 || gp.shape(0) != m || gq.ndim() != 1 || gq.shape(0) != m) {
    throw py::value_error("u, gp and gq must have one shape (m,)");
  }
  py::array_t<double> pmf(m);
  double* out = pmf.mutable_data();
  double p_inf;
  {
    py::gil_scoped_release release;
    p_inf = dpfair::pld_connect_the_dots(u.data(), gp.data(), gq.data(), out, m);
  }
  return py::make_tuple(pmf, p_inf);
}

double pld_epsilon_for_delta(Doubles pmf, std::int64_t offset, double h, double p_inf, double delta) {
  if (pmf.ndim() != 1) throw py::value_error("pmf must be one-dimensional");
  if (!(h > 0.0)) throw py::value_error("h must be > 0");
  py::gil_scoped_release release;
  return dpfair::pld_epsilon_for_delta(pmf.data(), pmf.shape(0), offset, h, p_inf, delta);
}

}  // namespace

void bind_pld(py::module_& m) {
  m.def("pld_connect_the_dots", &pld_connect_the_dots, py::arg("u"), py::arg("gp"), py::arg("gq"),
        "(pmf, p_inf): the connect-the-dots discretisation of a worst-case pair from its tails on a loss grid (u = e^eps).");
  m.def("pld_epsilon_for_delta", &pld_epsilon_for_delta, py::arg("pmf"), py::arg("offset"), py::arg("h"),
        py::arg("p_inf"), py::arg("delta"),
        "Smallest eps >= 0 with delta(eps) <= delta for P-masses pmf at losses (offset + j)*h and p_inf at +inf.");
}
