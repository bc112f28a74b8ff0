// Python bindings of dpfair::constrained_sgd_epochs (dense X by pointer + element strides, no copy for
// float32/float64) and constrained_sgd_epochs_csr (scipy.sparse's three CSR arrays: data float32/float64, indices
// and indptr both int32 or both int64, checked by dpfair::check_csr before any read). Both check the shapes the
// same way, run the loop with the GIL released and return the updated state. constrained_sgd_epochs_packed runs on
// rows packed once (PackedCsr), for the estimator's one call per epoch.
#include <algorithm>
#include <cstdint>
#include <string>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "strided_matrix.hpp"
#include "dpfair/constrained_sgd.hpp"
#include "dpfair/sparse.hpp"

namespace py = pybind11;

namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Int64s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

void need(bool ok, const std::string& message) {
  if (!ok) throw py::value_error(message);
}

// Everything but X, checked against X's shape (n, d); owns the output copies of the state.
struct Problem {
  Doubles y, lr, grad_noise, hist_noise, center;
  Int64s groups, events, active, rows, offsets;
  dpfair::ConstrainedSgdConfig c;
  py::ssize_t K = 0, E = 0, steps = 0;
  std::int64_t avg_start = 0, step = 0, count = 0;
  py::array_t<double> params, lambdas, hist, avg;

  template <class F>
  py::tuple run(F&& kernel) {
    double *pp = params.mutable_data(), *pa = avg.mutable_data(), *pl = lambdas.mutable_data();
    double* ph = hist.mutable_data();
    try {
      py::gil_scoped_release release;
      kernel(y.data(), groups.data(), events.data(), K, E, active.data(), rows.data(), offsets.data(), steps,
             lr.data(), grad_noise.data(), hist_noise.data(), c, avg_start, pp, pl, ph, pa, &count, &step);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
    return py::make_tuple(params, lambdas, hist, avg, count, step);
  }
};

py::array_t<double> copy_of(const Doubles& a) {
  py::array_t<double> out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  std::copy(a.data(), a.data() + a.size(), out.mutable_data());
  return out;
}

Problem problem(py::ssize_t n, py::ssize_t d, Doubles y, Int64s groups, Int64s events, Int64s active, Int64s rows,
                Int64s offsets, Doubles lr, Doubles grad_noise, Doubles hist_noise, const py::dict& config,
                std::int64_t avg_start, std::int64_t step_index, std::int64_t avg_count, Doubles params,
                Doubles lambdas, Doubles hist, Doubles avg) {
  need(y.ndim() == 1 && y.shape(0) == n, "y must be 1-D with one label per row of X");
  need(groups.ndim() == 1 && groups.shape(0) == n, "groups must be 1-D with one code per row of X");
  need(events.ndim() == 1 && events.shape(0) == n, "events must be 1-D with one code per row of X");
  need(active.ndim() == 1 && active.shape(0) >= 1, "active must be a non-empty 1-D array (one flag per event)");
  Problem p;
  p.E = active.shape(0);
  need(lambdas.ndim() == 3 && lambdas.shape(0) == 2 && lambdas.shape(2) == p.E && lambdas.shape(1) >= 1,
       "lambdas must have shape (2, n_groups, n_events)");
  p.K = lambdas.shape(1);
  need(hist.ndim() == 3 && hist.shape(0) == p.K && hist.shape(1) == p.E && hist.shape(2) == 2,
       "hist must have shape (n_groups, n_events, 2)");
  need(lr.ndim() == 1, "learning_rates must be 1-D (one per step)");
  p.steps = lr.shape(0);
  need(offsets.ndim() == 1 && offsets.shape(0) == p.steps + 1, "batch_offsets must have length n_steps + 1");
  need(rows.ndim() == 1, "batch_rows must be 1-D");
  need(p.steps == 0 || (offsets.at(0) >= 0 && offsets.at(p.steps) <= rows.shape(0)),
       "batch_offsets must lie in 0 .. len(batch_rows)");
  need(grad_noise.ndim() == 2 && grad_noise.shape(0) == p.steps && grad_noise.shape(1) == d + 1,
       "grad_noise must have shape (n_steps, d + 1)");
  need(hist_noise.ndim() == 2 && hist_noise.shape(0) == p.steps && hist_noise.shape(1) == 2 * p.K * p.E,
       "hist_noise must have shape (n_steps, 2·n_groups·n_events)");
  need(params.ndim() == 1 && params.shape(0) == d + 1, "params must have length d + 1");
  need(avg.ndim() == 1 && avg.shape(0) == d + 1, "avg must have length d + 1");
  p.y = y, p.groups = groups, p.events = events, p.active = active, p.rows = rows, p.offsets = offsets;
  p.lr = lr, p.grad_noise = grad_noise, p.hist_noise = hist_noise;
  p.c.noise_multiplier = config["noise_multiplier"].cast<double>();
  p.c.hist_noise_multiplier = config["hist_noise_multiplier"].cast<double>();
  p.c.clip = config["clip"].cast<double>();
  p.c.expected_batch_size = config["expected_batch_size"].cast<double>();
  p.c.l2 = config["l2"].cast<double>();
  p.c.dual_learning_rate = config["dual_learning_rate"].cast<double>();
  p.c.bound = config["bound"].cast<double>();
  p.c.temperature = config["temperature"].cast<double>();
  p.c.ema = config["ema"].cast<double>();
  p.c.count_floor = config["count_floor"].cast<double>();
  if (config.contains("center") && !config["center"].is_none()) {  // kept alive by p.center
    p.center = config["center"].cast<Doubles>();
    need(p.center.ndim() == 1 && p.center.shape(0) == d, "center must have length d (one value per column)");
    p.c.center = p.center.data();
  }
  p.avg_start = avg_start, p.step = step_index, p.count = avg_count;
  p.params = copy_of(params), p.lambdas = copy_of(lambdas), p.hist = copy_of(hist), p.avg = copy_of(avg);
  return p;
}

py::tuple dense(py::array X_in, Doubles y, Int64s groups, Int64s events, Int64s active, Int64s rows, Int64s offsets,
                Doubles lr, Doubles grad_noise, Doubles hist_noise, py::dict config, std::int64_t avg_start,
                std::int64_t step_index, std::int64_t avg_count, Doubles params, Doubles lambdas, Doubles hist,
                Doubles avg) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  const py::ssize_t n = X.rows, d = X.cols;
  Problem p = problem(n, d, y, groups, events, active, rows, offsets, lr, grad_noise, hist_noise, config, avg_start,
                      step_index, avg_count, params, lambdas, hist, avg);
  return p.run([&](auto... a) {
    if (X.single) {
      dpfair::constrained_sgd_epochs<float>(static_cast<const float*>(X.data()), n, d, X.row_stride, X.col_stride,
                                            a...);
    } else {
      dpfair::constrained_sgd_epochs<double>(static_cast<const double*>(X.data()), n, d, X.row_stride,
                                             X.col_stride, a...);
    }
  });
}

