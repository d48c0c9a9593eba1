/// @file armlower/run/interpreter.hpp
/// The TOSA graph interpreter: runs a TOSA graph (`graph::graph` whose operators are all
/// `tosa::op`s, TOSA operand order, attributes as in `graph.hpp`) on host values, with
/// armlower's kernels for CONV2D, MATMUL, RESCALE and the 1.1-draft block-scaled ops, and its
/// own element-wise / data-layout code for CONST, RESHAPE, TRANSPOSE, ADD, MUL, CLAMP, CAST.
/// Semantics: TOSA 1.0 specification pseudocode and the 1.1 draft's block-scaled ops
/// (TOSA specification, "Operators" chapter). Every ERROR_IF / REQUIRE of those ops is reported as an
/// `armlower::error` (run/error.hpp) with its code and a location naming op index, op and tensor,
/// and the rule; nothing is undefined behaviour. Operand and result counts come from the op's
/// descriptor (`tosa::describe`), and each op is evaluated by its kernel binding
/// (`detail::kernel<O>`, reached through `tosa::visit_op`, no switch over ops).
/// Integer graphs are bit-exact with the TOSA reference model. Hosted only.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/run/detail/block_scaled.hpp>
#include <armlower/run/detail/context.hpp>
#include <armlower/run/detail/data_layout.hpp>
#include <armlower/run/detail/elementwise.hpp>
#include <armlower/run/detail/tensor_ops.hpp>
#include <armlower/run/error.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/linear_s16_packed.hpp>
#include <armlower/run/value.hpp>
#include <armlower/tosa/op_descriptor.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace armlower::run {

/// Default of `options::max_tensor_bytes`: 2^31 bytes (2 GiB) per tensor.
inline constexpr std::uint64_t default_max_tensor_bytes = std::uint64_t{1} << 31;

/// Interpreter options.
struct options {
  /// EXT-DYNAMIC: allow zero points, multipliers, shifts and RESHAPE shapes that are not
  /// compile-time constants. When false (TOSA's default), such operands must be constants.
  bool dynamic = false;
  /// Keep every tensor computed (and every constant used) in `result::tensors`; otherwise a
  /// tensor is freed after its last use, so memory stays near the live set (in a `run::session`
  /// its buffer is kept for the next run instead).
  bool keep_intermediates = false;
  /// Per-tensor memory limit, in bytes of the interpreter's storage of the tensor (element count
  /// × `element_bytes(dtype)`: 1, 2, 4 or 8 for integer dtypes, held at their storage width
  /// (`int_width_of`); 4 for FP16/BF16/FP32; 1 for FP8/FP6/FP4/MXINT8/FP8UE8M0 codes). Every
  /// graph input, constant and declared op result is
  /// checked against it BEFORE anything is allocated for it; a larger tensor stops the run with
  /// a `limit` error naming the tensor, its size and this limit. The whole run may use
  /// several tensors of this size (the live set plus one op's scratch).
  std::uint64_t max_tensor_bytes = default_max_tensor_bytes;
};

/// What a successful `run` produces.
struct outcome {
  std::vector<value> outputs;  ///< the graph outputs, in `graph::outputs` order
  /// Every tensor by name (graph inputs, constants, intermediates, outputs), only with
  /// `options::keep_intermediates`.
  std::unordered_map<std::string, value> tensors;
};

/// Outcome of `run`: the graph outputs, or the error that stopped the run.
using result = armlower::expected<outcome>;

namespace detail {

/// Evaluates operator `c.op` (a known TOSA op, operand/result counts checked) with its kernel
/// binding `kernel<O>`.
[[nodiscard]] inline status dispatch(const op_context& c) {
  return tosa::visit_op(c.op.tosa_op(), [&](auto o) { return kernel<decltype(o)::value>::eval(c); });
}

/// An error about the whole graph (its inputs/outputs), not one operator.
[[nodiscard]] inline error graph_error(errc k, std::string tensor, std::string rule) {
  return make_error(k, -1, {}, std::move(tensor), std::move(rule));
}

/// Binds a session's own input values (`session::input`), made with the declared dtypes and shapes and
/// only written element by element since: only the elements of dtypes narrower than their storage are
/// checked (`storage_exact`); returns the error naming the input whose element is out of range.
[[nodiscard]] inline status bind_owned_inputs(const graph::graph& g, const graph_plan& p, std::span<const value> inputs,
                                              run_state& st) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& v = inputs[i];
    if (!storage_exact(v.type))
      if (auto s = v.check_elements(); !s.empty())
        return graph_error(errc::invalid_graph, g.inputs[i], "input value " + std::to_string(i) + ": " + s);
    st.val[p.inputs[i]] = &v;
  }
  return std::nullopt;
}

