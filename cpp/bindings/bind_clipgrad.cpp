// Python binding of dpfair::clip_group_gradients: validates arrays, passes X by pointer + element strides
// (no copy for float32/float64), releases the GIL around the C++ pass.
#include <cstdint>
#include <string>
#include <utility>

#include <pybind11/numpy.h>

#include "bindings.hpp"
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
  if (X.ndim() != 2) throw py::value_error("X must be a 2-D array (n_samples, n_features)");
  bool single = false;
  if (X.dtype().equal(py::dtype::of<float>())) {
    single = true;
  } else if (!X.dtype().equal(py::dtype::of<double>())) {
    throw py::type_error("X must be float32 or float64 in native byte order; convert with X.astype(np.float64)");
  }
  if (!X.attr("flags").attr("aligned").cast<bool>()) X = X.attr("copy")().cast<py::array>();
  const std::ptrdiff_t n = X.shape(0), d = X.shape(1);
  const auto item = static_cast<std::ptrdiff_t>(X.itemsize());
  auto element_stride = [&](int axis) -> std::ptrdiff_t {
    if (X.shape(axis) <= 1) return 0;  // never stepped; NumPy may store any value here
    if (X.strides(axis) % item != 0) throw py::value_error("X has strides that are not a multiple of its item size");
    return X.strides(axis) / item;
  };
  const std::ptrdiff_t rs = element_stride(0), cs = element_stride(1);
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
      dpfair::clip_group_gradients(static_cast<const float*>(X.data()), n, d, rs, cs, yp, wp, bias, rp, n_rows, gp,
                                   cp, K, threshold, l2, sp, ap, bp, n_threads);
    } else {
      dpfair::clip_group_gradients(static_cast<const double*>(X.data()), n, d, rs, cs, yp, wp, bias, rp, n_rows, gp,
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
