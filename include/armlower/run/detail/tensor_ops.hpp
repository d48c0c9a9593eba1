/// @file armlower/run/detail/tensor_ops.hpp
/// CONV2D, MATMUL and RESCALE of the interpreter (TOSA 1.0 and the 1.1 FP8 rows, spec sections
/// CONV2D, MATMUL, RESCALE): operand and attribute checks (ERROR_IFs naming the tensor) here, the
/// type rows from the one op table (`tosa/op_table.hpp`), the arithmetic in armlower's kernels
/// (`kernels/conv2d.hpp`, `kernels/matmul.hpp`, `kernels/rescale.hpp`), whose status codes are
/// mapped to errors. Every declared result shape is checked against the op's shape rule before
/// the result is allocated.
#pragma once

#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/conv2d_packed.hpp>
#include <armlower/kernels/matmul.hpp>
#include <armlower/kernels/rescale.hpp>
#include <armlower/kernels/storage.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/run/detail/context.hpp>
#include <armlower/tosa/op_table.hpp>

#include <array>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace armlower::run::detail {

/// A compile-time type-support row of op `O`: `value` is its position in `tosa::rows_of(O)`.
template <std::size_t I>
using row_constant = std::integral_constant<std::size_t, I>;

/// The type-support row of op `O` at position `I` of `tosa::rows_of(O)`, as a constant.
template <tosa::op O, std::size_t I>
inline constexpr tosa::type_support_row row_of = tosa::rows_of(O)[I];

namespace rows {
template <tosa::op O, class F, std::size_t I>
status call(F& f) {
  return f(row_constant<I>{});
}
template <tosa::op O, class F, class Seq>
struct table;
template <tosa::op O, class F, std::size_t... I>
struct table<O, F, std::index_sequence<I...>> {
  static constexpr status (*fns[])(F&) = {&call<O, F, I>...};  // static storage, not rebuilt per call
};
template <tosa::op O, class F, class Seq>
status visit(std::size_t k, F& f, Seq) {
  return table<O, F, Seq>::fns[k](f);
}
}  // namespace rows

/// Calls `f(row_constant<k>{})` for the run-time position `k` of a row in `tosa::rows_of(O)`:
/// the kernel instantiation is picked from the op table's row (its dtypes mapped to storage by
/// `kernels::storage_t`), one function per row, no list of storage combinations. Precondition:
/// `k < tosa::rows_of(O).size()`.
template <tosa::op O, class F>
[[nodiscard]] status visit_row(std::size_t k, F&& f) {
  return rows::visit<O>(k, f, std::make_index_sequence<tosa::rows_of(O).size()>{});
}

/// Position in `tosa::rows_of(o)` of the row with slot dtypes `sig` and accumulator `acc`, or the
/// row count when there is none.
[[nodiscard]] constexpr std::size_t row_position(tosa::op o, std::span<const dtype::id> sig, dtype::id acc) noexcept {
  const auto rs = tosa::rows_of(o);
  for (std::size_t k = 0; k < rs.size(); ++k) {
    bool same = rs[k].acc == acc && rs[k].arity == sig.size();
    for (std::size_t i = 0; same && i < sig.size(); ++i) same = rs[k].types[i] == sig[i];
    if (same) return k;
  }
  return rs.size();
}

/// The single element of a [1] operand as `T` (precondition: `expect_single` passed).
template <class T>
[[nodiscard]] T scalar_as(const value& v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v.reals[0]);
  else return static_cast<T>(v.ints[0]);
}

/// Checks a [1] zero-point operand `i`: dtype `t`, one element, compile-time constant.
[[nodiscard]] inline status check_zero_point(const op_context& c, std::size_t i, dtype::id t, std::string_view what) {
  if (auto e = c.expect_type(i, t, what)) return e;
  if (auto e = c.expect_single(i, what)) return e;
  return c.require_constant(i, what);
}