/// Binds the graph inputs (borrowed: `st` points at the caller's values, nothing is copied); returns
/// the error when `inputs` do not match the declarations.
[[nodiscard]] inline status bind_inputs(const graph::graph& g, const graph_plan& p, std::span<const value> inputs,
                                        run_state& st, std::uint64_t limit) {
  if (inputs.size() != g.inputs.size())
    return graph_error(errc::invalid_graph, {},
                       "the graph has " + std::to_string(g.inputs.size()) + " inputs, " +
                           std::to_string(inputs.size()) + " values were given");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& n = g.inputs[i];
    const auto* t = p.decl[p.inputs[i]];
    if (t == nullptr) return graph_error(errc::invalid_graph, n, "graph input is not a declared tensor");
    if (!p.size_ok[p.inputs[i]])
      if (auto m = check_tensor_size(*t, limit)) return graph_error(m->kind, n, std::move(m->rule));
    const auto& v = inputs[i];
    if (v.type != t->type)
      return graph_error(errc::invalid_graph, n,
                         "input value " + std::to_string(i) + " is " + std::string(dtype::name(v.type)) +
                             ", the tensor is " + std::string(dtype::name(t->type)));
    if (v.shape != t->shape)
      return graph_error(errc::invalid_graph, n,
                         "input value " + std::to_string(i) + " has shape " + to_string(v.shape) +
                             ", the tensor has " + to_string(t->shape));
    // the shape equals the declaration's, checked once by the plan when `size_ok`
    if (auto s = p.size_ok[p.inputs[i]] ? v.check_elements() : v.check(); !s.empty())
      return graph_error(errc::invalid_graph, n, "input value " + std::to_string(i) + ": " + s);
    st.val[p.inputs[i]] = &v;
  }
  return std::nullopt;
}

/// True when `slots` is not empty and every slot of it is pinned to a session constant (`run_state::pinned`).
[[nodiscard]] inline bool all_pinned(const run_state& st, const std::vector<slot_id>& slots) noexcept {
  if (slots.empty()) return false;
  for (const auto s : slots)
    if (st.pinned[s] == 0) return false;
  return true;
}

inline void fuse_layers(const graph::graph& g, const graph_plan& p, constant_cache& cache, std::vector<prepared_op>& forms);

/// Settles a session after a complete run (`constant_cache::schedule`): keeps the operators that are
/// not prepared, or have a result that is not a pinned constant or that another operator also writes.
/// Also decides `constant_cache::direct` by walking the schedule over what a run binds: every
/// scheduled operator prepared, each of its results written by it alone and not a pinned constant, each
/// of its operands bound when it runs (a graph input, a pinned constant, or the result of an earlier
/// scheduled operator not yet freed), and every graph output bound at the end. Then the general loop's
/// per-operator steps — the arity and result checks a prepared operator skips anyway, the binding of
/// unbound constant operands — would do nothing on any later run, and the pinned slots stay as they are.
/// A direct session without `keep_intermediates` then fuses its linear layers (`fuse_layers`); its
/// `constant_cache::direct_steps` are what is left to call.
inline void settle(const graph::graph& g, const graph_plan& p, const run_state& st, constant_cache& cache,
                   bool keep_intermediates) {
  std::vector<std::uint32_t> writers(st.pinned.size(), 0);
  for (const auto& o : p.ops)
    for (const auto s : o.out) ++writers[s];
  cache.schedule.clear();
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    bool done = cache.prepared[i] && all_pinned(st, p.ops[i].out);
    for (const auto s : p.ops[i].out) done = done && writers[s] == 1;
    if (!done) cache.schedule.push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::uint8_t> bound(st.pinned);
  for (const auto s : p.inputs) bound[s] = 1;
  bool direct = true;
  for (const auto i : cache.schedule) {
    const auto& o = p.ops[i];
    direct = direct && static_cast<bool>(cache.prepared[i]);
    for (const auto s : o.in) direct = direct && bound[s] != 0;
    for (const auto s : o.out) {
      direct = direct && writers[s] == 1 && st.pinned[s] == 0;
      bound[s] = 1;
    }
    for (const auto s : o.free_after)
      if (st.pinned[s] == 0) bound[s] = 0;
  }
  for (const auto s : p.outputs) direct = direct && bound[s] != 0;
  cache.direct = direct;
  cache.direct_bound.clear();
  if (direct) {
    for (const auto s : p.inputs) cache.direct_bound.push_back(s);
    for (const auto i : cache.schedule)
      for (const auto s : p.ops[i].out) cache.direct_bound.push_back(s);
  }
  cache.settled = true;
  cache.direct_steps.clear();
  if (!direct) return;
  std::vector<prepared_op> forms;  // by schedule position
  forms.reserve(cache.schedule.size());
  for (const auto i : cache.schedule) forms.push_back(cache.prepared[i]);
  if (!keep_intermediates) fuse_layers(g, p, cache, forms);
  for (std::size_t q = 0; q < forms.size(); ++q)
    if (forms[q]) cache.direct_steps.push_back({cache.schedule[q], std::move(forms[q])});
}

