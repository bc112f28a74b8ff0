// X as the kernels take it: a float32/float64 data pointer plus element strides, with the checks every binding
// needs (2-D, dtype, whole-element strides; a misaligned array is copied).
#pragma once

#include <cstddef>
#include <utility>

#include <pybind11/numpy.h>

struct StridedMatrix {
  pybind11::array keep;  // owns the memory: X itself, or its aligned copy
  bool single = false;   // float32 (else float64)
  std::ptrdiff_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  const void* data() const { return keep.data(); }
};

inline StridedMatrix strided_matrix(pybind11::array X) {
  namespace py = pybind11;
  if (X.ndim() != 2) throw py::value_error("X must be a 2-D array (n_samples, n_features)");
  StridedMatrix m;
  if (X.dtype().equal(py::dtype::of<float>())) {
    m.single = true;
  } else if (!X.dtype().equal(py::dtype::of<double>())) {
    throw py::type_error("X must be float32 or float64 in native byte order; convert with X.astype(np.float64)");
  }
  if (!X.attr("flags").attr("aligned").cast<bool>()) X = X.attr("copy")().cast<py::array>();
  m.rows = X.shape(0);
  m.cols = X.shape(1);
  const auto item = static_cast<std::ptrdiff_t>(X.itemsize());
  auto element_stride = [&](int axis) -> std::ptrdiff_t {
    if (X.shape(axis) <= 1) return 0;  // never stepped; NumPy may store any value here
    const std::ptrdiff_t s = X.strides(axis);
    if (s % item != 0) throw py::value_error("X has strides that are not a multiple of its item size; pass a copy");
    return s / item;
  };
  m.row_stride = element_stride(0);
  m.col_stride = element_stride(1);
  m.keep = std::move(X);
  return m;
}