/// ERROR_IF(zp != 0) unless the zero point's dtype is INT8 (TOSA 1.0 CONV2D / MATMUL, with the
/// corrected MATMUL rule of later spec revisions; TOSA 1.0 MATMUL, chapters/tensor_ops.adoc).
[[nodiscard]] inline status check_zero_point_is_zero(const op_context& c, std::size_t i, std::string_view what) {
  const auto& v = c.in(i);
  if (v.type == dtype::id::i8) return std::nullopt;
  const bool zero = storage_of(v.type) == storage::real    ? v.reals[0] == 0.0f
                    : storage_of(v.type) == storage::code ? armlower::mx::decode(v.type, v.codes[0]) == 0.0f
                                                          : v.ints[0] == 0;  // −0.0 is zero, NaN is not
  if (zero) return std::nullopt;
  return c.fail(errc::error_if, c.in_name(i),
                std::string(what) + " must be 0 unless its dtype is INT8 (is " + std::string(dtype::name(v.type)) + ")");
}

/// The kernel format of an FP16 / BF16 / FP32 accumulator or output dtype.
[[nodiscard]] constexpr kernels::real_format real_format_of(dtype::id t) noexcept {
  return t == dtype::id::fp16 ? kernels::real_format::fp16
         : t == dtype::id::bf16 ? kernels::real_format::bf16
                                : kernels::real_format::fp32;
}

// --------------------------------------------------------------------------------------------
// CONV2D

/// The elements of operand `v` in the kernel storage type `T`, into `out` (resized; its capacity is
/// reused): integers converted from their storage width (values are within their dtype:
/// `value::check`), float rows exactly (FP16/BF16/FP32 as stored, FP8 codes decoded).
template <class T>
void kernel_elements_into(const value& v, std::vector<T>& out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (storage_of(v.type) == storage::real) {
      out.assign(v.reals.begin(), v.reals.end());
      return;
    }
    out.resize(v.codes.size());
    float* o = out.data();
    for (std::size_t i = 0; i < v.codes.size(); ++i) o[i] = armlower::mx::decode(v.type, v.codes[i]);
  } else {
    v.ints.visit([&out](auto s) {
      out.resize(s.size());
      // through raw pointers: an int8 store through `out[i]` may alias the vectors' own members, which
      // would keep the loop from being vectorised
      T* o = out.data();
      const auto* x = s.data();
      const std::size_t n = s.size();
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<T>(x[i]);  // NOLINT(bugprone-signed-char-misuse): int8 sign-extends
    });
  }
}

/// `kernel_elements_into` a new vector.
template <class T>
[[nodiscard]] std::vector<T> kernel_elements(const value& v) {
  std::vector<T> r;
  kernel_elements_into(v, r);
  return r;
}

/// Operand `i` of `c` in the kernel storage type `T`: the value's own elements when it stores them
/// as `T` (an INT8 operand for an int8 kernel: no copy), else (`kernel_elements`) for a constant held
/// by a session (`op_context::cached_constant`) the copy made on its first use, or converted into the
/// run's scratch buffer `k` (`run_state::scratch`).
template <class T>
[[nodiscard]] std::span<const T> kernel_operand(const op_context& c, std::size_t i, std::size_t k) {
  const auto& v = c.in(i);
  if constexpr (std::is_same_v<T, float>) {
    if (storage_of(v.type) == storage::real) return v.reals;
  } else if constexpr (!std::is_floating_point_v<T>) {
    if (v.ints.holds<T>()) return v.ints.get<T>();
  }
  if (!c.cached_constant(i)) {
    auto& local = c.st.scratch_of<T>(k);
    kernel_elements_into(v, local);
    return local;
  }
  using vec = std::vector<T>;
  const auto key = std::make_pair(c.in_slot(i), kernel_storage(vec{}).index());
  auto it = c.cache->kernel.find(key);
  if (it == c.cache->kernel.end()) it = c.cache->kernel.emplace(key, kernel_elements<T>(v)).first;
  return std::get<vec>(it->second);
}

/// The [1] zero point operand `v` as `T`: 0 for float rows (checked to be zero before).
template <class T>
[[nodiscard]] T kernel_zero_point(const value& v) {
  if constexpr (std::is_floating_point_v<T>) return T{0};
  else return scalar_as<T>(v);
}

