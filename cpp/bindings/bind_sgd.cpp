// Python bindings of dpfair::dpsgd_epochs (X by pointer + element strides, not copied for float32/float64) and of
// its CSR twin: one parser of the shared arguments, the whole loop with the GIL released.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "dpfair/sgd.hpp"
#include "dpfair/sparse.hpp"

namespace py = pybind11;
using namespace dpfair_bind;

namespace {

// The arguments both variants share (checked against n rows and d columns), the loop's config and its outputs.
struct SgdCall {
  Doubles y, clip, lr, params, weights_keep, grad_keep, count_keep, center_keep;
  Int64s groups, rows, offsets;
  const double *weights = nullptr, *grad_noise = nullptr, *count_noise = nullptr, *center = nullptr;
  std::ptrdiff_t K = 0, steps = 0;
  dpfair::SgdConfig config;
  py::array_t<double> out_params, out_bounds;

  SgdCall(py::ssize_t n, py::ssize_t d, Doubles y_, Int64s groups_, Doubles clip_, const py::object& group_weights,
          Int64s rows_, Int64s offsets_, Doubles lr_, const py::object& grad_noise_in, const py::object& count_noise_in,
          dpfair::ClipRule rule, dpfair::NoiseRule noise, Doubles params_, bool secure, const py::object& center_in)
      : y(std::move(y_)), clip(std::move(clip_)), lr(std::move(lr_)), params(std::move(params_)),
        groups(std::move(groups_)), rows(std::move(rows_)), offsets(std::move(offsets_)) {
    check_length(y, n, "y");
    check_length(groups, n, "groups");
    if (clip.ndim() != 1 || clip.shape(0) < 1) throw py::value_error("clip must be a non-empty 1-D array");
    K = clip.shape(0);
    if (lr.ndim() != 1) throw py::value_error("learning_rates must be 1-D (one per step)");
    steps = lr.shape(0);
    check_length(offsets, steps + 1, "batch_offsets");
    if (rows.ndim() != 1) throw py::value_error("batch_rows must be 1-D");
    if (steps > 0 && (offsets.at(0) < 0 || offsets.at(steps) > rows.shape(0))) {
      throw py::value_error("batch_offsets must lie in 0 .. len(batch_rows)");
    }
    check_length(params, d + 1, "params");
    config.rule = rule;
    config.noise = noise;
    weights = optional_doubles(group_weights, weights_keep, [&](const Doubles& a) { check_length(a, K, "group_weights"); });
    // Secure mode draws its noise inside the loop: grad_noise / count_noise may then be None.
    if (!secure && grad_noise_in.is_none()) throw py::value_error("grad_noise is required (T, d+1 standard normals)");
    grad_noise = optional_doubles(grad_noise_in, grad_keep, [&](const Doubles& a) { check_matrix(a, steps, d + 1, "grad_noise"); });
    const bool counts = rule != dpfair::ClipRule::fixed;
    if (counts && !secure && count_noise_in.is_none()) {
      throw py::value_error("count_noise is required for rules dpsgdf/naive");
    }
    if (counts) {
      const py::ssize_t width = rule == dpfair::ClipRule::dpsgdf ? 2 * K : K;
      count_noise = optional_doubles(count_noise_in, count_keep, [&](const Doubles& a) { check_matrix(a, steps, width, "count_noise"); });
    }
    center = optional_doubles(center_in, center_keep, [&](const Doubles& a) { check_length(a, d, "center"); });
    out_params = py::array_t<double>(d + 1);
    std::copy(params.data(), params.data() + d + 1, out_params.mutable_data());
    out_bounds = py::array_t<double>({steps, K});
  }

  void set_noise(double noise_multiplier, double count_noise_multiplier, double expected_batch_size, double l2,
                 double weight_bound) {
    config.noise_multiplier = noise_multiplier;
    config.count_noise_multiplier = count_noise_multiplier;
    config.expected_batch_size = expected_batch_size;
    config.l2 = l2;
    config.weight_bound = weight_bound;
  }

  dpfair::SgdSteps view() const {
    dpfair::SgdSteps s;
    s.y = y.data();
    s.groups = groups.data();
    s.n_groups = K;
    s.clip = clip.data();
    s.group_weights = weights;
    s.batch_rows = rows.data();
    s.batch_offsets = offsets.data();
    s.n_steps = steps;
    s.learning_rates = lr.data();
    s.grad_noise = grad_noise;
    s.count_noise = count_noise;
    s.center = center;
    return s;
  }

