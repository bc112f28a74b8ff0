// Python binding of the exact discrete samplers (dpfair/secure_noise.hpp): a key (32 bytes) in, int64 draws out,
// with the GIL released while sampling.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "bindings.hpp"
#include "dpfair/secure_noise.hpp"

namespace py = pybind11;

namespace {

std::string key_bytes(const py::bytes& key, std::size_t length, const char* name) {
  std::string k = key;
  if (k.size() != length) {
    throw py::value_error(std::string(name) + " must be exactly " + std::to_string(length) + " bytes");
  }
  return k;
}

py::bytes chacha20_block(py::bytes key, std::uint32_t counter, py::bytes nonce) {
  const std::string k = key_bytes(key, 32, "key"), n = key_bytes(nonce, 12, "nonce");
  std::uint32_t kw[8], nw[3], out[16];
  for (int i = 0; i < 8; ++i) std::memcpy(&kw[i], k.data() + 4 * i, 4);  // little-endian hosts only (x86, ARM)
  for (int i = 0; i < 3; ++i) std::memcpy(&nw[i], n.data() + 4 * i, 4);
  dpfair::chacha20_block(kw, counter, nw, out);
  char bytes[64];
  std::memcpy(bytes, out, 64);
  return py::bytes(bytes, 64);
}

template <class Draw>
py::array_t<std::int64_t> draws(const py::bytes& key, py::ssize_t size, Draw draw) {
  if (size < 0) throw py::value_error("size must be >= 0");
  const std::string k = key_bytes(key, 32, "key");
  py::array_t<std::int64_t> out(size);
  std::int64_t* o = out.mutable_data();
  try {
    py::gil_scoped_release release;
    dpfair::ChaCha20Bits rng(reinterpret_cast<const std::uint8_t*>(k.data()));
    for (py::ssize_t i = 0; i < size; ++i) o[i] = draw(rng);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  return out;
}

// size draws of Sampler(rng, num, den) (dpfair::discrete_gaussian or dpfair::discrete_laplace) from key's stream.
template <std::int64_t (*Sampler)(dpfair::ChaCha20Bits&, std::uint64_t, std::uint64_t)>
py::array_t<std::int64_t> exact_draws(py::bytes key, py::ssize_t size, std::uint64_t num, std::uint64_t den) {
  return draws(key, size, [=](dpfair::ChaCha20Bits& r) { return Sampler(r, num, den); });
}

py::array_t<std::int64_t> poisson_slots(py::bytes key, std::int64_t total, std::uint64_t t, std::uint64_t s) {
  const std::string k = key_bytes(key, 32, "key");
  std::vector<std::int64_t> slots;
  try {
    py::gil_scoped_release release;
    dpfair::ChaCha20Bits rng(reinterpret_cast<const std::uint8_t*>(k.data()));
    slots = dpfair::poisson_slots(rng, total, t, s);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  py::array_t<std::int64_t> out(static_cast<py::ssize_t>(slots.size()));
  std::copy(slots.begin(), slots.end(), out.mutable_data());
  return out;
}

}  // namespace

void bind_secure_noise(pybind11::module_& m) {
  m.def("chacha20_block", &chacha20_block, py::arg("key"), py::arg("counter"), py::arg("nonce"),
        "The 64-byte ChaCha20 block (RFC 8439 section 2.3) for a 32-byte key, a block counter and a 12-byte nonce.");
  m.def("discrete_gaussian_noise", &exact_draws<dpfair::discrete_gaussian>, py::arg("key"), py::arg("size"),
        py::arg("sigma2_num"), py::arg("sigma2_den"),
        "size exact discrete Gaussian draws, sigma^2 = sigma2_num/sigma2_den, from the ChaCha20 stream of key "
        "(see dpfair_native.kernels.discrete_gaussian_noise).");
  m.def("discrete_laplace_noise", &exact_draws<dpfair::discrete_laplace>, py::arg("key"), py::arg("size"),
        py::arg("scale_num"), py::arg("scale_den"),
        "size exact discrete Laplace draws, scale = scale_num/scale_den, from the ChaCha20 stream of key "
        "(see dpfair_native.kernels.discrete_laplace_noise).");
  m.def("secure_poisson_slots", &poisson_slots, py::arg("key"), py::arg("total"), py::arg("lambda_den"),
        py::arg("lambda_num"),
        "The slots of {0..total-1} selected independently with probability 1 - exp(-lambda_num/lambda_den), from "
        "the ChaCha20 stream of key (see dpfair_native.kernels.secure_poisson_slots).");
}