/// A session's packed form of the constant int8 weights `w` (operand 1 of `c`) of a 1×1 CONV2D `s` for
/// zero points `izp`, `wzp` (`kernels::pack_conv2d_1x1_s8`): made on first use, remade when EXT-DYNAMIC
/// zero points differ from the packed ones; nullptr when `c` has no session, the weights are not its
/// constant, the packed form does not pay for `s` (`kernels::conv2d_1x1_s8_packed_pays`) or packing fails.
[[nodiscard]] inline const constant_cache::packed_weights* packed_conv2d_weights(const op_context& c,
                                                                                const kernels::conv2d_shape& s,
                                                                                std::span<const std::int8_t> w,
                                                                                std::int8_t izp, std::int8_t wzp) {
  if (!c.cached_constant(1) || !kernels::conv2d_1x1_s8_packed_pays(s)) return nullptr;
  auto& pw = c.cache->packed[c.in_slot(1)];
  if (pw.bytes.empty() || pw.input_zp != izp || pw.weight_zp != wzp) {
    pw.bytes.assign(kernels::conv2d_1x1_s8_packed_size(s.oc, s.ic), 0);
    if (kernels::pack_conv2d_1x1_s8(s, w.data(), izp, wzp, pw.bytes.data(), pw.bytes.size()) != kernels::status::ok)
      pw.bytes.clear();
    pw.input_zp = izp;
    pw.weight_zp = wzp;
  }
  return pw.bytes.empty() ? nullptr : &pw;
}

/// The checked packed-kernel call of an int8 1×1 CONV2D over a session's packed weights, and what it was
/// made from: the weights' packed buffer is shared by every CONV2D of that weight tensor and repacked
/// for the zero points of whichever runs (`packed_conv2d_weights`), so the call holds only while the
/// buffer is still the one it checked (`current`).
struct packed_conv2d_call {
  kernels::conv2d_1x1_s8_packed_plan plan;
  const constant_cache::packed_weights* pw = nullptr;
  const std::uint8_t* bytes = nullptr;  ///< `pw->bytes.data()` when planned
  std::int8_t input_zp = 0, weight_zp = 0;
  /// True while `pw` holds the buffer and zero points `plan` was checked for.
  [[nodiscard]] bool current() const noexcept {
    return pw->bytes.data() == bytes && pw->input_zp == input_zp && pw->weight_zp == weight_zp;
  }
};

/// The checked packed-kernel call (`kernels::plan_conv2d_1x1_s8_packed`) of the int8 1×1 CONV2D `s` of `c`
/// with weights `w`, bias `bias` (int32) and zero points `izp`, `wzp`, over the session's packed weights
/// (`packed_conv2d_weights`); nothing when there are none or the packed kernel refuses the call (the
/// general kernel then decides and reports, as `run::run` does).
[[nodiscard]] inline std::optional<packed_conv2d_call> packed_conv2d_plan(const op_context& c,
                                                                        const kernels::conv2d_shape& s,
                                                                        std::span<const std::int8_t> w,
                                                                        const std::int32_t* bias, std::int8_t izp,
                                                                        std::int8_t wzp) {
  const auto* pw = packed_conv2d_weights(c, s, w, izp, wzp);
  if (pw == nullptr) return std::nullopt;
  packed_conv2d_call call;
  if (kernels::plan_conv2d_1x1_s8_packed(s, pw->bytes.data(), pw->bytes.size(), bias, izp, wzp, call.plan) !=
      kernels::status::ok)
    return std::nullopt;
  call.pw = pw;
  call.bytes = pw->bytes.data();
  call.input_zp = izp;
  call.weight_zp = wzp;
  return call;
}

/// Runs the packed-kernel call `plan` on input `in` (int8) into result 0 of `c`: the result (committed)
/// or the REQUIRE error (accumulator or accumulator + bias outside int32).
[[nodiscard]] inline status conv2d_packed_into(const op_context& c, const kernels::conv2d_1x1_s8_packed_plan& plan,
                                               const std::int8_t* in) {
  const auto st = kernels::conv2d_1x1_s8_packed(plan, in, c.result_buffer<std::int32_t>(0).data());
  if (st != kernels::status::ok) return c.kernel_fail(st, c.out_name(0), "CONV2D accumulator or bias");
  return c.commit(0);
}

