// What every binding shares: the array types the kernels take, shape checks whose messages name the argument, and
// the one float32/float64 (and, for CSR, int32/int64) dispatch.
// Layers: kernels.py owns the user-facing checks (types, ranges, finiteness, messages that say how to fix); a
// binding checks only what memory safety needs (dimensions and lengths of what the kernel will read); the C++ core
// asserts its own invariants with std::invalid_argument, which pybind11 turns into ValueError.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "dpfair/sparse.hpp"
#include "strided_matrix.hpp"

namespace dpfair_bind {

namespace py = pybind11;

// C-contiguous float64 / int64 arrays (converted once when the input is another dtype or layout).
using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Int64s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

inline void check_length(const py::array& a, py::ssize_t n, const char* name) {
  if (a.ndim() != 1 || a.shape(0) != n) {
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(n) + ",) matching X");
  }
}

inline void check_matrix(const py::array& a, py::ssize_t rows, py::ssize_t cols, const char* name) {
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols) {
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + ")");
  }
}

// An optional float64 argument: None -> nullptr; else the data of `keep` (the converted array, kept alive by the
// caller), after check(keep).
template <class Check>
const double* optional_doubles(const py::object& obj, Doubles& keep, Check&& check) {
  if (obj.is_none()) return nullptr;
  keep = obj.cast<Doubles>();
  check(keep);
  return keep.data();
}

// A 1-D integer argument (any integer dtype, converted to int64 once); TypeError for anything else.
inline Int64s index_vector(const py::object& obj, const char* name) {
  py::array raw = py::array::ensure(obj);
  if (!raw || raw.ndim() != 1 || (raw.dtype().kind() != 'i' && raw.dtype().kind() != 'u')) {
    throw py::type_error(std::string(name) + " must be a 1-D integer array");
  }
  return raw.cast<Int64s>();
}

// Calls f(data) with data the `const T*` of X (T = float or double, as X holds), with the GIL released.
template <class F>
auto with_rows(const StridedMatrix& X, F&& f) {
  py::gil_scoped_release release;
  if (X.single) return f(static_cast<const float*>(X.data()));
  return f(static_cast<const double*>(X.data()));
}

// -- CSR input: scipy.sparse's three arrays plus the number of columns ------------------------------------------
struct CsrArrays {
  py::array data, indices, indptr;
  bool single = false, wide = false;  // float32 values; int64 indices
  std::ptrdiff_t rows = 0, cols = 0, capacity = 0;
};

// The arrays as they are when C-contiguous and aligned (else one copy); TypeError/ValueError on dtypes and ranks.
inline CsrArrays csr_arrays(const py::object& data, const py::object& indices, const py::object& indptr,
                            std::int64_t n_cols) {
  constexpr int kContiguousAligned = py::array::c_style | 0x0100;  // NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED
  CsrArrays X;
  X.data = py::array::ensure(data, kContiguousAligned);
  X.indices = py::array::ensure(indices, kContiguousAligned);
  X.indptr = py::array::ensure(indptr, kContiguousAligned);
  if (!X.data || !X.indices || !X.indptr) throw py::type_error("X.data, X.indices and X.indptr must be arrays");
  if (X.data.ndim() != 1 || X.indices.ndim() != 1 || X.indptr.ndim() != 1)
    throw py::value_error("X.data, X.indices and X.indptr must be 1-D");
  if (X.data.dtype().equal(py::dtype::of<float>())) {
    X.single = true;
  } else if (!X.data.dtype().equal(py::dtype::of<double>())) {
    throw py::type_error("X.data must be float32 or float64");
  }
  if (X.indices.dtype().equal(py::dtype::of<std::int64_t>())) {
    X.wide = true;
  } else if (!X.indices.dtype().equal(py::dtype::of<std::int32_t>())) {
    throw py::type_error("X.indices must be int32 or int64");
  }
  if (!X.indptr.dtype().equal(X.indices.dtype())) throw py::type_error("X.indptr must have the dtype of X.indices");
  if (X.indptr.shape(0) < 1) throw py::value_error("X.indptr must hold n_samples + 1 offsets");
  if (n_cols < 0) throw py::value_error("n_features must be >= 0");
  X.rows = X.indptr.shape(0) - 1;
  X.cols = static_cast<std::ptrdiff_t>(n_cols);
  X.capacity = std::min<std::ptrdiff_t>(X.data.shape(0), X.indices.shape(0));
  return X;
}

// Which rows a kernel reads: all of them (the whole matrix is checked first, dpfair::check_csr), or only some
// (the kernel checks each row just before it reads it, so a call costs O(visited non-zeros), not O(nnz)).
enum class Reads { all_rows, some_rows };

template <class T, class I, class F>
auto with_csr_typed(const CsrArrays& X, Reads reads, F& f) {
  dpfair::CsrView<T, I> v;
  v.data = static_cast<const T*>(X.data.data());
  v.indices = static_cast<const I*>(X.indices.data());
  v.indptr = static_cast<const I*>(X.indptr.data());
  v.rows = X.rows;
  v.cols = X.cols;
  v.capacity = X.capacity;
  py::gil_scoped_release release;
  if (reads == Reads::all_rows) dpfair::check_csr(v);
  return f(v);
}

// Calls f(view) with the dpfair::CsrView of X's value and index types, checked as `reads` says, GIL released.
template <class F>
auto with_csr(const CsrArrays& X, Reads reads, F&& f) {
  if (X.single) {
    return X.wide ? with_csr_typed<float, std::int64_t>(X, reads, f) : with_csr_typed<float, std::int32_t>(X, reads, f);
  }
  return X.wide ? with_csr_typed<double, std::int64_t>(X, reads, f) : with_csr_typed<double, std::int32_t>(X, reads, f);
}

}  // namespace dpfair_bind
