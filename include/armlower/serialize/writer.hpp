/// @file armlower/serialize/writer.hpp
/// TOSA flatbuffer writer: a TOSA graph (`graph::graph` whose operators are all `tosa::op`)
/// → the bytes of a `.tosa` file in FBS-1.0 or FBS-1.1 (`serialize/format.hpp`).
///
/// Layout written (tosa-tools' `tosa.fbs`): file identifier "TOSA"; `Version`
/// {1,0,0,false} or {1,1,0,true} with every field present; `software_version`
/// `writer_software_version` (2026.8.0, `format.hpp`); one region "main" holding one block
/// "main"; the block's tensors in graph order (constants carry their payload in `data`, padded
/// with zeros to a multiple of 8 bytes and 8-byte aligned, as the reference C++ serializer
/// does), except SHAPE tensors, which go to the block's `shapes` as TosaShape {name, rank =
/// element count, data} like tosa-tools 2026.8.0 writes them; operators: one CONST_SHAPE per
/// SHAPE constant, then one CONST per other constant (both in tensor order), then the graph's
/// other operators in order (explicit `const_` operators in the
/// graph are checked and folded into that prefix); each operator with its attribute table
/// (`attribute_type` = op value) and operands in TOSA order (TOSA 1.0 `tosa.xml` argument order, as written by serialization_lib `tosa_serializer.py`); block inputs and
/// outputs = graph inputs and outputs.
///
/// Constant payloads are taken as `graph::tensor::data` holds them (the wire encoding of
/// `graph/constant.hpp`), except FP6E2M3/FP6E3M2, which the graph stores one code per byte
/// and the wire packs 4 codes in 3 bytes (`detail/payload.hpp`).
///
/// Writing the same graph twice gives the same bytes, and `write(read(write(g)))` == `write(g)`.
#pragma once

#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/io/file.hpp>
#include <armlower/serialize/detail/generated.hpp>
#include <armlower/serialize/detail/payload.hpp>
#include <armlower/serialize/detail/text.hpp>
#include <armlower/serialize/error.hpp>
#include <armlower/serialize/format.hpp>
#include <armlower/serialize/visitor.hpp>
#include <armlower/tosa/legality.hpp>
#include <armlower/tosa/spec.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace armlower::serialize {

namespace detail {

/// A flatbuffers allocator whose blocks are `std::vector`s, so the finished buffer (which the
/// builder leaves at the end of its block) can be moved to the front and handed out as the
/// result without a second copy of the constants: peak memory = graph + one file image.
class vector_allocator final : public flatbuffers::Allocator {
 public:
  std::uint8_t* allocate(std::size_t size) override {
    blocks_.emplace_back(size);
    return blocks_.back().data();
  }
  void deallocate(std::uint8_t* p, std::size_t) override {
    for (auto& b : blocks_)
      if (b.data() == p) std::vector<std::uint8_t>().swap(b);
  }
  /// The block holding [p, p + n), with those bytes moved to its front and trimmed to n.
  [[nodiscard]] std::vector<std::uint8_t> take(const std::uint8_t* p, std::size_t n) {
    for (auto& b : blocks_) {
      if (b.empty() || p < b.data() || p + n > b.data() + b.size()) continue;
      std::memmove(b.data(), p, n);
      b.resize(n);
      return std::move(b);
    }
    return {p, p + n};
  }

 private:
  std::vector<std::vector<std::uint8_t>> blocks_;
};

/// Checks a TOSA graph against everything the format itself needs (dtypes and ops the format
/// carries, names that resolve, operand counts, attribute kinds and values, constant payload
/// sizes) and serializes it.
class graph_writer {
 public:
  graph_writer(const graph::graph& g, format f) : g_(g), f_(f) {}

  /// Checks the graph for the format; then, when `t` is given, every op's dtype signature
  /// (`tosa::check`) and every tensor's dtype (`tosa::check_tensor`) against that target;
  /// then serializes, emitting each operator (and each implicit CONST) through `sink(ctx, o)`.
  template <class Sink>
  [[nodiscard]] result<std::vector<std::uint8_t>> run(const tosa::target* t, Sink&& sink) {
    if (auto e = validate()) return std::move(*e);
    if (t != nullptr)
      if (auto e = check_target(*t)) return std::move(*e);
    return emit(sink);
  }

 private:
  const graph::graph& g_;
  format f_;
  std::unordered_map<std::string_view, std::size_t> index_;
  std::size_t payload_total_ = 0;
  std::size_t meta_ = 0;