/// Runs `kernels::conv2d` for the op-table row `R` (input, weight, output, accumulator).
template <const tosa::type_support_row& R>
[[nodiscard]] status conv2d_call(const op_context& c, const kernels::conv2d_shape& s) {
  using In = kernels::storage_t<R.types[0]>;
  using W = kernels::storage_t<R.types[1]>;
  using Acc = kernels::storage_t<R.acc>;
  const auto in = kernel_operand<In>(c, 0, 0);
  const auto w = kernel_operand<W>(c, 1, 2);
  const auto b = kernel_operand<Acc>(c, 2, 1);
  if constexpr (std::is_same_v<In, std::int8_t> && std::is_same_v<W, std::int8_t> && std::is_same_v<Acc, std::int32_t>) {
    // a session's constant 1×1 weights: packed once (kernels/conv2d_packed.hpp), where that form pays
    if (const auto call = packed_conv2d_plan(c, s, w, b.data(), kernel_zero_point<In>(c.in(3)), kernel_zero_point<W>(c.in(4))))
      return conv2d_packed_into(c, call->plan, in.data());
  }
  static_assert(std::is_same_v<Acc, kernels::storage_t<R.types[2]>>, "CONV2D rows store acc_t as out_t");
  // the result's own storage (its slot's buffer of the last run, in a session), every element written by the kernel
  const std::span<Acc> out = c.result_buffer<Acc>(0);
  const kernels::float_rounding fr{real_format_of(R.acc), real_format_of(R.types[2])};
  const auto st = kernels::conv2d<In, W, Acc>(s, in.data(), w.data(), b.data(), kernel_zero_point<In>(c.in(3)),
                                              kernel_zero_point<W>(c.in(4)), out.data(), fr);
  if (st != kernels::status::ok) return c.kernel_fail(st, c.out_name(0), "CONV2D accumulator or bias");
  return c.commit(0);
}

