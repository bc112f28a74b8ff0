// Python bindings of dpfair::poly2_coefficients (X by pointer + element strides, not copied for float32/float64)
// and of its CSR twin (scipy.sparse's three arrays); the GIL is released around the C++ pass.
#include <algorithm>
#include <cstdint>

#include "common.hpp"
#include "dpfair/poly2.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

// groups (None or n integers) -> (pointer, K); n_groups None means max(groups) + 1.
std::pair<const std::int64_t*, std::ptrdiff_t> group_args(const py::object& groups_in, Int64s& keep, py::ssize_t n,
                                                          std::optional<std::int64_t> n_groups) {
  if (groups_in.is_none()) return {nullptr, 0};
  keep = index_vector(groups_in, "groups");
  check_length(keep, n, "groups");
  const std::int64_t* g = keep.data();
  if (!n_groups) n_groups = n > 0 ? *std::max_element(g, g + n) + 1 : 0;
  if (*n_groups < 0) throw py::value_error("n_groups must be >= 0");
  return {g, static_cast<std::ptrdiff_t>(*n_groups)};
}

// Checks a, c and groups against n rows, allocates the outputs for d columns and K groups, and calls
// kernel(groups, K, b, Q, group_sums, group_counts) (the dense or the CSR pass).
template <class Kernel>
py::tuple poly2_call(py::ssize_t n, py::ssize_t d, const Doubles& a, const Doubles& c, const py::object& groups_in,
                     std::optional<std::int64_t> n_groups, int n_threads, Kernel&& kernel) {
  check_length(a, n, "a");
  check_length(c, n, "c");
  if (n_threads < 1) throw py::value_error("n_threads must be >= 1");
  Int64s groups;
  const auto [gp, K] = group_args(groups_in, groups, n, n_groups);
  py::array_t<double> b(d), Q({d, d}), group_sums({static_cast<py::ssize_t>(K), d});
  py::array_t<std::int64_t> group_counts(K);
  kernel(gp, K, b.mutable_data(), Q.mutable_data(), group_sums.mutable_data(), group_counts.mutable_data());
  return py::make_tuple(b, Q, group_sums, group_counts);
}

py::tuple poly2(py::array X_in, Doubles a, Doubles c, py::object groups_in, std::optional<std::int64_t> n_groups,
                int n_threads) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  return poly2_call(X.rows, X.cols, a, c, groups_in, n_groups, n_threads,
                    [&](const std::int64_t* g, std::ptrdiff_t K, double* b, double* Q, double* s, std::int64_t* k) {
                      with_rows(X, [&](const auto* data) {
                        dpfair::poly2_coefficients(data, X.rows, X.cols, X.row_stride, X.col_stride, a.data(),
                                                   c.data(), g, K, b, Q, s, k, n_threads);
                      });
                    });
}

py::tuple poly2_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles a, Doubles c,
                    py::object groups_in, std::optional<std::int64_t> n_groups, int n_threads, py::object one_hot_in,
                    std::int64_t n_one_hot) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  Int64s one_hot;
  const std::int64_t* oh = nullptr;
  if (!one_hot_in.is_none()) {
    one_hot = index_vector(one_hot_in, "one_hot_of");
    check_length(one_hot, X.cols, "one_hot_of");
    for (py::ssize_t j = 0; j < X.cols; ++j) {
      if (one_hot.data()[j] < -1 || one_hot.data()[j] >= n_one_hot)
        throw py::value_error("one_hot_of must lie in -1 .. n_one_hot-1");
    }
    oh = one_hot.data();
  }
  return poly2_call(X.rows, X.cols, a, c, groups_in, n_groups, n_threads,
                    [&](const std::int64_t* g, std::ptrdiff_t K, double* b, double* Q, double* s, std::int64_t* k) {
                      with_csr(X, Reads::all_rows, [&](const auto& v) {
                        dpfair::poly2_coefficients_csr(v, a.data(), c.data(), g, K, b, Q, s, k, n_threads, oh,
                                                       n_one_hot);
                      });
                    });
}

}  // namespace

void bind_poly2(py::module_& m) {
  m.def("poly2_coefficients", &poly2, py::arg("X"), py::arg("a"), py::arg("c"), py::arg("groups"),
        py::arg("n_groups"), py::arg("n_threads"),
        "(b, Q, group_sums, group_counts) with b = sum a_i x_i, Q = sum c_i x_i x_i^T (full symmetric), "
        "group sums/counts of X's rows (zero rows without groups). X: float32/float64, any strides (not copied). "
        "n_groups None: max(groups) + 1.");
  m.def("poly2_coefficients_csr", &poly2_csr, py::arg("data"), py::arg("indices"), py::arg("indptr"),
        py::arg("n_features"), py::arg("a"), py::arg("c"), py::arg("groups"), py::arg("n_groups"),
        py::arg("n_threads"), py::arg("one_hot_of") = py::none(), py::arg("n_one_hot") = 0,
        "poly2_coefficients on a CSR matrix; returns (b, Q, group_sums, group_counts). one_hot_of (None or d "
        "integers in -1 .. n_one_hot-1): one-hot column groups whose most frequent columns the pair pass may leave "
        "out (same Q up to rounding).");
}
