/// @file armlower/serialize/detail/wiring.hpp
/// Operand counts and attribute kinds of the ops armlower serializes (TOSA 1.0
/// `tosa.xml` operator arguments, as written by serialization_lib `tosa_serializer.py`: CONV2D [input, weight, bias, input_zp, weight_zp]; RESCALE [input, multiplier,
/// shift, input_zp, output_zp]; MATMUL [A, B, A_zp, B_zp]; MUL [a, b, shift]; RESHAPE
/// [x, shape]; CAST_TO_BLOCK_SCALED [x] → [data, scale]; CAST_FROM_BLOCK_SCALED [data, scale];
/// MATMUL_T_BLOCK_SCALED [A, A_scale, B, B_scale]).
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/tosa/op.hpp>

#include <cstddef>
#include <string_view>

namespace armlower::serialize::detail {

/// Which `graph::attribute` alternative an op carries (index into the variant).
enum class attr_kind : std::uint8_t {
  none = 0,          ///< std::monostate: empty attribute table
  conv2d = 1,        ///< graph::conv2d_attr
  rescale = 2,       ///< graph::rescale_attr
  transpose = 3,     ///< graph::transpose_attr
  clamp = 4,         ///< graph::clamp_attr
  block_scaled = 5,  ///< graph::block_scaled_attr
};

/// Wiring of one op.
struct wiring {
  std::size_t inputs;
  std::size_t outputs;
  attr_kind attr;
};

[[nodiscard]] constexpr wiring wiring_of(tosa::op o) noexcept {
  switch (o) {
    case tosa::op::const_: return {0, 1, attr_kind::none};
    case tosa::op::reshape: return {2, 1, attr_kind::none};
    case tosa::op::transpose: return {1, 1, attr_kind::transpose};
    case tosa::op::conv2d: return {5, 1, attr_kind::conv2d};
    case tosa::op::matmul: return {4, 1, attr_kind::none};
    case tosa::op::rescale: return {5, 1, attr_kind::rescale};
    case tosa::op::add: return {2, 1, attr_kind::none};
    case tosa::op::mul: return {3, 1, attr_kind::none};
    case tosa::op::clamp: return {1, 1, attr_kind::clamp};
    case tosa::op::cast: return {1, 1, attr_kind::none};
    case tosa::op::cast_to_block_scaled: return {1, 2, attr_kind::block_scaled};
    case tosa::op::cast_from_block_scaled: return {2, 1, attr_kind::block_scaled};
    case tosa::op::matmul_t_block_scaled: return {4, 1, attr_kind::block_scaled};
  }
  return {0, 0, attr_kind::none};
}

/// Name of the C++ attribute type an op needs ("conv2d_attr"), for error messages.
[[nodiscard]] constexpr std::string_view attr_name(attr_kind k) noexcept {
  switch (k) {
    case attr_kind::none: return "no attribute (std::monostate)";
    case attr_kind::conv2d: return "conv2d_attr";
    case attr_kind::rescale: return "rescale_attr";
    case attr_kind::transpose: return "transpose_attr";
    case attr_kind::clamp: return "clamp_attr";
    case attr_kind::block_scaled: return "block_scaled_attr";
  }
  return "?";
}

static_assert(std::is_same_v<std::variant_alternative_t<1, graph::attribute>, graph::conv2d_attr> &&
              std::is_same_v<std::variant_alternative_t<2, graph::attribute>, graph::rescale_attr> &&
              std::is_same_v<std::variant_alternative_t<3, graph::attribute>, graph::transpose_attr> &&
              std::is_same_v<std::variant_alternative_t<4, graph::attribute>, graph::clamp_attr> &&
              std::is_same_v<std::variant_alternative_t<5, graph::attribute>, graph::block_scaled_attr>,
              "attr_kind must follow graph::attribute's alternative order");

}  // namespace armlower::serialize::detail
