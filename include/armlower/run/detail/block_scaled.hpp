/// @file armlower/run/detail/block_scaled.hpp
/// The TOSA 1.1-draft block-scaled ops of the interpreter (TOSA 1.1 draft specification, EXT-MXFP operators):
/// CAST_TO_BLOCK_SCALED, CAST_FROM_BLOCK_SCALED, MATMUL_T_BLOCK_SCALED. Operand checks (the
/// ERROR_IFs, naming the tensor) here; the arithmetic is armlower's MX kernels
/// (`armlower/kernels/mx/`).
#pragma once

#include <armlower/kernels/mx/cast_from_block_scaled.hpp>
#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled_packed.hpp>
#include <armlower/mx/bf16.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/run/detail/context.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace armlower::run::detail {

/// Checks the block_size attribute (BLOCK_SIZE_32 is the only value of the 1.1 draft).
[[nodiscard]] inline status check_block_size(const op_context& c) {
  const auto* a = c.attr<graph::block_scaled_attr>();
  if (a == nullptr)
    return c.fail(errc::invalid_graph, {}, "a block-scaled op needs a block_scaled_attr (block_size)");
  if (a->block_size != armlower::mx::block_size)
    return c.fail(errc::error_if, {},
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
  if (shape.empty()) return c.fail(errc::error_if, name, "rank must be >= 1");
  if (shape.back() % armlower::mx::block_size != 0)
    return c.fail(errc::error_if, name,
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
    return c.fail(errc::unsupported, c.in_name(0),
                  "input dtype " + std::string(dtype::name(x.type)) + " (rows: FP32, BF16)");
  if (!armlower::mx::is_element(out_t))
    return c.fail(errc::unsupported, c.out_name(0),
                  "output_data dtype " + std::string(dtype::name(out_t)) + " is not an MX element type");
  if (c.out(1).type != dtype::id::fp8ue8m0)
    return c.fail(errc::error_if, c.out_name(1), "output_scale must be FP8UE8M0");
  if (auto e = check_block_dim(c, x.shape, c.in_name(0))) return e;
  if (auto e = c.expect_out_shape(0, x.shape)) return e;
  if (auto e = c.expect_out_shape(1, scale_shape_of(x.shape))) return e;
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
  if (s != armlower::mx::status::ok) return c.kernel_fail(s, c.in_name(0));
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
    return c.fail(errc::unsupported, c.in_name(0),
                  "input_data dtype " + std::string(dtype::name(x.type)) + " is not an MX element type");
  if (auto e = c.expect_type(1, dtype::id::fp8ue8m0, "input_scale")) return e;
  if (out_t != dtype::id::fp32 && out_t != dtype::id::bf16)
    return c.fail(errc::unsupported, c.out_name(0),
                  "output dtype " + std::string(dtype::name(out_t)) + " (rows: FP32, BF16)");
  if (auto e = check_block_dim(c, x.shape, c.in_name(0))) return e;
  if (sc.shape != scale_shape_of(x.shape))
    return c.fail(errc::error_if, c.in_name(1),
                  "input_scale shape " + to_string(sc.shape) + " must be " + to_string(scale_shape_of(x.shape)));
  if (auto e = c.expect_out_shape(0, x.shape)) return e;
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
  if (s != armlower::mx::status::ok) return c.kernel_fail(s, c.in_name(0));
  return c.set(0, std::move(r));
}

/// MATMUL_T_BLOCK_SCALED [A_data, A_scale, B_data, B_scale] → [output]: A [N,H,C], B [D,W,C]
/// (D ∈ {1, N}), both of one MX element type, scales FP8UE8M0 [.., C/32], output FP32 [N,H,W].
/// Runs the MX kernel's fastest bit-exact path (`best` for FP4/FP6/MXINT8, else `reference`: the
/// pseudocode, per-block fp32 sums × scale product); in a session, a constant B with D = 1 is packed
/// once (`kernels::mx::pack_b`) and later runs read the packing.
[[nodiscard]] inline status eval_matmul_t_block_scaled(const op_context& c) {
  if (auto e = check_block_size(c)) return e;
  const auto& ad = c.in(0);
  const auto& as = c.in(1);
  const auto& bd = c.in(2);
  const auto& bs = c.in(3);
  if (!armlower::mx::is_element(ad.type))
    return c.fail(errc::unsupported, c.in_name(0),
                  "A_data dtype " + std::string(dtype::name(ad.type)) + " is not an MX element type");
  if (bd.type != ad.type)
    return c.fail(errc::error_if, c.in_name(2),
                  "B_data dtype " + std::string(dtype::name(bd.type)) + " differs from A_data's " + std::string(dtype::name(ad.type)));
  if (auto e = c.expect_type(1, dtype::id::fp8ue8m0, "A_scale")) return e;
  if (auto e = c.expect_type(3, dtype::id::fp8ue8m0, "B_scale")) return e;
  if (c.out(0).type != dtype::id::fp32)
    return c.fail(errc::error_if, c.out_name(0), "output must be FP32");
  if (ad.shape.size() != 3) return c.fail(errc::error_if, c.in_name(0), "A_data must be rank 3 [N,H,C], is " + to_string(ad.shape));
  if (bd.shape.size() != 3) return c.fail(errc::error_if, c.in_name(2), "B_data must be rank 3 [D,W,C], is " + to_string(bd.shape));
  if (auto e = check_block_dim(c, ad.shape, c.in_name(0))) return e;
  if (bd.shape[2] != ad.shape[2])
    return c.fail(errc::error_if, c.in_name(2),
                  "B_data C " + std::to_string(bd.shape[2]) + " != A_data C " + std::to_string(ad.shape[2]));
  if (bd.shape[0] != 1 && bd.shape[0] != ad.shape[0])
    return c.fail(errc::error_if, c.in_name(2),
                  "B_data batch D " + std::to_string(bd.shape[0]) + " must be 1 or A's N " + std::to_string(ad.shape[0]));
  if (as.shape != scale_shape_of(ad.shape))
    return c.fail(errc::error_if, c.in_name(1), "A_scale shape " + to_string(as.shape) + " must be " + to_string(scale_shape_of(ad.shape)));
  if (bs.shape != scale_shape_of(bd.shape))
    return c.fail(errc::error_if, c.in_name(3), "B_scale shape " + to_string(bs.shape) + " must be " + to_string(scale_shape_of(bd.shape)));
  const auto b_bytes = graph::encode_codes(bd.type, bd.codes);
  std::vector<std::int32_t> out_shape{ad.shape[0], ad.shape[1], bd.shape[1]};
  if (auto e = c.expect_out_shape(0, out_shape)) return e;
  const kernels::mx::block_scaled_view b{b_bytes, bd.shape, bs.codes, bs.shape};
  // The fastest compiled-in path where it is bit-identical to the pseudocode (FP4/FP6/MXINT8), else
  // the pseudocode itself (FP8), so the interpreter matches the TOSA reference model bit for bit.
  const auto path = kernels::mx::bit_exact(ad.type, kernels::mx::matmul_path::best) ? kernels::mx::matmul_path::best
                                                                                     : kernels::mx::matmul_path::reference;
  // A on `b` (or, in a prepared form, on B packed): the result
  auto multiply = [out_shape](const op_context& c, auto&& b_operand, auto&&... path_arg) -> status {
    const auto& ad = c.in(0);
    const auto& as = c.in(1);
    const auto a_bytes = graph::encode_codes(ad.type, ad.codes);
    value r{dtype::id::fp32, out_shape, {}, std::vector<float>(static_cast<std::size_t>(graph::element_count(out_shape))), {}};
    const kernels::mx::block_scaled_view a{a_bytes, ad.shape, as.codes, as.shape};
    const auto s = kernels::mx::matmul_t_block_scaled(ad.type, a, b_operand, r.reals, path_arg...);
    if (s != armlower::mx::status::ok) return c.kernel_fail(s, c.in_name(0));
    return c.set(0, std::move(r));
  };
  if (bd.shape[0] == 1 && c.preparable({0, 1})) {
    // a session's constant B (weights): packed once for `path` (`kernels::mx::pack_b`; tiles16 where the
    // path has it), and later runs encode only A and run the packed kernel (the same bits)
    // (placed at a 64-byte boundary of its storage: `kernels::mx::packed_b_in`)
    const auto w = static_cast<std::size_t>(bd.shape[1]), k = static_cast<std::size_t>(bd.shape[2]);
    auto storage = std::make_shared<std::vector<std::uint8_t>>(kernels::mx::packed_b_storage_size(ad.type, w, k, path));
    const std::span<std::uint8_t> packed = kernels::mx::packed_b_in(*storage, ad.type, w, k, path);
    if (!packed.empty() && kernels::mx::pack_b(ad.type, b, packed, path) == armlower::mx::status::ok) {
      auto run_packed = [storage, packed, multiply](const op_context& c) {
        return multiply(c, kernels::mx::packed_b_view{packed});
      };
      c.prepare(run_packed, {0, 1});
      return run_packed(c);
    }
  }
  return multiply(c, b, path);
}

// --------------------------------------------------------------------------------------------
// Kernel bindings (`kernel<O>`, context.hpp)

template <>
struct kernel<tosa::op::cast_to_block_scaled> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_cast_to_block_scaled(c); }
};
template <>
struct kernel<tosa::op::cast_from_block_scaled> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_cast_from_block_scaled(c); }
};
template <>
struct kernel<tosa::op::matmul_t_block_scaled> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_matmul_t_block_scaled(c); }
};

}  // namespace armlower::run::detail
