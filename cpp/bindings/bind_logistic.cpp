// Python binding of dpfair::logistic_newton: checks shapes, passes X by pointer + element strides (no copy for
// float32/float64), runs the whole fit with the GIL released.
#include <cstdint>
#include <string>
#include <utility>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "strided_matrix.hpp"
#include "dpfair/logistic.hpp"

namespace py = pybind11;

namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <class T>
dpfair::LogisticNewtonResult run(const StridedMatrix& X, const Doubles& y, const dpfair::LogisticNewtonOptions& opt) {
  py::gil_scoped_release release;
  return dpfair::logistic_newton<T>(static_cast<const T*>(X.data()), X.rows, X.cols, X.row_stride, X.col_stride,
                                    y.data(), opt);
}

py::tuple logistic_newton(py::array X_in, Doubles y, double alpha, bool fit_intercept, int max_iter, double tol,
                          int n_threads, py::object constraint, double tau) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  const py::ssize_t n = X.rows, d = X.cols;
  if (y.ndim() != 1 || y.shape(0) != n) throw py::value_error("y must be 1-D with length " + std::to_string(n));
  dpfair::LogisticNewtonOptions opt;
  opt.alpha = alpha;
  opt.fit_intercept = fit_intercept;
  opt.max_iter = max_iter;
  opt.tol = tol;
  opt.n_threads = n_threads;
  opt.tau = tau;
  Doubles a;
  if (!constraint.is_none()) {
    a = constraint.cast<Doubles>();
    const py::ssize_t m = d + (fit_intercept ? 1 : 0);
    if (a.ndim() != 1 || a.shape(0) != m) {
      throw py::value_error("constraint vector must be 1-D with length " + std::to_string(m) +
                            " (n_features, plus 1 with fit_intercept)");
    }
    opt.constraint = a.data();
  }
  dpfair::LogisticNewtonResult res;
  try {
    res = X.single ? run<float>(X, y, opt) : run<double>(X, y, opt);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  py::array_t<double> w(static_cast<py::ssize_t>(res.w.size()));
  std::copy(res.w.begin(), res.w.end(), w.mutable_data());
  return py::make_tuple(w, res.n_iter, res.converged, res.n_passes, res.indicators);
}

}  // namespace

void bind_logistic(pybind11::module_& m) {
  m.def("logistic_newton", &logistic_newton, py::arg("X"), py::arg("y"), py::arg("alpha"), py::arg("fit_intercept"),
        py::arg("max_iter"), py::arg("tol"), py::arg("n_threads"), py::arg("constraint"), py::arg("tau"),
        "Exact logistic regression by damped Newton steps (see dpfair_native.kernels.logistic_newton); returns "
        "(w, n_iter, converged, n_passes, indicators).");
}