/// A linear layer's CONV2D (int8, 1×1, packed: `constant_cache::conv_linear`) and the RESCALE reading its
/// result (INT32 → INT8, scale32, signed: `constant_cache::rescale`), run as one requantizing linear layer
/// (`kernels::linear_s8_plan` over its own pack-on-first-use buffer) — and likewise an a16w8 layer (CONV2D
/// int16 × int8 → INT48, RESCALE INT48 → INT16; `kernels::linear_s16`, bound in the code) — when that gives
/// exactly the two operators' results and errors on every input: the CONV2D result is read by this RESCALE alone (as its
/// input) and is no graph output, and no REQUIRE of either can fail — for every channel r,
/// 255·Σ_c |w[r][c] − weight_zp| + |bias[r]| < 2^31 (the accumulator, its partial sums and accumulator +
/// bias stay int32, since |x − input_zp| ≤ 255) and, where the RESCALE's shift is ≤ 32, < 2^(shift−1)
/// (`apply_scale_32`'s value REQUIRE). Then `requantize_exact(acc, m, 31 − shift, rounding)` is
/// `apply_scale_32(acc, m, shift, rounding)` (TOSA 1.0 `scale_helpers.tosac`; the CONV2D result is never
/// made). The layer also runs the operators around the pair, each claimed by one layer at most, where each
/// one's result is read by the next alone and is no graph output: before the CONV2D, operators that only
/// copy elements (`constant_cache::same_elements`, RESHAPE) — it then reads the first one's operand and runs
/// at that one's position, where the operand is bound; after the RESCALE, such copies and CLAMPs
/// (`constant_cache::clamp_int`: clamp(clamp(v, lo₁, hi₁), lo₂, hi₂) = clamp(v, max(lo₁, lo₂), min(hi₁, hi₂))
/// where that range is not empty, so their bounds narrow the layer's activation range) — it then writes the
/// last one's result. Edits `forms` (by schedule position: what a direct run calls; null: nothing) and fills
/// `constant_cache::fused` (precondition: `cache.direct`).
inline void fuse_layers(const graph::graph& g, const graph_plan& p, constant_cache& cache, std::vector<prepared_op>& forms) {
  std::vector<std::uint32_t> readers(p.names.size(), 0);
  for (const auto& o : p.ops)
    for (const auto s : o.in) ++readers[s];
  const std::size_t none = p.ops.size();
  std::vector<std::size_t> position(p.ops.size(), none);  // op → schedule position
  for (std::size_t q = 0; q < cache.schedule.size(); ++q) position[cache.schedule[q]] = q;
  std::vector<std::uint8_t> claimed(p.ops.size(), 0);  // operators a fused layer runs
  // the scheduled operator whose operand 0 / result 0 is slot `s` and the only use of it, or none
  const auto sole_reader = [&](slot_id s) {
    if (readers[s] != 1 || p.is_output[s]) return none;
    for (std::size_t j = 0; j < p.ops.size(); ++j)
      if (!p.ops[j].in.empty() && p.ops[j].in[0] == s) return position[j] == none ? none : j;
    return none;
  };
  const auto writer = [&](slot_id s) {  // (a direct session: one writer per slot)
    for (std::size_t j = 0; j < p.ops.size(); ++j)
      if (!p.ops[j].out.empty() && p.ops[j].out[0] == s) return position[j] == none ? none : j;
    return none;
  };
  const auto copies = [&](std::size_t j) { return j != none && cache.same_elements[j] != 0 && claimed[j] == 0; };
  // the operators a layer of CONV2D i and RESCALE j runs: back through copies to the first, whose operand
  // (`input`) it reads; on through copies and CLAMPs to the last, whose result it writes, narrowing the
  // activation range [lo, hi] by each CLAMP's bounds
  struct around {
    std::vector<std::size_t> ops;
    slot_id input = 0;
  };
  const auto walk = [&](std::size_t i, std::size_t j, std::int32_t& lo, std::int32_t& hi) {
    around r{{i, j}, p.ops[i].in[0]};
    for (auto w = writer(r.input); copies(w) && sole_reader(r.input) == r.ops.front(); w = writer(r.input)) {
      r.ops.insert(r.ops.begin(), w);
      r.input = p.ops[w].in[0];
    }
    for (auto k = sole_reader(p.ops[j].out[0]); k != none && claimed[k] == 0; k = sole_reader(p.ops[k].out[0])) {
      if (cache.same_elements[k] == 0) {
        const auto& b = cache.clamp_int[k];
        if (!b) break;
        const std::int32_t l = std::max(lo, (*b)[0]), h = std::min(hi, (*b)[1]);
        if (l > h) break;  // (disjoint ranges: the CLAMP's result is one constant; left to it)
        lo = l;
        hi = h;
      }
      r.ops.push_back(k);
    }
    return r;
  };
  // claims the operators of `r` and puts `form` (writing the last one's result) at the first one's position
  const auto place = [&](const around& r, auto make_form) {
    for (const auto op : r.ops) {
      claimed[op] = 1;
      forms[position[op]] = nullptr;  // made by the fused form
    }
    const std::size_t last = r.ops.back();
    forms[position[r.ops.front()]] = make_form(cache.fused.size() - 1, &g.operators[last], last);
  };
  // Σ_c |w[ch][c] + filter_offset| of weights [rows][cols]
  const auto abs_sum = [](const std::int8_t* w, std::int32_t cols, std::int32_t ch, std::int32_t filter_offset) {
    std::int64_t sum = 0;
    for (std::int32_t k = 0; k < cols; ++k) {
      const std::int64_t v = w[static_cast<std::ptrdiff_t>(ch) * cols + k] + std::int64_t{filter_offset};
      sum += v < 0 ? -v : v;
    }
    return sum;
  };
  for (std::size_t q = 0; q < cache.schedule.size(); ++q) {
    const std::size_t i = cache.schedule[q];
    if (std::holds_alternative<std::monostate>(cache.conv_linear[i])) continue;
    const std::size_t j = sole_reader(p.ops[i].out[0]);
    if (j == none || !cache.rescale[j]) continue;
    const auto& r = *cache.rescale[j];
    if (r.args.input_unsigned || r.args.output_unsigned) continue;
    if (const auto* s8 = std::get_if<kernels::linear_s8_args>(&cache.conv_linear[i])) {
      kernels::linear_s8_args a = *s8;
      if (r.args.in_t != dtype::id::i32 || r.args.out_t != dtype::id::i8 || !r.args.scale32 ||
          (r.args.per_channel && r.args.channels != a.rows))
        continue;
      bool safe = true;
      for (std::int32_t ch = 0; safe && ch < a.rows; ++ch) {
        const std::int64_t b = a.bias[ch] < 0 ? -std::int64_t{a.bias[ch]} : a.bias[ch];
        const std::int64_t bound = 255 * abs_sum(a.weights, a.cols, ch, a.filter_offset) + b;
        const std::int32_t sh = r.shift[r.args.per_channel ? static_cast<std::size_t>(ch) : 0];
        safe = sh >= 2 && sh <= 62 && bound < (std::int64_t{1} << 31) && (sh > 32 || bound < (std::int64_t{1} << (sh - 1)));
      }
      if (!safe) continue;
      a.per_channel = r.args.per_channel;
      a.output_offset = r.args.output_zp;
      a.rounding = r.args.rounding;
      const around ops = walk(i, j, a.activation_min, a.activation_max);
      auto& f = cache.fused.emplace_back();
      f.multiplier = r.multiplier;
      f.shift.resize(r.shift.size());
      for (std::size_t k = 0; k < f.shift.size(); ++k) f.shift[k] = 31 - r.shift[k];  // TFLite-style: 31 − TOSA shift
      f.packed.assign(kernels::linear_s8_cache_size(a.rows, a.cols), 0);
      f.input = ops.input;
      a.multiplier = f.multiplier.data();
      a.shift = f.shift.data();
      if (kernels::plan_linear_s8(a, f.packed.data(), f.packed.size(), f.plan) != kernels::status::ok) {
        cache.fused.pop_back();  // (a multiplier or shift the kernel does not take: the operators run)
        continue;
      }
      place(ops, [](std::size_t k, const graph::operation* out, std::size_t last) -> prepared_op {
        return [k, out, last](const op_context& c) -> status {
          const auto& f = c.cache->fused[k];
          const op_context co{*out, last, c.plan, c.st, c.dynamic, c.cache};
          const auto y = co.result_buffer<std::int8_t>(0);
          if (const auto st = kernels::linear_s8(f.plan, c.st.val[f.input]->ints.get<std::int8_t>().data(), y.data());
              st != kernels::status::ok)
            return co.kernel_fail(st, co.out_name(0), "the CONV2D and RESCALE of a linear layer");
          return co.commit(0);
        };
      });
      continue;
    }
    // a16w8: INT48 → INT16 without scale32 (SINGLE_ROUND), zero points 0; no REQUIRE can fail when for
    // every channel B = 2^15·Σ|w| + |bias| < 2^47 (the INT48 accumulator and its partial sums, since
    // |x| ≤ 2^15) and B·multiplier + 2^(shift−1) < 2^(31+shift) (`apply_scale_16`'s int32 result; always
    // for shift ≥ 32). Then `apply_scale_16(acc, m, shift)` is `linear_s16`'s requantization with
    // multiplier m·2^16 and shift 15 − shift (`kernels::linear_s16_args`).
    kernels::linear_s16_args a = std::get<kernels::linear_s16_args>(cache.conv_linear[i]);
    if (r.args.in_t != dtype::id::i48 || r.args.out_t != dtype::id::i16 || r.args.scale32 ||
        r.args.rounding != quant::rounding::single_round || r.args.input_zp != 0 || r.args.output_zp != 0 ||
        (r.args.per_channel && r.args.channels != a.rows))
      continue;
    bool safe = true;
    for (std::int32_t ch = 0; safe && ch < a.rows; ++ch) {
      const std::int64_t b = a.bias[ch] < 0 ? -a.bias[ch] : a.bias[ch];
      const std::int64_t sum = abs_sum(a.weights, a.cols, ch, 0);
      safe = b < (std::int64_t{1} << 47) && sum < (std::int64_t{1} << 32);
      const std::int64_t bound = safe ? (sum << 15) + b : 0;
      const std::size_t at = r.args.per_channel ? static_cast<std::size_t>(ch) : 0;
      const std::int32_t sh = r.shift[at];
      const std::int64_t m = r.multiplier[at];  // 0..32767 (int16, REQUIRE ≥ 0 checked by the kernel's validate)
      safe = safe && sh >= 2 && sh <= 62 && bound < (std::int64_t{1} << 47) &&
             (sh >= 32 || bound * m + (std::int64_t{1} << (sh - 1)) < (std::int64_t{1} << (31 + sh)));
    }
    if (!safe) continue;
    a.per_channel = r.args.per_channel;
    const around ops = walk(i, j, a.activation_min, a.activation_max);
    auto& f = cache.fused.emplace_back();
    f.multiplier.resize(r.multiplier.size());
    f.shift.resize(r.shift.size());
    for (std::size_t k = 0; k < f.shift.size(); ++k) {
      f.multiplier[k] = r.multiplier[k] * 65536;  // m·2^16 (REDUCE_MULTIPLIER gives m back)
      f.shift[k] = 15 - r.shift[k];
    }
    f.input = ops.input;
    f.packed.assign(kernels::linear_s16_cache_size(a.rows, a.cols), 0);
    a.multiplier = f.multiplier.data();
    a.shift = f.shift.data();
    if (kernels::plan_linear_s16(a, f.packed.data(), f.packed.size(), f.plan16) != kernels::status::ok) {
      cache.fused.pop_back();  // (a multiplier or shift the kernel does not take: the operators run)
      continue;
    }
    if (!f.plan16.packed()) f.packed = {};  // (the row-major kernel runs: no packing kept)
    place(ops, [](std::size_t k, const graph::operation* out, std::size_t last) -> prepared_op {
      return [k, out, last](const op_context& c) -> status {
        const auto& f = c.cache->fused[k];
        const op_context co{*out, last, c.plan, c.st, c.dynamic, c.cache};
        if (const auto st = kernels::linear_s16(f.plan16, c.st.val[f.input]->ints.get<std::int16_t>().data(),
                                                co.result_buffer<std::int16_t>(0).data());
            st != kernels::status::ok)
          return co.kernel_fail(st, co.out_name(0), "the CONV2D and RESCALE of an a16w8 linear layer");
        return co.commit(0);
      };
    });
  }
}

