// Python binding of dpfair::csr_in_domain (FeatureDomain.contains_all on scipy.sparse rows); GIL released.
#include <cstdint>
#include <limits>

#include "common.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

bool in_domain_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles lower,
                   Doubles upper, py::object group_of_in, std::int64_t n_groups, double l1_cap, double l2_cap, int n_threads) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  check_length(lower, X.cols, "lower");
  check_length(upper, X.cols, "upper");
  const Int64s group_of = index_vector(group_of_in, "group_of");
  check_length(group_of, X.cols, "group_of");
  if (n_groups < 0) throw py::value_error("n_groups must be >= 0");
  if (n_threads < 0) throw py::value_error("n_threads must be >= 0 (0: every core)");
  return with_csr(X, Reads::some_rows, [&](const auto& v) {
    return dpfair::csr_in_domain(v, lower.data(), upper.data(), group_of.data(), n_groups, l1_cap, l2_cap, n_threads);
  });
}

}  // namespace

void bind_domain(py::module_& m) {
  m.def("csr_in_domain", &in_domain_csr, py::arg("data"), py::arg("indices"), py::arg("indptr"),
        py::arg("n_features"), py::arg("lower"), py::arg("upper"), py::arg("group_of"), py::arg("n_groups"),
        py::arg("l1_cap") = std::numeric_limits<double>::infinity(),
        py::arg("l2_cap") = std::numeric_limits<double>::infinity(), py::arg("n_threads") = 0,
        "True when every row of the CSR matrix, implicit zeros included, lies in the domain: per-column bounds, "
        "one-hot groups (group_of[j] in 0 .. n_groups-1, -1: none; values 0/1, at most one 1 per group and row), "
        "L1/L2 row-norm caps (inf: none); rows in chunks on up to n_threads threads (0: every core).");
}
