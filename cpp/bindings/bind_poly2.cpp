// Python binding of dpfair::poly2_coefficients: validates arrays, passes X by pointer + element strides
// (no copy for float32/float64), releases the GIL around the C++ pass.
#include <algorithm>
#include <cstdint>
#include <string>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "strided_matrix.hpp"
#include "dpfair/poly2.hpp"

namespace py = pybind11;

namespace {

using Vector = py::array_t<double, py::array::c_style | py::array::forcecast>;

py::tuple poly2(py::array X_in, Vector a, Vector c, py::object groups_in, std::int64_t n_groups, int n_threads) {
  StridedMatrix X = strided_matrix(std::move(X_in));
  const std::ptrdiff_t n = X.rows, d = X.cols;
  if (a.ndim() != 1 || a.shape(0) != n) throw py::value_error("a must have shape (n_samples,) matching X");
  if (c.ndim() != 1 || c.shape(0) != n) throw py::value_error("c must have shape (n_samples,) matching X");
  if (n_threads < 1) throw py::value_error("n_threads must be >= 1");
  py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> groups;
  const std::int64_t* gptr = nullptr;
  std::ptrdiff_t K = 0;
  if (!groups_in.is_none()) {
    py::array graw = py::array::ensure(groups_in);
    if (!graw || (graw.dtype().kind() != 'i' && graw.dtype().kind() != 'u')) {
      throw py::type_error("groups must be an integer array");
    }
    groups = graw.cast<decltype(groups)>();
    if (groups.ndim() != 1 || groups.shape(0) != n) throw py::value_error("groups must have shape (n_samples,)");
    gptr = groups.data();
    if (n_groups < 0) {
      std::int64_t top = -1;
      for (std::ptrdiff_t i = 0; i < n; ++i) top = std::max(top, gptr[i]);
      n_groups = top + 1;
    }
    K = static_cast<std::ptrdiff_t>(n_groups);
  }
  py::array_t<double> b(d);
  py::array_t<double> Q({d, d});
  py::array_t<double> gsums({K, d});
  py::array_t<std::int64_t> gcounts(K);
  double* bp = b.mutable_data();
  double* qp = Q.mutable_data();
  double* gp = gsums.mutable_data();
  std::int64_t* cp = gcounts.mutable_data();
  const double* ap = a.data();
  const double* cwp = c.data();
  {
    py::gil_scoped_release release;
    if (X.single) {
      dpfair::poly2_coefficients(static_cast<const float*>(X.keep.data()), n, d, X.row_stride, X.col_stride, ap,
                                 cwp, gptr, K, bp, qp, gp, cp, n_threads);
    } else {
      dpfair::poly2_coefficients(static_cast<const double*>(X.keep.data()), n, d, X.row_stride, X.col_stride, ap,
                                 cwp, gptr, K, bp, qp, gp, cp, n_threads);
    }
  }
  return py::make_tuple(b, Q, gsums, gcounts);
}

}  // namespace

void bind_poly2(py::module_& m) {
  m.def("poly2_coefficients", &poly2, py::arg("X"), py::arg("a"), py::arg("c"), py::arg("groups"),
        py::arg("n_groups"), py::arg("n_threads"),
        "(b, Q, group_sums, group_counts) with b = sum a_i x_i, Q = sum c_i x_i x_i^T (full symmetric), "
        "group sums/counts of X's rows (zero rows without groups). X: float32/float64, any strides (not copied). "
        "n_groups = -1: max(groups) + 1.");
}
