// Python binding of dpfair::clip_group_gradients: validates arrays, passes X by pointer + element strides
// (no copy for float32/float64), releases the GIL around the C++ pass.
#include <cstdint>
#include <string>
#include <utility>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "strided_matrix.hpp"
#include "dpfair/clipgrad.hpp"

namespace py = pybind11;

namespace {

using Vector = py::array_t<double, py::array::c_style | py::array::forcecast>;
using IndexVector = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

IndexVector index_vector(const py::object& obj, const char* name) {
  py::array raw = py::array::ensure(obj);
  if (!raw || raw.ndim() != 1 || (raw.dtype().kind() != 'i' && raw.dtype().kind() != 'u')) {
    throw py::type_error(std::string(name) + " must be a 1-D integer array");
  }
  return raw.cast<IndexVector>();
}

py::tuple clip_grad(py::array X, Vector y, Vector w, double bias, py::object rows_in, py::object groups_in,
                    Vector clip, double threshold, double l2, int n_threads) {
  const StridedMatrix Xs = strided_matrix(std::move(X));
  const std::ptrdiff_t n = Xs.rows, d = Xs.cols, rs = Xs.row_stride, cs = Xs.col_stride;
  const bool single = Xs.single;
  IndexVector rows = index_vector(rows_in, "rows");
  IndexVector groups = index_vector(groups_in, "groups");
  if (y.ndim() != 1 || y.shape(0) != n) throw py::value_error("y must have shape (n_samples,) matching X");
  if (w.ndim() != 1 || w.shape(0) != d) throw py::value_error("w must have shape (n_features,) matching X");
  if (groups.shape(0) != n) throw py::value_error("groups must have shape (n_samples,) matching X");
  if (clip.ndim() != 1 || clip.shape(0) < 1) throw py::value_error("clip must be a non-empty 1-D array, one bound per group");
  if (n_threads < 1) throw py::value_error("n_threads must be >= 1");
  const std::ptrdiff_t K = clip.shape(0);

  py::array_t<double> sums({K, d + 1});
  py::array_t<std::int64_t> above(K), below(K);
  double* sp = sums.mutable_data();
  std::int64_t* ap = above.mutable_data();
  std::int64_t* bp = below.mutable_data();
  const double *yp = y.data(), *wp = w.data(), *cp = clip.data();
  const std::int64_t *rp = rows.data(), *gp = groups.data();
  const std::ptrdiff_t n_rows = rows.shape(0);
  {
    py::gil_scoped_release release;
    if (single) {
      dpfair::clip_group_gradients(static_cast<const float*>(Xs.data()), n, d, rs, cs, yp, wp, bias, rp, n_rows, gp,
                                   cp, K, threshold, l2, sp, ap, bp, n_threads);
    } else {
      dpfair::clip_group_gradients(static_cast<const double*>(Xs.data()), n, d, rs, cs, yp, wp, bias, rp, n_rows, gp,
                                   cp, K, threshold, l2, sp, ap, bp, n_threads);
    }
  }
  return py::make_tuple(sums, above, below);
}

}  // namespace

void bind_clipgrad(py::module_& m) {
  m.def("clip_group_gradients", &clip_grad, py::arg("X"), py::arg("y"), py::arg("w"), py::arg("bias"),
        py::arg("rows"), py::arg("groups"), py::arg("clip"), py::arg("threshold"), py::arg("l2"),
        py::arg("n_threads"),
        "(sums (K, d+1), n_above (K,), n_below (K,)): per-group sums of per-example logistic gradients "
        "g_i = (sigmoid(z_i) - y_i)[x_i, 1] + l2 [w, 0], each scaled by min(1, clip[k]/||g_i||); counts of "
        "unclipped norms > / <= threshold (NaN: the row's own clip bound). X: float32/float64, any strides.");
}