  py::tuple tuple() const { return py::make_tuple(out_params, out_bounds); }
};

py::tuple dpsgd_epochs(py::array X_in, Doubles y, Int64s groups, Doubles clip, py::object group_weights, Int64s rows,
                       Int64s offsets, Doubles lr, py::object grad_noise, py::object count_noise, dpfair::ClipRule rule,
                       dpfair::NoiseRule noise,
                       double noise_multiplier, double count_noise_multiplier, double expected_batch_size, double l2,
                       double weight_bound, Doubles params, py::object secure_key, double grid_inflation,
                       py::object center) {
  const StridedMatrix X = strided_matrix(std::move(X_in));
  std::string key;
  const bool secure = !secure_key.is_none();
  if (secure) {
    key = secure_key.cast<std::string>();
    if (key.size() != 32) throw py::value_error("secure_key must be exactly 32 bytes");
  }
  SgdCall c(X.rows, X.cols, std::move(y), std::move(groups), std::move(clip), group_weights, std::move(rows),
            std::move(offsets), std::move(lr), grad_noise, count_noise, rule, noise, std::move(params), secure, center);
  c.set_noise(noise_multiplier, count_noise_multiplier, expected_batch_size, l2, weight_bound);
  if (secure) c.config.secure_key = reinterpret_cast<const std::uint8_t*>(key.data());
  c.config.grid_inflation = grid_inflation;
  double *pp = c.out_params.mutable_data(), *bp = c.out_bounds.mutable_data();
  const dpfair::SgdSteps steps = c.view();
  with_rows(X, [&](const auto* data) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
    dpfair::dpsgd_epochs(dpfair::MatrixView<T>{data, X.rows, X.cols, X.row_stride, X.col_stride}, steps, c.config, pp,
                         bp);
  });
  return c.tuple();
}

py::tuple dpsgd_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles y,
                    Int64s groups, Doubles clip, py::object group_weights, Int64s rows, Int64s offsets, Doubles lr,
                    py::object grad_noise, py::object count_noise, dpfair::ClipRule rule, dpfair::NoiseRule noise,
                    double noise_multiplier,
                    double count_noise_multiplier, double expected_batch_size, double l2, double weight_bound,
                    Doubles params, py::object center) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  SgdCall c(X.rows, X.cols, std::move(y), std::move(groups), std::move(clip), group_weights, std::move(rows),
            std::move(offsets), std::move(lr), grad_noise, count_noise, rule, noise, std::move(params), false, center);
  c.set_noise(noise_multiplier, count_noise_multiplier, expected_batch_size, l2, weight_bound);
  double *pp = c.out_params.mutable_data(), *bp = c.out_bounds.mutable_data();
  const dpfair::SgdSteps steps = c.view();
  with_csr(X, Reads::some_rows, [&](const auto& v) { dpfair::dpsgd_epochs_csr(v, steps, c.config, pp, bp); });
  return c.tuple();
}

// X's rows, labels and groups packed once (dpfair::PackedCsr) for several dpsgd_epochs_packed calls.
dpfair::PackedCsr* packed_csr(py::object data, py::object indices, py::object indptr, std::int64_t n_cols, Doubles y,
                              Int64s groups, std::int64_t n_groups) {
  const CsrArrays X = csr_arrays(data, indices, indptr, n_cols);
  check_length(y, X.rows, "y");
  check_length(groups, X.rows, "groups");
  return with_csr(X, Reads::some_rows, [&](const auto& v) {
    return new dpfair::PackedCsr(v, y.data(), groups.data(), static_cast<std::ptrdiff_t>(n_groups));
  });
}

py::tuple dpsgd_packed(const dpfair::PackedCsr& X, Doubles y, Int64s groups, Doubles clip, py::object group_weights,
                       Int64s rows, Int64s offsets, Doubles lr, py::object grad_noise, py::object count_noise,
                       dpfair::ClipRule rule, dpfair::NoiseRule noise, double noise_multiplier,
                       double count_noise_multiplier, double expected_batch_size, double l2, double weight_bound,
                       Doubles params, py::object center) {
  SgdCall c(X.rows(), X.cols(), std::move(y), std::move(groups), std::move(clip), group_weights, std::move(rows),
            std::move(offsets), std::move(lr), grad_noise, count_noise, rule, noise, std::move(params), false, center);
  c.set_noise(noise_multiplier, count_noise_multiplier, expected_batch_size, l2, weight_bound);
  double *pp = c.out_params.mutable_data(), *bp = c.out_bounds.mutable_data();
  const dpfair::SgdSteps steps = c.view();
  {
    py::gil_scoped_release release;
    X.dpsgd_epochs(steps, c.config, pp, bp);
  }
  return c.tuple();
}

