// Python bindings of dpfair::logistic_newton (X by pointer + element strides, not copied for float32/float64) and of
// its CSR twin; the whole fit runs with the GIL released.
#include <cstdint>
#include <string>

#include "common.hpp"
#include "dpfair/logistic.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

dpfair::LogisticNewtonOptions options(py::ssize_t d, double alpha, bool fit_intercept, int max_iter, double tol,
                                      int n_threads, const py::object& constraint, double tau, Doubles& keep) {
  dpfair::LogisticNewtonOptions opt;
  opt.alpha = alpha;
  opt.fit_intercept = fit_intercept;
  opt.max_iter = max_iter;
  opt.tol = tol;
  opt.n_threads = n_threads;
  opt.tau = tau;
  const py::ssize_t m = d + (fit_intercept ? 1 : 0);
  opt.constraint = optional_doubles(constraint, keep, [&](const Doubles& a) {
    if (a.ndim() != 1 || a.shape(0) != m) {
      throw py::value_error("constraint vector must be 1-D with length " + std::to_string(m) +
                            " (n_features, plus 1 with fit_intercept)");
    }
  });
  return opt;
}

py::array_t<double> weights(const dpfair::LogisticNewtonResult& res) {
  return py::array_t<double>(static_cast<py::ssize_t>(res.w.size()), res.w.data());
}

py::tuple logistic_newton(py::array X_in, Doubles y, double alpha, bool fit_intercept, int max_iter, double tol,
                          int n_threads, py::object constraint, double tau) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  check_length(y, X.rows, "y");
  Doubles a;
  const auto opt = options(X.cols, alpha, fit_intercept, max_iter, tol, n_threads, constraint, tau, a);
  const auto res = with_rows(X, [&](const auto* data) {
    return dpfair::logistic_newton(data, X.rows, X.cols, X.row_stride, X.col_stride, y.data(), opt);
  });
  return py::make_tuple(weights(res), res.n_iter, res.converged, res.n_passes, res.indicators);
}

py::tuple logistic_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles y,
                       double alpha, bool fit_intercept, int max_iter, double tol, int n_threads, py::object constraint,
                       double tau) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  check_length(y, X.rows, "y");
  Doubles a;
  const auto opt = options(X.cols, alpha, fit_intercept, max_iter, tol, n_threads, constraint, tau, a);
  const auto res = with_csr(X, Reads::all_rows, [&](const auto& v) { return dpfair::logistic_newton_csr(v, y.data(), opt); });
  return py::make_tuple(weights(res), res.n_iter, res.converged, res.n_passes);
}

}  // namespace

void bind_logistic(pybind11::module_& m) {
  m.def("logistic_newton", &logistic_newton, py::arg("X"), py::arg("y"), py::arg("alpha"), py::arg("fit_intercept"),
        py::arg("max_iter"), py::arg("tol"), py::arg("n_threads"), py::arg("constraint"), py::arg("tau"),
        "Exact logistic regression by damped Newton steps (see dpfair_native.kernels.logistic_newton); returns "
        "(w, n_iter, converged, n_passes, indicators).");
  m.def("logistic_newton_csr", &logistic_csr, py::arg("data"), py::arg("indices"), py::arg("indptr"),
        py::arg("n_features"), py::arg("y"), py::arg("alpha"), py::arg("fit_intercept"), py::arg("max_iter"),
        py::arg("tol"), py::arg("n_threads"), py::arg("constraint"), py::arg("tau"),
        "logistic_newton on a CSR matrix; returns (w, n_iter, converged, n_passes).");
}
