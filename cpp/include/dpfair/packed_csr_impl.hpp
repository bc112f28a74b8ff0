// PackedCsr's representation, for the kernels that run on it (sparse.cpp: DP-SGD; constrained_sgd.cpp: the
// fairness-constrained loop). Internal: not part of the kernels' interface.
#pragma once

#include <cstdint>
#include <variant>

#include "dpfair/packed_rows.hpp"
#include "dpfair/sparse.hpp"

namespace dpfair {

// 16-bit column indices when d <= 65536, else 32-bit; values as X stores them.
struct PackedCsr::Impl {
  std::variant<csr_rows::PackedRows<float, std::uint16_t>, csr_rows::PackedRows<double, std::uint16_t>,
               csr_rows::PackedRows<float, std::uint32_t>, csr_rows::PackedRows<double, std::uint32_t>>
      packed;
};

}  // namespace dpfair