py::array_t<std::int64_t> secure_row_units(Doubles X, Doubles coef, double gamma, std::int64_t limit,
                                           const py::object& center_in) {
  if (X.ndim() != 2) throw py::value_error("X must be 2-D");
  const py::ssize_t m = X.shape(0), d = X.shape(1);
  check_length(coef, m, "coef");
  Doubles center_keep;
  const double* center = optional_doubles(center_in, center_keep, [&](const Doubles& a) { check_length(a, d, "center"); });
  std::vector<std::int64_t> units;
  {
    py::gil_scoped_release release;
    units = dpfair::secure_row_units(X.data(), m, d, center, coef.data(), gamma, limit);
  }
  py::array_t<std::int64_t> out(d + 1);
  std::copy(units.begin(), units.end(), out.mutable_data());
  return out;
}

}  // namespace

void bind_sgd(pybind11::module_& m) {
  // module_local: _core and _core_avx2 both bind these C++ types (see bind_quadratic.cpp).
  py::enum_<dpfair::ClipRule>(m, "ClipRule", "How a DP-SGD step chooses its per-group clip bounds and weights.",
                              py::module_local())
      .value("fixed", dpfair::ClipRule::fixed)
      .value("dpsgdf", dpfair::ClipRule::dpsgdf)
      .value("naive", dpfair::ClipRule::naive);
  py::enum_<dpfair::NoiseRule>(m, "NoiseRule", "How a DP-SGD step scales its Gaussian noise from the group sensitivities.",
                               py::module_local())
      .value("shared", dpfair::NoiseRule::shared)
      .value("per_group", dpfair::NoiseRule::per_group);
  m.def("dpsgd_epochs", &dpsgd_epochs, py::arg("X"), py::arg("y"), py::arg("groups"), py::arg("clip"),
        py::arg("group_weights"), py::arg("batch_rows"), py::arg("batch_offsets"), py::arg("learning_rates"),
        py::arg("grad_noise"), py::arg("count_noise"), py::arg("rule"), py::arg("noise"),
        py::arg("noise_multiplier"), py::arg("count_noise_multiplier"), py::arg("expected_batch_size"),
        py::arg("l2"), py::arg("weight_bound"), py::arg("params"), py::arg("secure_key") = py::none(),
        py::arg("grid_inflation") = 1e-4, py::arg("center") = py::none(),
        "Run DP-SGD steps on a linear logistic model (see dpfair_native.kernels.dpsgd_epochs); returns "
        "(params, step_bounds).");
  m.def("dpsgd_epochs_csr", &dpsgd_csr, py::arg("data"), py::arg("indices"), py::arg("indptr"), py::arg("n_features"),
        py::arg("y"), py::arg("groups"), py::arg("clip"), py::arg("group_weights"), py::arg("batch_rows"),
        py::arg("batch_offsets"), py::arg("learning_rates"), py::arg("grad_noise"), py::arg("count_noise"),
        py::arg("rule"), py::arg("noise"), py::arg("noise_multiplier"), py::arg("count_noise_multiplier"),
        py::arg("expected_batch_size"), py::arg("l2"), py::arg("weight_bound"), py::arg("params"),
        py::arg("center") = py::none(), "dpsgd_epochs on a CSR matrix; returns (params, step_bounds).");
  py::class_<dpfair::PackedCsr>(m, "PackedCsr", "A CSR matrix's rows, labels and groups packed once for "
                                "dpsgd_epochs_packed (see dpfair_native.kernels.pack_csr_rows).", py::module_local())
      .def(py::init(&packed_csr), py::arg("data"), py::arg("indices"), py::arg("indptr"), py::arg("n_features"),
           py::arg("y"), py::arg("groups"), py::arg("n_groups"))
      .def_property_readonly("shape", [](const dpfair::PackedCsr& p) { return py::make_tuple(p.rows(), p.cols()); })
      .def_property_readonly("n_groups", &dpfair::PackedCsr::n_groups);
  m.def("dpsgd_epochs_packed", &dpsgd_packed, py::arg("packed"), py::arg("y"), py::arg("groups"), py::arg("clip"),
        py::arg("group_weights"), py::arg("batch_rows"), py::arg("batch_offsets"), py::arg("learning_rates"),
        py::arg("grad_noise"), py::arg("count_noise"), py::arg("rule"), py::arg("noise"), py::arg("noise_multiplier"),
        py::arg("count_noise_multiplier"), py::arg("expected_batch_size"), py::arg("l2"), py::arg("weight_bound"),
        py::arg("params"), py::arg("center") = py::none(), "dpsgd_epochs on packed CSR rows; returns (params, step_bounds).");
  m.def("secure_row_units", &secure_row_units, py::arg("X"), py::arg("coef"), py::arg("gamma"), py::arg("limit"),
        py::arg("center") = py::none(),
        "The secure DP-SGD loop's exact integer row sum on its own (see dpfair_native.kernels.secure_row_units).");
}
