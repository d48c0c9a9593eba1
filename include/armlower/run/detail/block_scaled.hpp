/// @file armlower/run/detail/block_scaled.hpp
/// The TOSA 1.1-draft block-scaled ops of the interpreter (`../shared/reference/tosa.md` §3.6):
/// CAST_TO_BLOCK_SCALED, CAST_FROM_BLOCK_SCALED, MATMUL_T_BLOCK_SCALED. Operand checks (the
/// ERROR_IFs, naming the tensor) here; the arithmetic is armlower's MX kernels
/// (`armlower/kernels/mx/`).
#pragma once

#include <armlower/kernels/mx/cast_from_block_scaled.hpp>
#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/mx/bf16.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/run/detail/context.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace armlower::run::detail {

/// Maps an MX kernel status to an error about `tensor`.
[[nodiscard]] inline error mx_error(const op_context& c, armlower::mx::status s, std::string_view tensor) {
  using armlower::mx::status;
  const error_kind k = s == status::unsupported_type || s == status::unsupported_path ? error_kind::unsupported
                       : s == status::buffer_size                                     ? error_kind::invalid_graph
                                                                                      : error_kind::error_if;
  return c.fail(k, tensor, std::string("MX kernel: ") + armlower::mx::describe(s));
}

/// Checks the block_size attribute (BLOCK_SIZE_32 is the only value of the 1.1 draft).
[[nodiscard]] inline status check_block_size(const op_context& c) {
  const auto* a = c.attr<graph::block_scaled_attr>();
  if (a == nullptr)
    return c.fail(error_kind::invalid_graph, {}, "a block-scaled op needs a block_scaled_attr (block_size)");
  if (a->block_size != armlower::mx::block_size)
    return c.fail(error_kind::error_if, {},
                  "block_size " + std::to_string(a->block_size) + " is not BLOCK_SIZE_32");
  return std::nullopt;
}

/// `shape` with the last dim divided by the block size.
[[nodiscard]] inline std::vector<std::int32_t> scale_shape_of(std::vector<std::int32_t> shape) {
  if (!shape.empty()) shape.back() /= armlower::mx::block_size;
  return shape;
}

/// Checks that `v` (operand or result called `name`) is a valid block-scaled data shape:
/// rank ≥ 1 and last dim a multiple of 32.
[[nodiscard]] inline status check_block_dim(const op_context& c, const std::vector<std::int32_t>& shape,
                                            std::string_view name) {
  if (shape.empty()) return c.fail(error_kind::error_if, name, "rank must be >= 1");
  if (shape.back() % armlower::mx::block_size != 0)
    return c.fail(error_kind::error_if, name,
                  "last dim " + std::to_string(shape.back()) + " is not a multiple of block_size 32");
  return std::nullopt;
}

/// CAST_TO_BLOCK_SCALED [input_data] → [output_data, output_scale]: in_t FP32 or BF16, out_t an
/// MX element type (the first result's dtype), scale FP8UE8M0 of shape input with last dim / 32.
[[nodiscard]] inline status eval_cast_to_block_scaled(const op_context& c) {
  if (auto e = check_block_size(c)) return e;
  const auto& x = c.in(0);
  const auto out_t = c.out(0).type;
  if (x.type != dtype::id::fp32 && x.type != dtype::id::bf16)
    return c.fail(error_kind::unsupported, c.in_name(0),
                  "input dtype " + std::string(dtype::name(x.type)) + " (rows: FP32, BF16)");
  if (!armlower::mx::is_element(out_t))
    return c.fail(error_kind::unsupported, c.out_name(0),
                  "output_data dtype " + std::string(dtype::name(out_t)) + " is not an MX element type");
  if (c.out(1).type != dtype::id::fp8ue8m0)
    return c.fail(error_kind::error_if, c.out_name(1), "output_scale must be FP8UE8M0");
  if (auto e = check_block_dim(c, x.shape, c.in_name(0))) return e;
  const auto n = static_cast<std::size_t>(x.size());
  std::vector<std::uint8_t> data(armlower::mx::storage_bytes(out_t, n));
  std::vector<std::uint8_t> scale(n / armlower::mx::block_size);
  armlower::mx::status s{};
  if (x.type == dtype::id::fp32) {
    s = kernels::mx::cast_to_block_scaled(x.reals, x.shape, out_t, data, scale);
  } else {
    std::vector<std::uint16_t> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = armlower::mx::fp32_to_bf16(x.reals[i]);
    s = kernels::mx::cast_to_block_scaled(bits, x.shape, out_t, data, scale);
  }
  if (s != armlower::mx::status::ok) return mx_error(c, s, c.in_name(0));
  value vd{out_t, x.shape, {}, {}, graph::decode_codes(out_t, data, static_cast<std::int64_t>(n))};
  value vs{dtype::id::fp8ue8m0, scale_shape_of(x.shape), {}, {}, std::move(scale)};
  if (auto e = c.set(0, std::move(vd))) return e;
  return c.set(1, std::move(vs));
}

/// CAST_FROM_BLOCK_SCALED [input_data, input_scale] → [output]: in_t an MX element type,
/// scale FP8UE8M0 with shape = data shape with last dim / 32, out_t FP32 or BF16 (the result's dtype).
[[nodiscard]] inline status eval_cast_from_block_scaled(const op_context& c) {
  if (auto e = check_block_size(c)) return e;
  const auto& x = c.in(0);
  const auto& sc = c.in(1);
  const auto out_t = c.out(0).type;
  if (!armlower::mx::is_element(x.type))
    return c.fail(error_kind::unsupported, c.in_name(0),
                  "input_data dtype " + std::string(dtype::name(x.type)) + " is not an MX element type");
  if (auto e = c.expect_type(1, dtype::id::fp8ue8m0, "input_scale")) return e;
  if (out_t != dtype::id::fp32 && out_t != dtype::id::bf16)
    return c.fail(error_kind::unsupported, c.out_name(0),
                  "output dtype " + std::string(dtype::name(out_t)) + " (rows: FP32, BF16)");
  if (auto e = check_block_dim(c, x.shape, c.in_name(0))) return e;
  if (sc.shape != scale_shape_of(x.shape))
    return c.fail(error_kind::error_if, c.in_name(1),
                  "input_scale shape " + to_string(sc.shape) + " must be " + to_string(scale_shape_of(x.shape)));
  const auto n = static_cast<std::size_t>(x.size());
  const auto data = graph::encode_codes(x.type, x.codes);
  value r{out_t, x.shape, {}, std::vector<float>(n), {}};
  armlower::mx::status s{};
  if (out_t == dtype::id::fp32) {
    s = kernels::mx::cast_from_block_scaled(x.type, data, x.shape, sc.codes, sc.shape, std::span<float>(r.reals));
  } else {
    std::vector<std::uint16_t> bits(n);
    s = kernels::mx::cast_from_block_scaled(x.type, data, x.shape, sc.codes, sc.shape, std::span<std::uint16_t>(bits));
    for (std::size_t i = 0; i < n; ++i) r.reals[i] = armlower::mx::bf16_to_fp32(bits[i]);
  }
  if (s != armlower::mx::status::ok) return mx_error(c, s, c.in_name(0));
  return c.set(0, std::move(r));
}

[[nodiscard]] inline status eval_matmul_t_block_scaled(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "MATMUL_T_BLOCK_SCALED kernel not wired yet");
}

}  // namespace armlower::run::detail