/// A run of a settled session with `constant_cache::direct` (and `st.keep_storage`): its
/// `constant_cache::direct_steps` in order — what the general loop of `run_graph` does for the scheduled
/// operators, without its per-operator checks (`settle` showed they would pass). No slot is freed after
/// its last use: the session's `run_state` keeps the storage as a spare either way, and no slot is written
/// twice in a direct run, so the reset after the run (which unbinds `constant_cache::direct_bound`) does it.
/// Returns the first operator's error.
[[nodiscard]] inline status run_direct(const graph::graph& g, const graph_plan& p, const options& opt,
                                       constant_cache& cache, run_state& st) {
  for (const auto& step : cache.direct_steps) {
    const op_context c{g.operators[step.op], step.op, p, st, opt.dynamic, &cache};
    if (auto e = step.form(c)) return e;
  }
  return std::nullopt;
}

/// The general loop of `run_graph` over the operators (a settled session's schedule, else all, in
/// graph order): each operator's checks that depend on declarations (unless prepared), its constant
/// operands bound (decoded once into `cache` when given), then its kernel binding or prepared form; the
/// slots freed after their last use (unless `options::keep_intermediates`); a session settles after its
/// first complete run (`settle`). Returns the first error.
[[nodiscard]] inline status run_checked(const graph::graph& g, const graph_plan& p, const options& opt,
                                        constant_cache* cache, run_state& st) {
  const auto limit = opt.max_tensor_bytes;
  // a settled session visits only the operators with something left to do (`constant_cache::schedule`)
  const bool settled = cache != nullptr && cache->settled;
  const std::size_t visits = settled ? cache->schedule.size() : g.operators.size();
  for (std::size_t q = 0; q < visits; ++q) {
    const std::size_t i = settled ? cache->schedule[q] : q;
    const auto& op = g.operators[i];
    // a session's operator prepared on an earlier run (`op_context::prepare`) passed every check that
    // depends on declarations only: the op, its arity, its result declarations and their sizes
    const bool prepared = cache != nullptr && cache->prepared[i];
    // ... and one whose results are pinned constants (CONST) has nothing left to do
    if (prepared && all_pinned(st, p.ops[i].out)) continue;
    const op_context c{op, i, p, st, opt.dynamic, cache};
    if (!prepared) {
      if (!op.is_tosa())
        return make_error(errc::invalid_graph, static_cast<std::int64_t>(i), std::string(op.op_name()), {},
                          "not a TOSA operator; lower the graph first");
      if (!tosa::known(op.tosa_op()))
        return c.fail(errc::unsupported, {},
                      "TOSA op " + std::to_string(tosa::serialized(op.tosa_op())) + " is not run by the interpreter");
      const auto& d = tosa::describe(op.tosa_op());
      if (op.inputs.size() != d.n_in || op.outputs.size() != d.n_out)
        return c.fail(errc::invalid_graph, {},
                      "expects " + std::to_string(d.n_in) + " operands and " + std::to_string(d.n_out) +
                          " results, has " + std::to_string(op.inputs.size()) + " and " +
                          std::to_string(op.outputs.size()));
    }
    const auto& slots = p.ops[i];
    for (std::size_t k = 0; k < slots.in.size(); ++k) {
      const auto s = slots.in[k];
      if (st.val[s] != nullptr) continue;
      const auto& n = op.inputs[k];
      const auto* t = p.decl[s];
      if (t == nullptr) return c.fail(errc::invalid_graph, n, "operand is not a declared tensor");
      if (!t->is_constant)
        return c.fail(errc::invalid_graph, n,
                      "operand is used before any operator produces it (and it is not a graph input)");
      if (!p.size_ok[s])
        if (auto m = check_tensor_size(*t, limit)) return c.fail(m->kind, n, std::move(m->rule));
      try {
        c.bind_constant(s, *t);
      } catch (const std::invalid_argument& ex) {
        return c.fail(errc::invalid_graph, n, ex.what());
      }
    }
    for (std::size_t k = 0; !prepared && k < slots.out.size(); ++k) {
      const auto* t = p.decl[slots.out[k]];
      if (t == nullptr) return c.fail(errc::invalid_graph, op.outputs[k], "result is not a declared tensor");
      if (!p.size_ok[slots.out[k]])
        if (auto m = check_tensor_size(*t, limit)) return c.fail(m->kind, op.outputs[k], std::move(m->rule));
    }
    // a prepared operator runs its prepared form (the checks that depend on the run's data only)
    if (auto e = prepared ? cache->prepared[i](c) : dispatch(c)) return e;
    if (!opt.keep_intermediates) {
      for (const auto s : slots.free_after) st.unbind(s);  // operands whose last use this was, results nothing reads
    }
  }
  if (cache != nullptr && !settled) settle(g, p, st, *cache, opt.keep_intermediates);
  return std::nullopt;
}