template <class T, class I>
dpfair::CsrView<T, I> csr_view(const py::array& data, const py::array& indices, const py::array& indptr,
                               std::int64_t n_cols) {
  dpfair::CsrView<T, I> v;
  v.data = static_cast<const T*>(data.data());
  v.indices = static_cast<const I*>(indices.data());
  v.indptr = static_cast<const I*>(indptr.data());
  v.rows = indptr.shape(0) - 1;
  v.cols = static_cast<std::ptrdiff_t>(n_cols);
  v.capacity = std::min<std::ptrdiff_t>(data.shape(0), indices.shape(0));
  return v;
}

py::tuple csr(py::array data, py::array indices, py::array indptr, std::int64_t n_cols, Doubles y, Int64s groups,
              Int64s events, Int64s active, Int64s rows, Int64s offsets, Doubles lr, Doubles grad_noise,
              Doubles hist_noise, py::dict config, std::int64_t avg_start, std::int64_t step_index,
              std::int64_t avg_count, Doubles params, Doubles lambdas, Doubles hist, Doubles avg) {
  constexpr int kFlags = py::array::c_style | 0x0100;  // C-contiguous and aligned, else copied
  data = py::array::ensure(data, kFlags), indices = py::array::ensure(indices, kFlags);
  indptr = py::array::ensure(indptr, kFlags);
  if (!data || !indices || !indptr) throw py::type_error("X.data, X.indices and X.indptr must be arrays");
  need(data.ndim() == 1 && indices.ndim() == 1 && indptr.ndim() == 1 && indptr.shape(0) >= 1 && n_cols >= 0,
       "X.data, X.indices, X.indptr must be 1-D (indptr of length n_samples + 1), n_features >= 0");
  const bool single = data.dtype().equal(py::dtype::of<float>());
  need(single || data.dtype().equal(py::dtype::of<double>()), "X.data must be float32 or float64");
  const bool wide = indices.dtype().equal(py::dtype::of<std::int64_t>());
  need((wide || indices.dtype().equal(py::dtype::of<std::int32_t>())) && indptr.dtype().equal(indices.dtype()),
       "X.indices and X.indptr must both be int32 or both int64");
  Problem p = problem(indptr.shape(0) - 1, n_cols, y, groups, events, active, rows, offsets, lr, grad_noise,
                      hist_noise, config, avg_start, step_index, avg_count, params, lambdas, hist, avg);
  auto go = [&](auto view, auto... a) {
    dpfair::check_csr(view);
    dpfair::constrained_sgd_epochs_csr(view, a...);
  };
  return p.run([&](auto... a) {
    if (single) {
      wide ? go(csr_view<float, std::int64_t>(data, indices, indptr, n_cols), a...)
           : go(csr_view<float, std::int32_t>(data, indices, indptr, n_cols), a...);
    } else {
      wide ? go(csr_view<double, std::int64_t>(data, indices, indptr, n_cols), a...)
           : go(csr_view<double, std::int32_t>(data, indices, indptr, n_cols), a...);
    }
  });
}

