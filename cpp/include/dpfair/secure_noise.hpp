// Exact discrete noise for the secure sampling path: a ChaCha20 keystream (RFC 8439 block function) read as a bit
// stream, and integer-only samplers of Bernoulli(p), Bernoulli(exp(−γ)), the discrete Laplace and the discrete
// Gaussian (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential Privacy", Algorithms 1–3).
// No floating-point operation touches a sample: every probability is a ratio of integers (unsigned __int128).
//
// The bit stream is specified exactly (python/dpfair_native/_reference.py reproduces it bit for bit):
//   block j = ChaCha20 block function with the 32-byte key, block counter j mod 2^32 in state word 12, nonce words
//   13..15 = (j >> 32, 0, 0) (so the stream is RFC 8439's keystream with nonce 0 for its first 2^32 blocks);
//   words = the 16 little-endian 32-bit output words of block 0, then of block 1, ...;
//   bits(k), 1 <= k <= 32: a 64-bit buffer filled with whole words at its top end (buf |= word << n) whenever it
//   holds fewer than k bits; returns its k low bits and shifts them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dpfair {

using u128 = unsigned __int128;

// The RFC 8439 §2.3 block function: key (8 words), counter, nonce (3 words) -> 16 output words (state + input).
void chacha20_block(const std::uint32_t key[8], std::uint32_t counter, const std::uint32_t nonce[3],
                    std::uint32_t out[16]);

class ChaCha20Bits {
 public:
  explicit ChaCha20Bits(const std::uint8_t key[32]);
  std::uint32_t next_word();
  std::uint32_t bits(int k) {  // 1 <= k <= 32
    if (n_bits_ < k) {
      buf_ |= static_cast<std::uint64_t>(next_word()) << n_bits_;
      n_bits_ += 32;
    }
    const auto r = static_cast<std::uint32_t>(buf_ & ((std::uint64_t(1) << k) - 1));
    buf_ >>= k;
    n_bits_ -= k;
    return r;
  }
  std::uint64_t uniform_below(std::uint64_t m);  // uniform on {0, ..., m−1}, 1 <= m <= 2^63 (rejection)

 private:
  std::uint32_t key_[8];
  std::uint64_t block_ = 0;
  std::uint32_t out_[16];
  int index_ = 16;
  std::uint64_t buf_ = 0;
  int n_bits_ = 0;
};

// Largest magnitudes the samplers accept (their integer arithmetic is exact below them; see secure_noise.cpp).
constexpr std::uint64_t kSecureMaxRational = std::uint64_t(1) << 48;

// Bernoulli(num/den), 0 <= num, 0 < den < 2^127 (num >= den: 1 without drawing).
bool bernoulli_rational(ChaCha20Bits& rng, u128 num, u128 den);
// Bernoulli(exp(−num/den)), den < 2^127 (CKS Algorithm 1).
bool bernoulli_exp(ChaCha20Bits& rng, u128 num, u128 den);
// Y >= 0 with P(Y >= k) = exp(−k·s/t), 1 <= t, s (the geometric of CKS Algorithm 2; its callers keep t, s <= 2^48).
u128 geometric_exp(ChaCha20Bits& rng, std::uint64_t t, std::uint64_t s);
// Poisson sampling of the slots {0, ..., total − 1}: each is selected independently with probability
// p = 1 − exp(−s/t) (1 <= t, s <= 2^48), drawn as gaps 1 + geometric_exp(t, s) between successive selected slots
// (P(gap > k) = (1 − p)^k). Returns the selected slots in increasing order.
std::vector<std::int64_t> poisson_slots(ChaCha20Bits& rng, std::int64_t total, std::uint64_t t, std::uint64_t s);
// One draw from P(z) ∝ exp(−|z|·s/t) on the integers (scale t/s), 1 <= t, s <= 2^48 (CKS Algorithm 2).
std::int64_t discrete_laplace(ChaCha20Bits& rng, std::uint64_t t, std::uint64_t s);
// One draw from P(z) ∝ exp(−z²/(2σ²)), σ² = num/den, 1 <= num, den <= 2^48 (CKS Algorithm 3).
std::int64_t discrete_gaussian(ChaCha20Bits& rng, std::uint64_t num, std::uint64_t den);

// The smallest rational num/2^k >= sigma2 (plus one unit, absorbing the rounding of the double sigma2) with the
// largest k <= 20 keeping num <= 2^48. Throws std::invalid_argument if sigma2 is not finite and > 0 or exceeds
// 2^48 − 2.
void sigma2_upper_rational(double sigma2, std::uint64_t& num, std::uint64_t& den);

}  // namespace dpfair