/// The interpreter loop of `run`, `session::run` and `session::invoke` over graph `g` resolved as `p`,
/// with the run's values in `st` (precondition: `st.reset(p.names.size())` since its last run);
/// constants are decoded into `cache` (kept between runs) when it is given, else per run. Writes the
/// outputs (and with `keep_intermediates` the tensors) into `res`, whose earlier outputs are first
/// handed to their slots as spares when `st.keep_storage` (their buffers are reused); on an error
/// `res` is unspecified. `owned_inputs`: `inputs` are a session's own (`bind_owned_inputs`). `output_refs`
/// (a session's `invoke`; precondition: `cache` given): the outputs stay where the run left them —
/// their slots' values, kept by `st` until its next run, the inputs, the session's constants — and
/// `output_refs` points at them, in `graph::outputs` order, instead of moving them into `res` (which
/// then receives neither outputs nor tensors).
[[nodiscard]] inline status run_graph(const graph::graph& g, const graph_plan& p, std::span<const value> inputs,
                                      const options& opt, constant_cache* cache, run_state& st, outcome& res,
                                      bool owned_inputs = false, std::vector<const value*>* output_refs = nullptr) {
  if (output_refs == nullptr) {  // (an invoke's `res` stays empty)
    if (st.keep_storage) {
      for (std::size_t j = 0; j < p.outputs.size() && j < res.outputs.size(); ++j)
        if (st.val[p.outputs[j]] == nullptr) st.owned[p.outputs[j]] = std::move(res.outputs[j]);
    }
    res.outputs.clear();
    res.tensors.clear();
  }
  try {
    if (auto e = owned_inputs ? bind_owned_inputs(g, p, inputs, st) : bind_inputs(g, p, inputs, st, opt.max_tensor_bytes))
      return e;
    if (auto e = cache != nullptr && cache->direct && st.keep_storage ? run_direct(g, p, opt, *cache, st) : run_checked(g, p, opt, cache, st))
      return e;
    if (output_refs != nullptr) output_refs->resize(p.outputs.size());  // every entry is set below (or the run fails)
    else res.outputs.reserve(g.outputs.size());
    for (std::size_t j = 0; j < p.outputs.size(); ++j) {
      const auto s = p.outputs[j];
      if (st.val[s] == nullptr) {
        const auto& n = g.outputs[j];
        const auto* t = p.decl[s];
        if (t == nullptr || !t->is_constant)
          return graph_error(errc::invalid_graph, n, "graph output is never produced");
        if (auto m = check_tensor_size(*t, opt.max_tensor_bytes)) return graph_error(m->kind, n, std::move(m->rule));
        if (output_refs != nullptr) {  // a constant no operator read: decoded into the session's cache
          if (!cache->values[s]) cache->values[s].emplace(from_constant(*t));
          (*output_refs)[j] = &*cache->values[s];
        } else if (cache != nullptr && cache->values[s]) {
          res.outputs.push_back(*cache->values[s]);
        } else {
          res.outputs.push_back(from_constant(*t));
        }
        continue;
      }
      if (output_refs != nullptr) {
        (*output_refs)[j] = st.val[s];
        continue;
      }
      // a value this run made moves out when no later output and no kept tensor needs it
      bool last = !opt.keep_intermediates;
      for (std::size_t l = j + 1; last && l < p.outputs.size(); ++l) last = p.outputs[l] != s;
      if (last && st.val[s] == &st.owned[s]) {
        res.outputs.push_back(std::move(st.owned[s]));
        st.val[s] = nullptr;
      } else {
        res.outputs.push_back(*st.val[s]);
      }
    }
    if (opt.keep_intermediates && output_refs == nullptr) {
      for (std::size_t s = 0; s < p.names.size(); ++s)
        if (st.val[s] != nullptr) res.tensors.emplace(std::string(p.names[s]), *st.val[s]);
      if (cache != nullptr)  // the session's constants
        for (std::size_t s = 0; s < p.names.size(); ++s)
          if (cache->values[s]) res.tensors.emplace(std::string(p.names[s]), *cache->values[s]);
    }
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    return graph_error(errc::limit, {}, "out of memory");
  } catch (const std::exception& ex) {
    return graph_error(errc::invalid_graph, {}, ex.what());
  }
}

}  // namespace detail

