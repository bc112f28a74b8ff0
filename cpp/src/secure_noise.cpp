// Exact discrete samplers (CKS 2020) on a ChaCha20 bit stream. Integer arithmetic only.
//
// Ranges (why unsigned __int128 never overflows): the samplers take rationals with numerator and denominator
// <= 2^48. discrete_gaussian with σ² = N/D uses t = ⌊σ⌋ + 1 <= 2^24 + 1, D·t² <= N + 2√(ND) + D <= 2^50, so the
// acceptance exponent γ = (|Y|·D·t − N)² / (2·N·D·t²) has denominator <= 2^99, and its numerator fits whenever
// |Y|·D·t < 2^62. A Laplace proposal with |Y|·D·t >= 2^62 is rejected (a loop iteration like any other). That
// truncates the output to |z| < L = 2^62/(D·t), i.e. L >= 2^12·max(σ, 1), whose discrete-Gaussian tail mass is
// below exp(−2^22): a δ of at most (1 + e^ε)·exp(−2^22) per draw, added to the mechanism's δ (documented in
// kernels.discrete_gaussian_noise). discrete_laplace likewise rejects |y| >= 2^62 (>= 2^14 scales: tail mass
// exp(−2^14), an additive δ below 2·exp(−2^14) per draw).
#include "dpfair/secure_noise.hpp"

#include <cmath>
#include <stdexcept>

namespace dpfair {
namespace {

inline std::uint32_t rotl(std::uint32_t v, int c) { return (v << c) | (v >> (32 - c)); }

inline void quarter_round(std::uint32_t* s, int a, int b, int c, int d) {
  s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 16);
  s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 12);
  s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 8);
  s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 7);
}

int bit_length(std::uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
#else
  int k = 0;
  for (; v != 0; v >>= 1) ++k;
  return k;
#endif
}

std::uint64_t isqrt(std::uint64_t v) {  // ⌊√v⌋, exact
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(v)));
  while (r > 0 && static_cast<u128>(r) * r > v) --r;
  while (static_cast<u128>(r + 1) * (r + 1) <= v) ++r;
  return r;
}

// Bernoulli(exp(−num/den)) for num <= den (CKS Algorithm 1, γ in [0, 1]): K <- 1; while Bernoulli(γ/K): K++;
// return K odd. Bernoulli(γ/K) is drawn as Bernoulli(1/K) and then Bernoulli(γ) (independent, product γ/K).
bool bernoulli_exp_unit(ChaCha20Bits& rng, u128 num, u128 den) {
  std::uint64_t k = 1;
  while (bernoulli_rational(rng, 1, k) && bernoulli_rational(rng, num, den)) ++k;
  return (k & 1u) == 1u;
}

}  // namespace

