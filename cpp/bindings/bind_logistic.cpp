// Python binding of dpfair::logistic_newton: checks shapes, passes X by pointer + element strides (no copy for
// float32/float64), runs the whole fit with the GIL released.
#include <cstdint>
#include <string>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "dpfair/logistic.hpp"

namespace py = pybind11;

namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <class T>
dpfair::LogisticNewtonResult run(const py::array& X, const Doubles& y, const dpfair::LogisticNewtonOptions& opt) {
  const auto item = static_cast<std::ptrdiff_t>(sizeof(T));
  if (X.strides(0) % item != 0 || X.strides(1) % item != 0) throw py::value_error("X strides must be whole elements");
  const T* data = static_cast<const T*>(X.data());
  const std::ptrdiff_t n = X.shape(0), d = X.shape(1), rs = X.strides(0) / item, cs = X.strides(1) / item;
  py::gil_scoped_release release;
  return dpfair::logistic_newton<T>(data, n, d, rs, cs, y.data(), opt);
}

py::tuple logistic_newton(py::array X, Doubles y, double alpha, bool fit_intercept, int max_iter, double tol,
                          int n_threads, py::object constraint, double tau) {
  if (X.ndim() != 2) throw py::value_error("X must be a 2-D array (n_samples, n_features)");
  const bool single = X.dtype().equal(py::dtype::of<float>());
  if (!single && !X.dtype().equal(py::dtype::of<double>())) {
    throw py::type_error("X must be float32 or float64 in native byte order; convert with X.astype(np.float64)");
  }
  if (!X.attr("flags").attr("aligned").cast<bool>()) X = X.attr("copy")().cast<py::array>();
  const py::ssize_t n = X.shape(0), d = X.shape(1);
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
    res = single ? run<float>(X, y, opt) : run<double>(X, y, opt);
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