// The steps on rows packed once by dpfair_native.kernels.pack_csr_rows (its y and groups; bound in bind_sgd.cpp).
py::tuple packed(const dpfair::PackedCsr& X, Doubles y, Int64s groups, Int64s events, Int64s active, Int64s rows,
                 Int64s offsets, Doubles lr, Doubles grad_noise, Doubles hist_noise, py::dict config,
                 std::int64_t avg_start, std::int64_t step_index, std::int64_t avg_count, Doubles params,
                 Doubles lambdas, Doubles hist, Doubles avg) {
  Problem p = problem(X.rows(), X.cols(), y, groups, events, active, rows, offsets, lr, grad_noise, hist_noise, config,
                      avg_start, step_index, avg_count, params, lambdas, hist, avg);
  return p.run([&](auto... a) { X.constrained_sgd_epochs(a...); });
}

}  // namespace

void bind_constrained_sgd(pybind11::module_& m) {
  m.def("constrained_sgd_epochs", &dense, py::arg("X"), py::arg("y"), py::arg("groups"), py::arg("events"),
        py::arg("active"), py::arg("batch_rows"), py::arg("batch_offsets"), py::arg("learning_rates"),
        py::arg("grad_noise"), py::arg("hist_noise"), py::arg("config"), py::arg("avg_start"),
        py::arg("step_index"), py::arg("avg_count"), py::arg("params"), py::arg("lambdas"), py::arg("hist"),
        py::arg("avg"),
        "Run fairness-constrained DP-SGD steps (see dpfair_native.kernels.constrained_sgd_epochs); returns "
        "(params, lambdas, hist, avg, avg_count, step_index).");
  m.def("constrained_sgd_epochs_csr", &csr, py::arg("data"), py::arg("indices"), py::arg("indptr"),
        py::arg("n_features"), py::arg("y"), py::arg("groups"), py::arg("events"), py::arg("active"),
        py::arg("batch_rows"), py::arg("batch_offsets"), py::arg("learning_rates"), py::arg("grad_noise"),
        py::arg("hist_noise"), py::arg("config"), py::arg("avg_start"), py::arg("step_index"), py::arg("avg_count"),
        py::arg("params"), py::arg("lambdas"), py::arg("hist"), py::arg("avg"),
        "constrained_sgd_epochs on a CSR matrix; returns (params, lambdas, hist, avg, avg_count, step_index).");
  m.def("constrained_sgd_epochs_packed", &packed, py::arg("packed"), py::arg("y"), py::arg("groups"),
        py::arg("events"), py::arg("active"), py::arg("batch_rows"), py::arg("batch_offsets"),
        py::arg("learning_rates"), py::arg("grad_noise"), py::arg("hist_noise"), py::arg("config"),
        py::arg("avg_start"), py::arg("step_index"), py::arg("avg_count"), py::arg("params"), py::arg("lambdas"),
        py::arg("hist"), py::arg("avg"),
        "constrained_sgd_epochs on packed CSR rows (PackedCsr); returns (params, lambdas, hist, avg, avg_count, "
        "step_index).");
}
