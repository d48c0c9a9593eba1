/// @file armlower/tosa/level.hpp
/// TOSA levels (none and 8K) and their limits.
///
/// Semantics: TOSA 1.0 `tosa.xml` `<levels>`; MAX_SHAPE_LEN added by 1.1
/// (TOSA 1.0 `tosa.xml` `<levels>`; same numbers as MLIR `TOSA_LEVEL_EIGHTK`).
#pragma once

#include <cstdint>
#include <string_view>

namespace armlower::tosa {

/// A TOSA level. ExecuTorch's spec strings select `eight_k` with the token "8k".
enum class level : std::uint8_t {
  none,     ///< no level limits beyond the implementation's
  eight_k,  ///< level 8K
};

/// The limits of one level (all counts; sizes in log2 bytes).
struct level_limits {
  std::int64_t max_rank;              ///< MAX_RANK: rank of every operand and result
  std::int64_t max_kernel;            ///< MAX_KERNEL: conv/pool kernel, pad, dilation·K
  std::int64_t max_stride;            ///< MAX_STRIDE
  std::int64_t max_scale;             ///< MAX_SCALE: RESIZE scale_n/scale_d
  std::int64_t max_log2_size;         ///< MAX_LOG2_SIZE: tensor byte size < 2^this
  std::int64_t max_nesting;           ///< MAX_NESTING: COND_IF/WHILE_LOOP nesting
  std::int64_t max_tensor_list_size;  ///< MAX_TENSOR_LIST_SIZE
  std::int64_t max_shape_len;         ///< MAX_SHAPE_LEN (1.1)
  friend constexpr bool operator==(const level_limits&, const level_limits&) = default;
};

/// The limits of `l` (tosa.xml `<levels>`).
[[nodiscard]] constexpr level_limits limits(level l) noexcept {
  if (l == level::eight_k) return {6, 8192, 8192, 256, 31, 6, 64, 16};
  return {32, 2147483647, 2147483647, 2048, 63, 256, 256, 64};
}

/// "none" / "8K".
[[nodiscard]] constexpr std::string_view name(level l) noexcept {
  return l == level::eight_k ? "8K" : "none";
}

}  // namespace armlower::tosa