/// CONV2D [input, weight, bias, input_zp, weight_zp] with `conv2d_attr` (SPEC-1.0 CONV2D).
/// Rows: every CONV2D row of the op table — i8×i8 → i32 (acc INT32), i8×i4 → i32 (EXT-INT4;
/// weights widened to int8), i16×i8 → i48 (acc INT48), fp8e4m3/fp8e5m2 → fp16 (acc FP16) and
/// → fp32 (1.1, acc FP32), fp16 → fp16 (acc FP16 or FP32), bf16 → bf16 (acc FP32), fp32 (acc
/// FP32); float rows round as `kernels::conv2d` documents (the reference model's arithmetic).
/// A signature with no row is `unsupported`. ERROR_IFs: ranks, IC match, dtypes of bias/zero
/// points/result, acc_type not an accumulator of the row, zero points ≠ 0 except INT8, pads < 0,
/// stride/dilation < 1, BC ∉ {OC, 1}, output size (int64, `kernels::conv2d_output_size`) not
/// exact or not the declared shape (checked before allocating); REQUIRE: accumulator + bias fits out_t.
[[nodiscard]] inline status eval_conv2d(const op_context& c) {
  const auto* a = c.attr<graph::conv2d_attr>();
  if (a == nullptr) return c.fail(errc::invalid_graph, {}, "CONV2D needs a conv2d_attr");
  const auto& x = c.in(0);
  const auto& w = c.in(1);
  const auto& bias = c.in(2);
  const auto out_t = c.out(0).type;
  if (x.shape.size() != 4) return c.fail(errc::error_if, c.in_name(0), "input must be rank 4 [N,IH,IW,IC], is " + to_string(x.shape));
  if (w.shape.size() != 4) return c.fail(errc::error_if, c.in_name(1), "weight must be rank 4 [OC,KH,KW,IC], is " + to_string(w.shape));
  if (bias.shape.size() != 1) return c.fail(errc::error_if, c.in_name(2), "bias must be rank 1 [BC], is " + to_string(bias.shape));
  if (w.shape[3] != x.shape[3])
    return c.fail(errc::error_if, c.in_name(1),
                  "weight IC " + std::to_string(w.shape[3]) + " != input IC " + std::to_string(x.shape[3]));
  if (bias.type != out_t)
    return c.fail(errc::error_if, c.in_name(2),
                  "bias dtype " + std::string(dtype::name(bias.type)) + " must equal out_t " + std::string(dtype::name(out_t)));
  if (auto e = check_zero_point(c, 3, x.type, "input_zp")) return e;
  if (auto e = check_zero_point(c, 4, w.type, "weight_zp")) return e;
  if (auto e = check_zero_point_is_zero(c, 3, "input_zp")) return e;
  if (auto e = check_zero_point_is_zero(c, 4, "weight_zp")) return e;

  using dtype::id;
  const std::array<id, 3> sig{x.type, w.type, out_t};
  const auto sig_text = [&] {  // for the error messages only
    return std::string(dtype::name(x.type)) + " x " + std::string(dtype::name(w.type)) + " -> " +
           std::string(dtype::name(out_t));
  };
  if (tosa::find_row(tosa::op::conv2d, sig) == nullptr)
    return c.fail(errc::unsupported, c.out_name(0), "CONV2D " + sig_text() + " is not a TOSA CONV2D type row");
  if (!tosa::accumulator_allowed(tosa::op::conv2d, sig, a->acc_type)) {
    std::string allowed;
    for (const auto& r : tosa::rows_of(tosa::op::conv2d))
      if (r.types == sig) allowed += (allowed.empty() ? "" : " or ") + std::string(dtype::name(r.acc));
    return c.fail(errc::error_if, c.out_name(0),
                  "acc_type " + std::string(dtype::name(a->acc_type)) + " is not an accumulator of the row " + sig_text() +
                      " (allowed: " + allowed + ")");
  }

  kernels::conv2d_shape s;
  s.n = x.shape[0], s.ih = x.shape[1], s.iw = x.shape[2], s.ic = x.shape[3];
  s.oc = w.shape[0], s.kh = w.shape[1], s.kw = w.shape[2];
  s.bias_size = bias.shape[0];
  s.pad = a->pad, s.stride = a->stride, s.dilation = a->dilation;
  std::int64_t oh = 0, ow = 0;
  if (const auto st = kernels::conv2d_output_size(s, oh, ow); st != kernels::status::ok) {
    std::string why;
    if (st == kernels::status::invalid_attribute) why = "pads must be >= 0, strides and dilations >= 1";
    else if (s.bias_size != s.oc && s.bias_size != 1) return c.fail(errc::error_if, c.in_name(2), "bias size BC must be OC or 1");
    else why = "(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) must be >= 0 and divisible by stride_y (same for x)";
    return c.fail(errc::error_if, c.out_name(0), why);
  }
  const auto& decl = c.out(0).shape;
  if (decl.size() != 4 || decl[0] != s.n || decl[1] != oh || decl[2] != ow || decl[3] != s.oc)
    return c.fail(errc::error_if, c.out_name(0),
                  "output shape must be [" + std::to_string(s.n) + "," + std::to_string(oh) + "," + std::to_string(ow) + "," +
                      std::to_string(s.oc) + "], is declared " + to_string(decl));
  // The kernel instantiation of the row (input, weight, output, acc_type) of the op table.
  const std::size_t k = row_position(tosa::op::conv2d, sig, a->acc_type);
  // The rest reads only the input's elements: a session runs it directly on later runs (`prepare`).
  auto rest = [k, s](const op_context& c) {
    return visit_row<tosa::op::conv2d>(k, [&](auto row) {
      return conv2d_call<row_of<tosa::op::conv2d, decltype(row)::value>>(c, s);
    });
  };
  if (const auto& row = tosa::rows_of(tosa::op::conv2d)[k];
      row.types[0] == id::i8 && row.types[1] == id::i8 && row.acc == id::i32 && c.preparable({0})) {
    // the layer as `settle` may fuse it with the RESCALE of its result (a 1×1 CONV2D with a bias per channel)
    const auto record_layer = [&] {
      if (s.bias_size != s.oc || !kernels::detail::is_conv2d_1x1(s)) return;
      kernels::linear_s8_args l;
      l.weights = kernel_operand<std::int8_t>(c, 1, 2).data();
      l.bias = kernel_operand<std::int32_t>(c, 2, 1).data();
      l.input_offset = -kernel_zero_point<std::int8_t>(c.in(3));
      l.filter_offset = -kernel_zero_point<std::int8_t>(c.in(4));
      l.batches = s.n * s.ih * s.iw;
      l.cols = s.ic;
      l.rows = s.oc;
      c.cache->conv_linear[c.index] = l;
    };
    // a session's int8 layer with packed weights: its prepared form runs the packed kernel's checked call
    // (weights, bias and zero points are the session's constants) while the shared packed buffer is still
    // the one it checked; else (another CONV2D of these weights repacked them) the general form repacks
    if (const auto call = packed_conv2d_plan(c, s, kernel_operand<std::int8_t>(c, 1, 2),
                                             kernel_operand<std::int32_t>(c, 2, 1).data(),
                                             kernel_zero_point<std::int8_t>(c.in(3)), kernel_zero_point<std::int8_t>(c.in(4)))) {
      auto packed = [call = *call, rest](const op_context& c) -> status {
        if (!call.current()) return rest(c);
        return conv2d_packed_into(c, call.plan, c.in(0).ints.get<std::int8_t>().data());
      };
      c.prepare(packed, {0});
      record_layer();
      return packed(c);
    }
    // not packed (e.g. fewer than 16 output channels): fused, it runs the row-major `kernels::linear_s8`
    // (Zen 3, `BM_s8_interpreter_invoke_lowered` 4000×4: 1.5× at batch 1, 1.2× at batch 8, against the
    // CONV2D and RESCALE run one after the other)
    record_layer();
  }
  if (const auto& row = tosa::rows_of(tosa::op::conv2d)[k];
      row.types[0] == id::i16 && row.types[1] == id::i8 && row.acc == id::i48 && kernels::detail::is_conv2d_1x1(s) &&
      s.bias_size == s.oc && kernel_zero_point<std::int16_t>(c.in(3)) == 0 && kernel_zero_point<std::int8_t>(c.in(4)) == 0 &&
      c.preparable({0})) {  // an a16w8 layer, as `settle` may fuse it with the RESCALE of its result
    kernels::linear_s16_args l;
    l.weights = kernel_operand<std::int8_t>(c, 1, 2).data();
    l.bias = kernel_operand<std::int64_t>(c, 2, 1).data();
    l.batches = s.n * s.ih * s.iw;
    l.cols = s.ic;
    l.rows = s.oc;
    c.cache->conv_linear[c.index] = l;
  }
  c.prepare(rest, {0});
  return rest(c);
}