void chacha20_block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                    std::uint32_t out[16]) {
  std::uint32_t s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
  for (int i = 0; i < 8; ++i) s[4 + i] = key[i];
  s[12] = counter;
  s[13] = nonce[0];
  s[14] = nonce[1];
  s[15] = nonce[2];
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = s[i];
  for (int round = 0; round < 10; ++round) {
    quarter_round(x, 0, 4, 8, 12);
    quarter_round(x, 1, 5, 9, 13);
    quarter_round(x, 2, 6, 10, 14);
    quarter_round(x, 3, 7, 11, 15);
    quarter_round(x, 0, 5, 10, 15);
    quarter_round(x, 1, 6, 11, 12);
    quarter_round(x, 2, 7, 8, 13);
    quarter_round(x, 3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + s[i];
}

ChaCha20Bits::ChaCha20Bits(const std::uint8_t key[32]) {
  for (int i = 0; i < 8; ++i) {
    key_[i] = static_cast<std::uint32_t>(key[4 * i]) | (static_cast<std::uint32_t>(key[4 * i + 1]) << 8) |
              (static_cast<std::uint32_t>(key[4 * i + 2]) << 16) | (static_cast<std::uint32_t>(key[4 * i + 3]) << 24);
  }
}

std::uint32_t ChaCha20Bits::next_word() {
  if (index_ == 16) {
    const std::uint32_t nonce[3] = {static_cast<std::uint32_t>(block_ >> 32), 0u, 0u};
    chacha20_block(key_, static_cast<std::uint32_t>(block_), nonce, out_);
    ++block_;
    index_ = 0;
  }
  return out_[index_++];
}

std::uint64_t ChaCha20Bits::uniform_below(std::uint64_t m) {
  if (m <= 1) return 0;
  const int k = bit_length(m - 1);
  while (true) {
    std::uint64_t r;
    if (k <= 32) {
      r = bits(k);
    } else {
      r = bits(32);
      r |= static_cast<std::uint64_t>(bits(k - 32)) << 32;
    }
    if (r < m) return r;
  }
}

// U = 0.u1u2... (random bits) against p = rem/den = 0.p1p2... (long division, 0 < rem < den, 2·den fits in U):
// U < p is decided at the first differing bit. Expected 2 bits; exact.
template <class U>
bool bernoulli_digits(ChaCha20Bits& rng, U rem, U den) {
  while (true) {
    rem <<= 1;
    std::uint32_t p_bit = 0;
    if (rem >= den) {
      rem -= den;
      p_bit = 1;
    }
    const std::uint32_t u_bit = rng.bits(1);
    if (u_bit != p_bit) return u_bit < p_bit;
  }
}

// Bernoulli(num/den), exact: the same bits on 64-bit arithmetic when den <= 2^62.
bool bernoulli_rational(ChaCha20Bits& rng, u128 num, u128 den) {
  if (num == 0) return false;
  if (num >= den) return true;
  if (den <= (std::uint64_t(1) << 62)) {
    return bernoulli_digits<std::uint64_t>(rng, static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den));
  }
  return bernoulli_digits<u128>(rng, num, den);
}

// CKS Algorithm 1 for γ > 1: ⌊γ⌋ independent Bernoulli(exp(−1)) must all be 1, then Bernoulli(exp(−(γ − ⌊γ⌋))).
bool bernoulli_exp(ChaCha20Bits& rng, u128 num, u128 den) {
  if (num == 0) return true;
  if (num < den) return bernoulli_exp_unit(rng, num, den);  // γ < 1: no division needed
  const u128 whole = num / den;
  for (u128 i = 0; i < whole; ++i) {
    if (!bernoulli_exp_unit(rng, 1, 1)) return false;
  }
  return bernoulli_exp_unit(rng, num % den, den);
}

// CKS Algorithm 2's geometric (t, s >= 1): U uniform on {0..t−1}, accepted with prob exp(−U/t) (else redrawn);
// V ~ Geometric(1 − e^{−1}) by counting Bernoulli(exp(−1)) successes; X = U + t·V ~ Geometric(1 − e^{−1/t}), so
// P(X >= x) = e^{−x/t}; Y = ⌊X/s⌋ has P(Y >= k) = P(X >= k·s) = e^{−k·s/t}.
u128 geometric_exp(ChaCha20Bits& rng, std::uint64_t t, std::uint64_t s) {
  while (true) {
    const std::uint64_t u = rng.uniform_below(t);
    if (!bernoulli_exp(rng, u, t)) continue;
    u128 v = 0;
    while (bernoulli_exp(rng, 1, 1)) ++v;
    if (v < (u128(1) << 14) && t <= kSecureMaxRational) {  // u + t·v < 2^62: a 64-bit division suffices
      return (u + t * static_cast<std::uint64_t>(v)) / s;
    }
    return (static_cast<u128>(u) + static_cast<u128>(t) * v) / s;
  }
}

// CKS Algorithm 2 (scale t/s): Y = geometric_exp(t, s); a sign bit; reject (−, 0) so that 0 is not counted twice.
std::int64_t discrete_laplace(ChaCha20Bits& rng, std::uint64_t t, std::uint64_t s) {
  if (t < 1 || s < 1 || t > kSecureMaxRational || s > kSecureMaxRational) {
    throw std::invalid_argument("discrete Laplace scale t/s needs 1 <= t, s <= 2^48");
  }
  constexpr u128 kLimit = static_cast<u128>(1) << 62;
  while (true) {
    const u128 y = geometric_exp(rng, t, s);
    const bool negative = rng.bits(1) == 1;
    if (negative && y == 0) continue;
    if (y >= kLimit) continue;  // astronomically unlikely; see the file comment
    const auto m = static_cast<std::int64_t>(y);
    return negative ? -m : m;
  }
}

// CKS Algorithm 3 with σ² = N/D: t = ⌊σ⌋ + 1; Y ~ DLap(t); accept with prob exp(−(|Y| − σ²/t)²/(2σ²)).
std::int64_t discrete_gaussian(ChaCha20Bits& rng, std::uint64_t num, std::uint64_t den) {
  if (num < 1 || den < 1 || num > kSecureMaxRational || den > kSecureMaxRational) {
    throw std::invalid_argument("discrete Gaussian sigma^2 = num/den needs 1 <= num, den <= 2^48");
  }
  const std::uint64_t t = isqrt(num / den) + 1;
  const u128 dt = static_cast<u128>(den) * t;
  const u128 gamma_den = 2 * static_cast<u128>(num) * dt * t;
  constexpr u128 kLimit = static_cast<u128>(1) << 62;
  while (true) {
    const std::int64_t y = discrete_laplace(rng, t, 1);
    const u128 abs_y = static_cast<u128>(y < 0 ? -y : y);  // |y| < 2^62: no overflow
    if (abs_y >= kLimit / dt) continue;  // |Y| >= ⌊2^62/(D·t)⌋: see the file comment
    const u128 a = abs_y * dt;
    const u128 diff = a >= num ? a - num : num - a;
    if (bernoulli_exp(rng, diff * diff, gamma_den)) return y;
  }
}

std::vector<std::int64_t> poisson_slots(ChaCha20Bits& rng, std::int64_t total, std::uint64_t t, std::uint64_t s) {
  if (t < 1 || s < 1 || t > kSecureMaxRational || s > kSecureMaxRational) {
    throw std::invalid_argument("Poisson sampling rate: lambda = s/t needs 1 <= t, s <= 2^48");
  }
  if (total < 0) throw std::invalid_argument("total must be >= 0");
  std::vector<std::int64_t> slots;
  std::int64_t last = -1;  // slot i is selected at gap 1 + Y after the previous one (the first: Y after −1)
  while (true) {
    const u128 y = geometric_exp(rng, t, s);
    if (y >= static_cast<u128>((total - 1) - last)) return slots;  // the next selection lies past the end
    last += 1 + static_cast<std::int64_t>(y);
    slots.push_back(last);
  }
}

void sigma2_upper_rational(double sigma2, std::uint64_t& num, std::uint64_t& den) {
  if (!(std::isfinite(sigma2) && sigma2 > 0.0)) {
    throw std::invalid_argument("the secure noise variance must be a finite number > 0");
  }
  const double limit = static_cast<double>(kSecureMaxRational) - 2.0;
  for (int k = 20; k >= 0; --k) {
    const double x = std::ldexp(sigma2, k);
    if (x <= limit) {
      num = static_cast<std::uint64_t>(std::ceil(x)) + 1;
      den = std::uint64_t(1) << k;
      return;
    }
  }
  throw std::invalid_argument("the secure noise standard deviation exceeds 2^24 grid units; use a coarser grid");
}

}  // namespace dpfair