  /// A graph-level failure (stage "writer"); its message names the tensor concerned.
  static error fail(errc c, std::string m) {
    location l;
    l.stage = "writer";
    return error{c, std::move(l), std::move(m)};
  }
  /// A failure of the graph's operator `i` (`location::graph_op`), optionally about `tensor`.
  static error fail_op(errc c, std::size_t i, std::string_view op, std::string m, std::string tensor = {}) {
    location l;
    l.stage = "writer";
    l.graph_op = static_cast<std::int64_t>(i);
    l.op = std::string(op);
    l.tensor = std::move(tensor);
    return error{c, std::move(l), std::move(m)};
  }

  std::optional<error> check_tensor_ref(std::size_t i, std::string_view op, std::string_view role, std::size_t k,
                         const std::string& name) const {
    if (index_.find(name) == index_.end())
      return fail_op(errc::invalid_graph, i, op,
                     std::string(role) + " " + std::to_string(k) + " is not a tensor of the graph", name);
    return {};
  }

  const graph::tensor& tensor_of(const std::string& name) const { return g_.tensors[index_.at(name)]; }

  std::optional<error> validate() {
    const std::string fmt(name(f_));
    // Operators that the format cannot carry at all (reported before their tensors' dtypes).
    for (std::size_t i = 0; i < g_.operators.size(); ++i) {
      const auto& o = g_.operators[i];
      if (!o.is_tosa())
        return fail_op(errc::invalid_graph, i, o.op_name(),
                       "is a framework operator, not a TOSA operator; lower the graph before writing it");
      const tosa::op op = o.tosa_op();
      if (!tosa::known(op))
        return fail_op(errc::unsupported, i, "", "unknown op value " + std::to_string(tosa::serialized(op)));
      if (!has_op(op, f_))
        return fail_op(errc::unsupported, i, tosa::name(op),
                       "needs " + std::string(name(first_format(op))) + "; the target format is " + fmt);
    }
    // Tensors.
    for (std::size_t i = 0; i < g_.tensors.size(); ++i) {
      const auto& t = g_.tensors[i];
      if (t.name.empty()) return fail(errc::invalid_graph, "tensor #" + std::to_string(i) + " has an empty name");
      if (!index_.emplace(t.name, i).second)
        return fail(errc::invalid_graph, "tensor name '" + t.name + "' is used by more than one tensor");
      if (wire_dtype(t.type, f_) == 0)
        return fail(errc::unsupported,
                    "tensor '" + t.name + "' has dtype " + std::string(dtype::name(t.type)) + ", which " + fmt +
                        " cannot carry (it needs " + std::string(name(format::tosa_1_1)) + ")");
      if (t.type == dtype::id::shape && (t.shape.size() != 1 || t.shape[0] < 0 || t.shape[0] > max_shape_len))
        return fail(errc::invalid_graph,
                    "SHAPE tensor '" + t.name + "' " + describe(t) + " must have rank 1 and at most " +
                        std::to_string(max_shape_len) + " elements");
      const std::int64_t n = t.type == dtype::id::shape ? t.shape[0] : checked_count(t.shape);
      if (n < 0)
        return fail(errc::invalid_graph,
                    "tensor '" + t.name + "' " + describe(t) +
                        ": every dimension must be >= 1 and the element count <= 2^40");
      if (t.is_constant) {
        const std::size_t want = graph::payload_bytes(t.type, n);
        if (t.data.size() != want)
          return fail(errc::invalid_graph,
                      "constant '" + t.name + "' " + describe(t) + " has " + std::to_string(t.data.size()) +
                          " payload bytes, expected " + std::to_string(want));
        payload_total_ += pad8(wire_bytes(t.type, n));
      } else if (!t.data.empty()) {
        return fail(errc::invalid_graph, "tensor '" + t.name + "' has payload bytes but is not marked constant");
      }
    }
    // Graph inputs and outputs.
    for (const auto& n : g_.inputs) {
      auto it = index_.find(n);
      if (it == index_.end()) return fail(errc::invalid_graph, "graph input '" + n + "' is not a tensor of the graph");
      if (g_.tensors[it->second].is_constant) return fail(errc::invalid_graph, "graph input '" + n + "' is a constant");
    }
    for (const auto& n : g_.outputs)
      if (index_.find(n) == index_.end())
        return fail(errc::invalid_graph, "graph output '" + n + "' is not a tensor of the graph");
    // Operators.
    std::vector<std::size_t> producer(g_.tensors.size(), SIZE_MAX);
    for (std::size_t i = 0; i < g_.operators.size(); ++i) {
      const auto& o = g_.operators[i];
      const tosa::op op = o.tosa_op();
      const std::string_view on = tosa::name(op);
      const tosa::op_descriptor& w = tosa::describe(op);
      if (o.inputs.size() != w.n_in || o.outputs.size() != w.n_out)
        return fail_op(errc::invalid_graph, i, on,
                       "has " + std::to_string(o.inputs.size()) + " inputs and " + std::to_string(o.outputs.size()) +
                           " outputs, expected " + std::to_string(w.n_in) + " and " + std::to_string(w.n_out));
      for (std::size_t k = 0; k < o.inputs.size(); ++k)
        if (auto e = check_tensor_ref(i, on, "input", k, o.inputs[k])) return e;
      for (std::size_t k = 0; k < o.outputs.size(); ++k)
        if (auto e = check_tensor_ref(i, on, "output", k, o.outputs[k])) return e;
      if (o.attr.index() != static_cast<std::size_t>(w.attr))
        return fail_op(errc::invalid_graph, i, on,
                       "needs attribute " + std::string(tosa::attr_type_name(w.attr)) + ", got " +
                           std::string(tosa::attr_type_name(static_cast<tosa::attr_kind>(o.attr.index()))));
      for (const auto& out : o.outputs) {
        const auto& t = tensor_of(out);
        if (t.is_constant != (op == tosa::op::const_))
          return fail_op(errc::invalid_graph, i, on,
                         "output " +
                             std::string(t.is_constant ? "is a constant tensor" : "is not a constant tensor (CONST needs payload)"),
                         out);
        auto& p = producer[index_.at(out)];
        if (p != SIZE_MAX)
          return fail_op(errc::invalid_graph, i, on,
                         "output is already written by operator " + std::to_string(p) + " (each tensor is written once)",
                         out);
        p = i;
      }
      if (auto e = check_attribute(i, o)) return e;
    }
    // The whole file must fit one flatbuffer (2 GiB, no external data): leave room for the
    // tables (names, shapes, operators).
    std::size_t meta = 1024;  // generous: the builder is sized once and never reallocates
    for (const auto& t : g_.tensors) meta += 2 * (t.name.size() + 16) + 4 * t.shape.size() + 160;
    for (const auto& o : g_.operators) {
      meta += 256;
      for (const auto& n : o.inputs) meta += n.size() + 16;
      for (const auto& n : o.outputs) meta += n.size() + 16;
    }
    for (const auto& n : g_.inputs) meta += n.size() + 16;
    for (const auto& n : g_.outputs) meta += n.size() + 16;
    meta_ = meta;
    if (payload_total_ + meta >= FLATBUFFERS_MAX_BUFFER_SIZE)
      return fail(errc::unsupported, "graph too large for one .tosa flatbuffer: " + std::to_string(payload_total_) +
                  " bytes of constants (limit 2 GiB; external data is not supported)");
    return {};
  }