// --------------------------------------------------------------------------------------------
// MATMUL

/// Runs `kernels::matmul` for the op-table row `R` (A, B, output = accumulator).
template <const tosa::type_support_row& R>
[[nodiscard]] status matmul_call(const op_context& c, const kernels::matmul_shape& s) {
  using In = kernels::storage_t<R.types[0]>;
  static_assert(std::is_same_v<In, kernels::storage_t<R.types[1]>>, "MATMUL rows store A and B alike");
  using Acc = kernels::storage_t<R.acc>;
  const auto a = kernel_operand<In>(c, 0, 0);
  const auto b = kernel_operand<In>(c, 1, 1);
  static_assert(std::is_same_v<Acc, kernels::storage_t<R.types[2]>>, "MATMUL rows store acc_t as out_t");
  const std::span<Acc> out = c.result_buffer<Acc>(0);  // the result's storage (its slot's buffer, in a session)
  const kernels::float_rounding fr{real_format_of(R.acc), real_format_of(R.types[2])};
  const auto st = kernels::matmul<In, Acc>(s, a.data(), b.data(), kernel_zero_point<In>(c.in(2)),
                                          kernel_zero_point<In>(c.in(3)), out.data(), fr);
  if (st != kernels::status::ok) return c.kernel_fail(st, c.out_name(0), "MATMUL accumulator");
  return c.commit(0);
}

