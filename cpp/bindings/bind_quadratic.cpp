// Python binding of dpfair::minimize_quadratic: validates arrays, converts at most once, releases the GIL.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <climits>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "dpfair/quadratic.hpp"

namespace py = pybind11;

namespace {

bool real_dtype(const py::array& arr) {
  const char kind = arr.dtype().kind();
  return kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f';
}

py::array as_array(const py::object& obj, const char* name) {
  py::array arr = py::array::ensure(obj);
  if (!arr) throw py::type_error(std::string(name) + " must be an array of real numbers");
  if (!real_dtype(arr))
    throw py::type_error(std::string(name) + " must have a real numeric dtype, got " +
                         py::str(arr.dtype()).cast<std::string>());
  return arr;
}

// Contiguous float64 data: the array itself when it already is, else one converted copy.
py::array_t<double> contiguous_f64(const py::array& arr, bool fortran_ok) {
  const bool is_f64 = arr.dtype().is(py::dtype::of<double>());
  const bool contiguous = (arr.flags() & py::array::c_style) || (fortran_ok && (arr.flags() & py::array::f_style));
  if (is_f64 && contiguous) return py::reinterpret_borrow<py::array_t<double>>(arr);
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(arr);
}

py::array_t<double> vector_arg(const py::object& obj, py::ssize_t d, const char* name) {
  py::array arr = as_array(obj, name);
  if (arr.ndim() != 1 || arr.shape(0) != d)
    throw py::value_error(std::string(name) + " must be a 1-D array of length " + std::to_string(d) +
                          " to match Q, got ndim " + std::to_string(arr.ndim()));
  return contiguous_f64(arr, false);
}

dpfair::QuadraticResult minimize_quadratic_py(const py::object& Q_obj, const py::object& b_obj, double ridge,
                                              const std::string& psd, double floor, const std::string& solver,
                                              const py::object& a_obj, std::optional<double> tau, double tol,
                                              long long max_iter) {
  py::array Q_arr = as_array(Q_obj, "Q");
  if (Q_arr.ndim() != 2 || Q_arr.shape(0) != Q_arr.shape(1))
    throw py::value_error("Q must be a square 2-D array (d, d)");
  const py::ssize_t d = Q_arr.shape(0);
  // A C-ordered Q is read as column-major, i.e. as Qᵀ: the core solves with ½(Q + Qᵀ), which is the same matrix.
  py::array_t<double> Q_buf = contiguous_f64(Q_arr, true);
  py::array_t<double> b_buf = vector_arg(b_obj, d, "b");
  py::array_t<double> a_buf;
  const bool has_bound = !a_obj.is_none();
  if (has_bound != tau.has_value()) throw py::value_error("pass the constraint vector a and tau together, or neither");
  if (has_bound) a_buf = vector_arg(a_obj, d, "constraint vector a");
  if (max_iter < 1) throw py::value_error("max_iter must be >= 1, got " + std::to_string(max_iter));

  dpfair::QuadraticOptions opt;
  opt.ridge = ridge;
  opt.psd = dpfair::parse_psd_repair(psd);
  opt.floor = floor;
  opt.solver = dpfair::parse_quadratic_solver(solver);
  opt.tol = tol;
  opt.max_iter = static_cast<int>(std::min<long long>(max_iter, INT_MAX));

  Eigen::Map<const Eigen::MatrixXd> Q(Q_buf.data(), d, d);
  Eigen::Map<const Eigen::VectorXd> b(b_buf.data(), d);
  const double* a = has_bound ? a_buf.data() : nullptr;
  dpfair::QuadraticResult res;
  {
    py::gil_scoped_release release;
    res = dpfair::minimize_quadratic(Q, b, opt, a, tau.value_or(0.0));
  }
  return res;
}

// w as a read-only NumPy view of the result's vector (the array keeps the result alive).
py::array solution_w(const py::object& self) {
  const auto& r = self.cast<const dpfair::QuadraticResult&>();
  py::array w(py::dtype::of<double>(), {static_cast<py::ssize_t>(r.w.size())}, {static_cast<py::ssize_t>(sizeof(double))},
              r.w.data(), self);
  w.attr("flags").attr("writeable") = false;
  return w;
}

}  // namespace

void bind_quadratic(py::module_& m) {
  using R = dpfair::QuadraticResult;
  // module_local: _core and _core_avx2 both bind this C++ type; pybind11's registry is per process otherwise.
  py::class_<R>(m, "QuadraticSolution", py::module_local(),
                "Minimizer of w^T H w + b^T w and what the PSD repair did (read-only; fields as in "
                "dpfair_native._reference.QuadraticSolution).")
      .def_property_readonly("w", &solution_w)
      .def_readonly("n_trimmed", &R::n_trimmed)
      .def_readonly("shift", &R::shift)
      .def_readonly("lambda_min", &R::lambda_min)
      .def_readonly("iterations", &R::iterations)
      .def_readonly("converged", &R::converged)
      .def_readonly("constraint_active", &R::constraint_active)
      .def_readonly("multiplier", &R::multiplier)
      .def("__repr__", [](const R& r) {
        return "QuadraticSolution(d=" + std::to_string(r.w.size()) + ", n_trimmed=" + std::to_string(r.n_trimmed) +
               ", lambda_min=" + std::to_string(r.lambda_min) + ", converged=" + (r.converged ? "True" : "False") + ")";
      });
  m.def("minimize_quadratic", &minimize_quadratic_py, py::arg("Q"), py::arg("b"), py::arg("ridge"), py::arg("psd"),
        py::arg("floor"), py::arg("solver"), py::arg("a"), py::arg("tau"), py::arg("tol"), py::arg("max_iter"),
        "Minimize wᵀHw + bᵀw, H = repair(Q) + ridge·I, optionally s.t. |aᵀw| <= tau (a and tau None: no bound).\n"
        "Returns a QuadraticSolution. Use dpfair_native.kernels.minimize_quadratic, which validates and documents "
        "the inputs.");
}