  std::optional<error> check_attribute(std::size_t i, const graph::operation& o) const {
    const graph::tensor* in0 = o.inputs.empty() ? nullptr : &tensor_of(o.inputs[0]);
    if (auto p = serialize::check_attribute(o, f_, in0))
      return fail_op(p->code, i, tosa::name(o.tosa_op()), std::move(p->rule), std::move(p->tensor));
    return {};
  }

  /// "writer: op #1 CONV2D, tensor 'acc': CONV2D i16×i8→i48 requires EXT-INT16; ... (inputs ...)"
  std::optional<error> check_target(const tosa::target& t) const {
    for (std::size_t i = 0; i < g_.operators.size(); ++i) {
      const auto& o = g_.operators[i];
      std::array<dtype::id, tosa::max_slots> d{};
      const std::size_t n = slot_dtypes(g_, o, d);
      if (const auto r = tosa::check(t, o.tosa_op(), std::span<const dtype::id>(d.data(), n)); !r.ok()) {
        std::string names;
        for (const auto& in : o.inputs) names += (names.empty() ? "'" : ", '") + in + "'";
        return fail_op(errc::not_legal, i, tosa::name(o.tosa_op()),
                       std::string(r.reason()) + " (inputs " + names + "; output '" + o.outputs[0] + "')",
                       o.outputs[0]);
      }
    }
    for (const auto& tn : g_.tensors) {
      // Constants are gated like every tensor (ExecuTorch's TosaArg dtype gating), not by the
      // CONST rows: MX weights (FP8 data with E8M0 scales) are legal on TOSA-1.1+FP+mxfp.
      if (const auto r = tosa::check_tensor(t, tn.type); !r.ok())
        return fail(errc::not_legal, "tensor '" + tn.name + "': " + std::string(r.reason()));
    }
    return {};
  }