/// MATMUL [A, B, A_zp, B_zp] (SPEC-1.0 MATMUL): A [N,H,C], B [N,C,W] → [N,H,W]. Rows: every
/// MATMUL row of the op table — i8 → i32, i16 → i48, fp8e4m3/fp8e5m2 (also mixed, 1.1) → fp16
/// or fp32, fp16 → fp16 or fp32, bf16 → fp32, fp32 → fp32 (acc = out_t; float rows round as
/// `kernels::matmul` documents). A signature with no row is `unsupported`. ERROR_IFs: ranks,
/// N and C match, zero-point dtypes (A_zp: A's, B_zp: B's), zero points ≠ 0 except INT8, the
/// declared result shape (checked before allocating); REQUIRE: the result fits out_t.
[[nodiscard]] inline status eval_matmul(const op_context& c) {
  const auto& a = c.in(0);
  const auto& b = c.in(1);
  const auto out_t = c.out(0).type;
  if (a.shape.size() != 3) return c.fail(errc::error_if, c.in_name(0), "A must be rank 3 [N,H,C], is " + to_string(a.shape));
  if (b.shape.size() != 3) return c.fail(errc::error_if, c.in_name(1), "B must be rank 3 [N,C,W], is " + to_string(b.shape));
  if (b.shape[0] != a.shape[0] || b.shape[1] != a.shape[2])
    return c.fail(errc::error_if, c.in_name(1),
                  "B shape " + to_string(b.shape) + " does not match A " + to_string(a.shape) + " ([N,C,W] with A's N and C)");
  using dtype::id;
  const std::array<id, 3> sig{a.type, b.type, out_t};
  if (tosa::find_row(tosa::op::matmul, sig) == nullptr)
    return c.fail(errc::unsupported, c.out_name(0),
                  "MATMUL " + std::string(dtype::name(a.type)) + " x " + std::string(dtype::name(b.type)) + " -> " +
                      std::string(dtype::name(out_t)) + " is not a TOSA MATMUL type row");
  if (auto e = check_zero_point(c, 2, a.type, "A_zp")) return e;
  if (auto e = check_zero_point(c, 3, b.type, "B_zp")) return e;
  if (auto e = check_zero_point_is_zero(c, 2, "A_zp")) return e;
  if (auto e = check_zero_point_is_zero(c, 3, "B_zp")) return e;
  kernels::matmul_shape s{a.shape[0], a.shape[1], a.shape[2], b.shape[2]};
  if (auto e = c.expect_out_shape(0, {s.n, s.h, s.w})) return e;
  // The kernel instantiation of the row (A, B, output; acc = output) of the op table.
  // (MATMUL rows have one accumulator per signature: the row `find_row` found.)
  const std::size_t k = row_position(tosa::op::matmul, sig, tosa::find_row(tosa::op::matmul, sig)->acc);
  return visit_row<tosa::op::matmul>(k, [&](auto row) {
    return matmul_call<row_of<tosa::op::matmul, decltype(row)::value>>(c, s);
  });
}

// --------------------------------------------------------------------------------------------
// RESCALE