/// Runs the TOSA graph `g` on `inputs` (one value per `g.inputs`, same order, dtype and shape
/// as the declared tensors). Operators run in the order given (TOSA graphs are topologically
/// ordered); constant tensors are decoded from their payloads when first used.
/// Errors (never exceptions, never UB): a non-TOSA operator, wrong operand/result counts,
/// a tensor used before it is produced or not declared, input values that do not match, a
/// result whose dtype/shape differs from its declaration, every ERROR_IF/REQUIRE of the ops,
/// dtype combinations the interpreter does not run, a tensor above `options::max_tensor_bytes`,
/// and allocation failure. Time and memory are linear in the graph size: every tensor name is
/// resolved to a slot once per run (`detail::graph_plan`), the input values are read where they
/// are (not copied), and every declared result is checked (shape rule of its op, size limit)
/// before it is allocated.
[[nodiscard]] inline result run(const graph::graph& g, std::span<const value> inputs, const options& opt = {}) {
  try {
    const detail::graph_plan p(g, detail::index_tensors(g), opt.max_tensor_bytes);
    detail::run_state st;
    st.reset(p.names.size());
    outcome res;
    if (auto e = detail::run_graph(g, p, inputs, opt, nullptr, st, res)) return std::move(*e);
    return res;
  } catch (const std::bad_alloc&) {
    return detail::graph_error(errc::limit, {}, "out of memory");
  }
}