  template <class Sink>
  [[nodiscard]] result<std::vector<std::uint8_t>> emit(Sink& sink) {
    namespace fb = detail::fb11;  // FBS-1.1 is an append of FBS-1.0: same bytes for 1.0 content
    using flatbuffers::Offset;
    vector_allocator alloc;  // outlives fbb
    flatbuffers::FlatBufferBuilder fbb(payload_total_ + meta_, &alloc, false);

    // Tensors; SHAPE values go to the block's `shapes` (TosaShape {name, rank = element count,
    // data}), as tosa-tools' serializer stores CONST_SHAPE results.
    auto payload = [&](const graph::tensor& t) {
      std::vector<std::uint8_t> packed;
      std::span<const std::uint8_t> bytes(t.data);
      if (is_fp6(t.type)) {
        packed = pack_fp6(bytes);
        bytes = packed;
      }
      const std::size_t len = pad8(bytes.size());
      fbb.ForceVectorAlignment(len, 1, 8);
      std::uint8_t* dst = nullptr;
      const auto data = fbb.CreateUninitializedVector(len, 1, &dst);
      if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
      std::memset(dst + bytes.size(), 0, len - bytes.size());
      return Offset<flatbuffers::Vector<std::uint8_t>>(data);
    };
    std::vector<Offset<fb::TosaTensor>> tensors;
    std::vector<Offset<fb::TosaShape>> shapes;
    tensors.reserve(g_.tensors.size());
    // (Two passes, so the bytes do not depend on how SHAPE and other tensors interleave.)
    for (const auto& t : g_.tensors) {
      if (t.type != dtype::id::shape) continue;
      const auto name = fbb.CreateString(t.name);
      const auto data = t.is_constant ? payload(t) : Offset<flatbuffers::Vector<std::uint8_t>>(0);
      shapes.push_back(fb::CreateTosaShape(fbb, name, static_cast<std::uint32_t>(t.shape[0]), data));
    }
    for (const auto& t : g_.tensors) {
      if (t.type == dtype::id::shape) continue;
      const auto name = fbb.CreateString(t.name);
      const auto shape = fbb.CreateVector(t.shape);
      const auto data = t.is_constant ? payload(t) : Offset<flatbuffers::Vector<std::uint8_t>>(0);
      tensors.push_back(fb::CreateTosaTensor(fbb, name, shape, static_cast<fb::DType>(wire_dtype(t.type, f_)), data));
    }

    // Operators: CONST_SHAPE for every SHAPE constant, CONST for every other constant (each in
    // graph order), then the graph's non-CONST operators.
    std::vector<Offset<fb::TosaOperator>> ops;
    ops.reserve(g_.operators.size() + g_.tensors.size());
    const auto empty_inputs = fbb.CreateVector(std::vector<Offset<flatbuffers::String>>{});
    emit_context ctx{fbb, g_, f_, index_};
    for (const auto& t : g_.tensors) {  // CONST_SHAPE first (SHAPE constants)
      if (!t.is_constant || t.type != dtype::id::shape) continue;
      const auto outputs = fbb.CreateVector(std::vector<Offset<flatbuffers::String>>{fbb.CreateString(t.name)});
      const auto attr = fb::CreateConstShapeAttribute(fbb).Union();
      ops.push_back(fb::CreateTosaOperator(fbb, fb::Op::CONST_SHAPE, fb::Attribute::ConstShapeAttribute, attr,
                                           empty_inputs, outputs));
    }
    for (const auto& t : g_.tensors) {  // then CONST for the other constants
      if (!t.is_constant || t.type == dtype::id::shape) continue;
      const graph::operation c{tosa::op::const_, {}, {t.name}, {}};
      ops.push_back(sink(ctx, c));
    }
    for (const auto& o : g_.operators)
      if (o.tosa_op() != tosa::op::const_) ops.push_back(sink(ctx, o));

    std::vector<Offset<flatbuffers::String>> gin, gout;
    for (const auto& n : g_.inputs) gin.push_back(fbb.CreateString(n));
    for (const auto& n : g_.outputs) gout.push_back(fbb.CreateString(n));
    const auto block_inputs = fbb.CreateVector(gin);
    const auto block_outputs = fbb.CreateVector(gout);
    const auto main_name = fbb.CreateString("main");
    const auto block = fb::CreateTosaBasicBlock(fbb, main_name, fbb.CreateVector(ops), fbb.CreateVector(tensors),
                                                block_inputs, block_outputs,
                                                shapes.empty() ? 0 : fbb.CreateVector(shapes));
    const auto region = fb::CreateTosaRegion(
        fbb, main_name, fbb.CreateVector(std::vector<Offset<fb::TosaBasicBlock>>{block}));
    const auto regions = fbb.CreateVector(std::vector<Offset<fb::TosaRegion>>{region});
    const auto h = header_of(f_);
    fbb.ForceDefaults(true);  // write every Version field (its defaults are -1 / true)
    const auto version = fb::CreateVersion(fbb, h.major, h.minor, h.patch, h.draft);
    fbb.ForceDefaults(false);
    const auto sv = writer_software_version;
    const auto software = fb::CreateSoftwareVersion(fbb, sv.major, sv.minor, sv.micro, fbb.CreateString(""));
    fb::FinishTosaGraphBuffer(fbb, fb::CreateTosaGraph(fbb, version, regions, software));
    return alloc.take(fbb.GetBufferPointer(), fbb.GetSize());
  }
};

}  // namespace detail