/// RESCALE [input, multiplier, shift, input_zp, output_zp] with `rescale_attr` (SPEC-1.0
/// RESCALE): multiplier INT32 [NC] (scale32) or INT16 [NC], shift INT8 [NC], NC = last dim when
/// per_channel else 1, all CTC. Rows i8/i16/i32/i48 → i8/i16/i32 (unsigned 8/16-bit variants
/// through input_unsigned / output_unsigned: the tensors hold the bit patterns). INEXACT_ROUND
/// is run as SINGLE_ROUND (exactly rounded, so within INEXACT_ROUND's bound). Every ERROR_IF and
/// REQUIRE of the pseudocode is an error (checked by `kernels::rescale`).
[[nodiscard]] inline status eval_rescale(const op_context& c) {
  const auto* a = c.attr<graph::rescale_attr>();
  if (a == nullptr) return c.fail(errc::invalid_graph, {}, "RESCALE needs a rescale_attr");
  const auto& x = c.in(0);
  const auto& m = c.in(1);
  const auto& sh = c.in(2);
  const auto out_t = c.out(0).type;
  using dtype::id;
  if (x.type != id::i8 && x.type != id::i16 && x.type != id::i32 && x.type != id::i48)
    return c.fail(errc::unsupported, c.in_name(0), "RESCALE input dtype " + std::string(dtype::name(x.type)) + " (rows: INT8, INT16, INT32, INT48)");
  if (out_t != id::i8 && out_t != id::i16 && out_t != id::i32)
    return c.fail(errc::unsupported, c.out_name(0), "RESCALE output dtype " + std::string(dtype::name(out_t)) + " (rows: INT8, INT16, INT32)");
  if (auto e = c.expect_out_shape(0, x.shape)) return e;
  if (a->per_channel && x.shape.empty())
    return c.fail(errc::error_if, c.in_name(0), "per_channel needs rank(input) >= 1");
  const std::int32_t nc = a->per_channel ? x.shape.back() : 1;
  if (auto e = c.expect_type(1, a->scale32 ? id::i32 : id::i16, a->scale32 ? "multiplier (scale32)" : "multiplier (scale32 = false)")) return e;
  if (auto e = c.expect_type(2, id::i8, "shift")) return e;
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    const auto& v = c.in(i);
    if (v.shape.size() != 1 || v.shape[0] != nc)
      return c.fail(errc::error_if, c.in_name(i),
                    std::string(i == 1 ? "multiplier" : "shift") + " must have shape [" + std::to_string(nc) + "] (" +
                        (a->per_channel ? "per_channel: the last dim of input" : "per-tensor") + "), is " + to_string(v.shape));
    if (auto e = c.require_constant(i, i == 1 ? "multiplier" : "shift")) return e;
  }
  if (auto e = check_zero_point(c, 3, x.type, "input_zp")) return e;
  if (auto e = check_zero_point(c, 4, out_t, "output_zp")) return e;
  if (a->rounding != tosa::rounding_mode::single_round && a->rounding != tosa::rounding_mode::double_round &&
      a->rounding != tosa::rounding_mode::inexact_round)
    return c.fail(errc::error_if, {}, "rounding_mode must be SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND");

  kernels::rescale_args args;
  args.in_t = x.type;
  args.out_t = out_t;
  args.count = static_cast<std::size_t>(x.size());
  args.channels = x.shape.empty() ? 1 : x.shape.back();
  args.input_zp = static_cast<std::int32_t>(c.in(3).ints[0]);
  args.output_zp = static_cast<std::int32_t>(c.in(4).ints[0]);
  args.scale32 = a->scale32;
  args.rounding = a->rounding == tosa::rounding_mode::double_round ? quant::rounding::double_round : quant::rounding::single_round;
  args.per_channel = a->per_channel;
  args.input_unsigned = a->input_unsigned;
  args.output_unsigned = a->output_unsigned;

  // The rest reads only the input's elements: a session runs it directly on later runs (`prepare`).
  auto rest = [args, mult = kernel_elements<std::int32_t>(m), shift = kernel_elements<std::int32_t>(sh)](const op_context& c) -> status {
    auto r = args;
    r.multiplier = mult.data();
    r.shift = shift.data();
    const auto& x = c.in(0);
    auto with_input = [&](auto in_tag) -> status {
      using In = decltype(in_tag);  // the input's storage type: read where it is
      r.input = x.ints.get<In>().data();
      auto with_output = [&](auto out_tag) -> status {
        using Out = decltype(out_tag);
        r.output = c.result_buffer<Out>(0).data();  // the result's storage (its slot's buffer, in a session)
        const auto st = kernels::rescale(r);
        if (st != kernels::status::ok) {
          const bool attr_rule = st == kernels::status::invalid_attribute || st == kernels::status::zero_point_out_of_range;
          return c.kernel_fail(st, st == kernels::status::zero_point_out_of_range ? c.in_name(3) : attr_rule ? std::string_view{} : c.out_name(0),
                              st == kernels::status::invalid_attribute
                                  ? "scale32 with INT48 input, DOUBLE_ROUND without scale32, or an unsigned flag not allowed for these dtypes"
                              : st == kernels::status::zero_point_out_of_range
                                  ? "zero points must be 0 unless INT8, or INT16 unsigned with 0 or 32768"
                                  : "");
        }
        return c.commit(0);
      };
      if (r.out_t == id::i8) return with_output(std::int8_t{});
      if (r.out_t == id::i16) return with_output(std::int16_t{});
      return with_output(std::int32_t{});
    };
    if (x.type == id::i8) return with_input(std::int8_t{});
    if (x.type == id::i16) return with_input(std::int16_t{});
    if (x.type == id::i32) return with_input(std::int32_t{});
    return with_input(std::int64_t{});
  };
  if (c.preparable({0}))  // the arguments, as `settle` may fuse this RESCALE with the CONV2D it reads
    c.cache->rescale[c.index] = constant_cache::rescale_record{args, kernel_elements<std::int32_t>(m), kernel_elements<std::int32_t>(sh)};
  c.prepare(rest, {0});
  return rest(c);
}

// --------------------------------------------------------------------------------------------
// Kernel bindings (`kernel<O>`, context.hpp)

template <>
struct kernel<tosa::op::conv2d> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_conv2d(c); }
};
template <>
struct kernel<tosa::op::matmul> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_matmul(c); }
};
template <>
struct kernel<tosa::op::rescale> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_rescale(c); }
};

}  // namespace armlower::run::detail