/// A TOSA graph prepared for repeated runs (the interpreter's counterpart of a prepared model):
/// the tensor names are resolved to slots once (`detail::graph_plan`), every constant is decoded
/// once (on its first use), the run's value slots are reused, operators whose operands other than
/// their data input are constants are checked once (`detail::op_context::prepare`: CONV2D, RESCALE)
/// and the kernels' forms of constant operands (int8 1×1 CONV2D weights packed, FP8 codes decoded
/// to float) are made once and reused by every later `run`. Results and errors are exactly those of
/// `run::run(g, inputs, opt)` (same checks, same location in every error).
/// Lifetime: `g` must outlive the session and stay unchanged. Memory: the decoded constants (as
/// `run::value`: integers at their storage width) plus the kernel copies where a kernel's storage
/// differs from the value's (FP8 codes decoded to float; for int8 1×1 CONV2D weights the packed
/// form) and the kernels' scratch buffers (as large as the largest operand conversion of one op),
/// for the session's lifetime, and the buffer of every operator result, kept from its last use to
/// the next run (which builds the result there: no allocation while it is large enough);
/// `options::max_tensor_bytes` applies to each. Not safe to `run` one session from two threads
/// at once (the first use of a constant fills the cache); separate sessions are independent.
///
/// Two ways to run it: `run(inputs, out)` on the caller's values (checked against the declarations on
/// every run, outputs moved into `out`), or — as a firmware runtime does (TFLite Micro's input tensors
/// and `Invoke`) — write the session's own input tensors in place (`input<T>(i)`), `invoke()`, and read
/// the outputs where the run left them (`output(j)`): the inputs' dtype, shape and storage are fixed when
/// the session makes them, so a run checks only the elements of dtypes narrower than their storage, and
/// moves no value.
class session {
 public:
  /// Prepares `g` (nothing is decoded yet; the first `run` decodes the constants it uses).
  explicit session(const graph::graph& g, const options& opt = {})
      : g_(g), opt_(opt), plan_(g, detail::index_tensors(g), opt.max_tensor_bytes), cache_(plan_.names.size(), g.operators.size()) {
    st_.keep_storage = true;
    st_.reset(plan_.names.size());
  }
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  /// Runs the graph on `inputs` (as `run::run`).
  [[nodiscard]] result run(std::span<const value> inputs) {
    outcome o;
    if (auto r = run(inputs, o); !r) return std::move(r).error();
    return o;
  }

  /// Runs the graph on `inputs` (as `run::run`) into `out`: `out.outputs` (and with
  /// `keep_intermediates` `out.tensors`) are replaced by this run's; the buffers of the values
  /// `out.outputs` held (an earlier run's outputs handed back) are reused for this run's outputs
  /// — with the same `out` on every run, a run allocates nothing for its outputs. On an error,
  /// the error of `run::run`; `out` is then unspecified (valid, reusable).
  [[nodiscard]] expected<void> run(std::span<const value> inputs, outcome& out) {
    std::optional<error> e;
    const bool direct = cache_.direct;
    try {
      e = detail::run_graph(g_, plan_, inputs, opt_, &cache_, st_, out);
    } catch (const std::bad_alloc&) {
      e = detail::graph_error(errc::limit, {}, "out of memory");
    }
    reset_after(direct);  // unbinds this run's values; their buffers stay as the slots' spares
    invoked_ = false;                 // `output` referred to those buffers
    if (e) return std::move(*e);
    return {};
  }

