// Python bindings of dpfair::clip_group_gradients (X by pointer + element strides, not copied for float32/float64)
// and of its CSR twin; the GIL is released around the C++ pass.
#include <cstdint>
#include <limits>
#include <optional>

#include "common.hpp"
#include "dpfair/clipgrad.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

// The core's encoding of "no threshold: count against each row's own clip bound" is NaN.
double own_bound_or(std::optional<double> threshold) {
  return threshold ? *threshold : std::numeric_limits<double>::quiet_NaN();
}

// The arguments both variants share, checked against n rows and d columns, and the outputs.
struct ClipCall {
  Int64s rows, groups;
  std::ptrdiff_t K = 0;
  py::array_t<double> sums;
  py::array_t<std::int64_t> above, below;

  ClipCall(py::ssize_t n, py::ssize_t d, const Doubles& y, const Doubles& w, const py::object& rows_in,
           const py::object& groups_in, const Doubles& clip, int n_threads)
      : rows(index_vector(rows_in, "rows")), groups(index_vector(groups_in, "groups")) {
    check_length(y, n, "y");
    check_length(w, d, "w");
    check_length(groups, n, "groups");
    if (clip.ndim() != 1 || clip.shape(0) < 1) throw py::value_error("clip must be a non-empty 1-D array, one bound per group");
    if (n_threads < 1) throw py::value_error("n_threads must be >= 1");
    K = clip.shape(0);
    sums = py::array_t<double>({K, static_cast<std::ptrdiff_t>(d + 1)});
    above = py::array_t<std::int64_t>(K);
    below = py::array_t<std::int64_t>(K);
  }
  py::tuple tuple() const { return py::make_tuple(sums, above, below); }
};

py::tuple clip_grad(py::array X_in, Doubles y, Doubles w, double bias, py::object rows_in, py::object groups_in,
                    Doubles clip, std::optional<double> threshold, double l2, int n_threads) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  ClipCall call(X.rows, X.cols, y, w, rows_in, groups_in, clip, n_threads);
  double* sp = call.sums.mutable_data();
  std::int64_t *ap = call.above.mutable_data(), *bp = call.below.mutable_data();
  const std::int64_t *rp = call.rows.data(), *gp = call.groups.data();
  const std::ptrdiff_t m = call.rows.shape(0), K = call.K;
  with_rows(X, [&](const auto* data) {
    dpfair::clip_group_gradients(data, X.rows, X.cols, X.row_stride, X.col_stride, y.data(), w.data(), bias, rp, m,
                                 gp, clip.data(), K, own_bound_or(threshold), l2, sp, ap, bp, n_threads);
  });
  return call.tuple();
}

py::tuple clip_grad_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles y,
                        Doubles w, double bias, py::object rows_in, py::object groups_in, Doubles clip,
                        std::optional<double> threshold, double l2, int n_threads) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  ClipCall call(X.rows, X.cols, y, w, rows_in, groups_in, clip, n_threads);
  double* sp = call.sums.mutable_data();
  std::int64_t *ap = call.above.mutable_data(), *bp = call.below.mutable_data();
  const std::int64_t *rp = call.rows.data(), *gp = call.groups.data();
  const std::ptrdiff_t m = call.rows.shape(0), K = call.K;
  with_csr(X, Reads::some_rows, [&](const auto& v) {
    dpfair::clip_group_gradients_csr(v, y.data(), w.data(), bias, rp, m, gp, clip.data(), K, own_bound_or(threshold), l2, sp, ap,
                                     bp, n_threads);
  });
  return call.tuple();
}

}  // namespace

void bind_clipgrad(py::module_& m) {
  m.def("clip_group_gradients", &clip_grad, py::arg("X"), py::arg("y"), py::arg("w"), py::arg("bias"),
        py::arg("rows"), py::arg("groups"), py::arg("clip"), py::arg("threshold"), py::arg("l2"),
        py::arg("n_threads"),
        "(sums (K, d+1), n_above (K,), n_below (K,)): per-group sums of per-example logistic gradients "
        "g_i = (sigmoid(z_i) - y_i)[x_i, 1] + l2 [w, 0], each scaled by min(1, clip[k]/||g_i||); counts of "
        "unclipped norms > / <= threshold (None: the row's own clip bound). X: float32/float64, any strides.");
  m.def("clip_group_gradients_csr", &clip_grad_csr, py::arg("data"), py::arg("indices"), py::arg("indptr"),
        py::arg("n_features"), py::arg("y"), py::arg("w"), py::arg("bias"), py::arg("rows"), py::arg("groups"),
        py::arg("clip"), py::arg("threshold"), py::arg("l2"), py::arg("n_threads"),
        "clip_group_gradients on a CSR matrix; returns (sums, n_above, n_below).");
}