/// Serializes the TOSA graph `g` as a `.tosa` flatbuffer of format `f`.
///
/// Requirements on `g` (each violation is an error naming the operator index and op, the
/// tensor and the rule): only `tosa::op` operators; unique non-empty tensor names; every
/// tensor dtype and op present in format `f` (e.g. FP4E2M1 or MATMUL_T_BLOCK_SCALED need
/// `format::tosa_1_1`); dimensions >= 1; constant payload sizes equal
/// `graph::payload_bytes(dtype, elements)`; operand counts as in the op's descriptor; the
/// attribute alternative each op needs (conv2d_attr, rescale_attr, transpose_attr, clamp_attr,
/// block_scaled_attr with block_size 32, nan_mode_attr, else std::monostate); CLAMP bounds representable in
/// the input dtype; each non-constant tensor written by at most one operator, constants only
/// by CONST; graph inputs/outputs name tensors; total size < 2 GiB.
/// Op/dtype legality against a TOSA specification is not checked here (see the spec-aware
/// overloads); the format only decides what can be encoded.
[[nodiscard]] inline result<std::vector<std::uint8_t>> write(const graph::graph& g, format f) {
  return detail::graph_writer(g, f).run(nullptr, visit);
}

/// Serializes `g` for the run-time target `t` (e.g. `tosa::parse("TOSA-1.0+INT+int16")`): the
/// format follows the target's version (1.0 → FBS-1.0, 1.1 → FBS-1.1), and on top of the
/// format checks of `write(g, f)` every operator's dtype signature
/// (slot order of `tosa/op_table.hpp`, see `slot_dtypes`) must be legal on `t`
/// (`tosa::check`) and every tensor dtype, constants included, allowed on `t`
/// (`tosa::check_tensor`, ExecuTorch's dtype gating; the implicit CONST operators are not
/// checked against the CONST rows, so FP8 MX weights are legal on TOSA-1.1+FP+mxfp).
/// Errors name the operator, its tensors and the rule (code `errc::not_legal`), e.g. "writer:
/// op #1 CONV2D, tensor 'acc': CONV2D i16×i8→i48 requires EXT-INT16; TOSA-1.0+INT does not
/// enable it (inputs 'x', 'w', 'b', 'x_zp', 'w_zp'; output 'acc')".
[[nodiscard]] inline result<std::vector<std::uint8_t>> write(const graph::graph& g, const tosa::target& t) {
  return detail::graph_writer(g, format_of(t.tosa_version())).run(&t, visit);
}

/// Writes `bytes` to `path` with `io::write_file`'s semantics (armlower/io/file.hpp): a regular
/// file is replaced atomically through a temporary in the same directory (never left partially
/// written; its permission bits kept); a symbolic link is followed; an existing special file
/// (`/dev/null`, a FIFO) is written through; a directory is refused. On failure no temporary is
/// left and the error names the path and the OS reason.
[[nodiscard]] inline result<void> write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  if (auto w = io::write_file(path, bytes); !w) return std::move(w).error();
  return {};
}

}  // namespace armlower::serialize