  /// The elements of graph input `i` — a value the session owns, of the input's declared dtype and
  /// shape, zeros until written — in its storage type `T`: `std::int8_t` (BOOL, INT4, INT8),
  /// `std::int16_t` (INT16), `std::int32_t` (INT32), `std::int64_t` (INT48, INT64, SHAPE), `float`
  /// (FP16, BF16, FP32: values of the dtype), `std::uint8_t` (FP8/FP6/FP4/MXINT8/FP8UE8M0 codes); layout
  /// row-major over the declared shape. Write them, then `invoke()`; the span stays valid for the
  /// session's lifetime (the session's inputs are made once, on the first `input` or `invoke`).
  /// Errors: `invalid_graph` (no graph input `i`; a graph input that is not a declared tensor, or whose
  /// declared shape is invalid; `T` is not the input's storage type), `limit` (the input is above
  /// `options::max_tensor_bytes`, or out of memory).
  template <class T>
    requires(is_int_storage_v<T> || std::is_same_v<T, float> || std::is_same_v<T, std::uint8_t>)
  [[nodiscard]] expected<std::span<T>> input(std::size_t i) {
    if (auto e = make_inputs()) return std::move(*e);
    if (i >= in_.size())
      return detail::graph_error(errc::invalid_graph, {},
                                 "the graph has " + std::to_string(in_.size()) + " inputs, no input " + std::to_string(i));
    value& v = in_[i];
    std::span<T> span;  // stays empty when `T` is not the storage (declared shapes have ≥ 1 element)
    if constexpr (is_int_storage_v<T>) {
      if (storage_of(v.type) == storage::integer) span = v.ints.template get<T>();
    } else if constexpr (std::is_same_v<T, float>) {
      if (storage_of(v.type) == storage::real) span = v.reals;
    } else {
      if (storage_of(v.type) == storage::code) span = v.codes;
    }
    if (span.empty())
      return detail::graph_error(errc::invalid_graph, g_.inputs[i],
                                 "input " + std::to_string(i) + " is " + std::string(dtype::name(v.type)) +
                                     ", not stored as the element type asked for");
    return span;
  }

  /// Runs the graph on the session's own inputs (`input`): the results and errors of `run::run(g,
  /// inputs)` on those values (an element out of its dtype's range, e.g. an INT4 input element
  /// outside [−7, 7], is refused by name before any operator runs); the outputs stay in the session
  /// (`output`); with `options::keep_intermediates` the intermediate values are kept through the run
  /// but not returned (`run` returns them). Per run, beyond the operators' own work: no input
  /// dtype/shape/storage checks (made once) and no output moves. Errors: those of `run::run`, and
  /// those of `input` when the session's inputs cannot be made.
  [[nodiscard]] expected<void> invoke() {
    invoked_ = false;
    std::optional<error> e = make_inputs();
    const bool direct = cache_.direct;
    try {
      if (!e) e = detail::run_graph(g_, plan_, in_, opt_, &cache_, st_, invoke_out_, true, &out_refs_);
    } catch (const std::bad_alloc&) {
      e = detail::graph_error(errc::limit, {}, "out of memory");
    }
    reset_after(direct);  // unbinds this run's values; they stay in their slots, where `output` finds them
    if (e) return std::move(*e);
    invoked_ = true;
    return {};
  }

  /// Graph output `j` of the last `invoke`, valid until the next `run` or `invoke`; nullptr when the
  /// last run was not a successful `invoke` or there is no output `j`.
  [[nodiscard]] const value* output(std::size_t j) const noexcept {
    return invoked_ && j < out_refs_.size() ? out_refs_[j] : nullptr;
  }

 private:
  /// Unbinds every slot but the pinned constants after a run (`run_state::reset`); after a direct run
  /// (`direct`: the session was direct when it started) only the slots such a run binds.
  void reset_after(bool direct) {
    if (direct) st_.unbind_all(cache_.direct_bound);
    else st_.reset(plan_.names.size());
  }

  /// Makes the session's input values (`input`) once: zeros of each graph input's declared dtype and shape.
  [[nodiscard]] std::optional<error> make_inputs() {
    if (inputs_made_) return std::nullopt;
    try {
      std::vector<value> in;
      in.reserve(g_.inputs.size());
      for (std::size_t i = 0; i < g_.inputs.size(); ++i) {
        const auto& n = g_.inputs[i];
        const auto* t = plan_.decl[plan_.inputs[i]];
        if (t == nullptr) return detail::graph_error(errc::invalid_graph, n, "graph input is not a declared tensor");
        if (auto m = detail::check_tensor_size(*t, opt_.max_tensor_bytes)) return detail::graph_error(m->kind, n, std::move(m->rule));
        in.push_back(zeros(t->type, t->shape));
      }
      in_ = std::move(in);
    } catch (const std::bad_alloc&) {
      return detail::graph_error(errc::limit, {}, "out of memory");
    }
    inputs_made_ = true;
    return std::nullopt;
  }

  const graph::graph& g_;
  options opt_;
  detail::graph_plan plan_;
  detail::constant_cache cache_;
  detail::run_state st_;
  std::vector<value> in_;               ///< the session's own inputs (`input`, `invoke`)
  bool inputs_made_ = false;
  outcome invoke_out_;                  ///< `run_graph`'s outcome argument for `invoke`: stays empty
  std::vector<const value*> out_refs_;  ///< the outputs of the last `invoke`
  bool invoked_ = false;                ///< the last run was a successful `invoke`
};
}  // namespace armlower::run
