/// @file armlower/serialize/reader.hpp
/// TOSA flatbuffer reader for untrusted input: bytes of a `.tosa` file → `graph::graph`.
///
/// Order of checks: size and file identifier "TOSA"; the flatbuffers Verifier (every offset,
/// vector and string inside the buffer; nesting depth ≤ 64; ≤ 10^6 tables); the version
/// (1.0.x draft=false or 1.1.x draft=true, `serialize::format_of`); one region with one block;
/// every tensor (name, known DType for the version, dims ≥ 1, no variable / unranked /
/// external-data tensors, constant payload of at least the expected size); every operator (an
/// op armlower lowers to and the version carries, or CONST/CONST_SHAPE; attribute type = op;
/// operand counts; every operand names a tensor; attribute values); graph inputs and outputs
/// name tensors; the data flow (`check_dataflow`: each tensor assigned once, no graph input
/// overwritten, operators in topological order, every graph output produced). Every failure is
/// an `armlower::error` (code `errc::malformed`, `unsupported`, `invalid_graph` or `io`; stage
/// "reader"; `location::op_index` = the operator's index in the file's operator list, CONST and
/// CONST_SHAPE counted; op name; tensor) whose `line()` names them and the rule; the reader
/// never crashes, asserts or reads out of bounds on any input (fuzzed: tests/fuzz/). Operand
/// counts and attribute kinds come from the op descriptors (`tosa/op_descriptor.hpp`).
///
/// Byte vectors longer than needed. Every byte vector that holds values of a known count —
/// `TosaTensor.data` and `TosaShape.data` of every constant (any dtype, any shape) and
/// `ClampAttribute.min_val/max_val` (one value of the input dtype) — is read as tosa-tools
/// 2026.8.0's reference model reads it (serialization_lib `ConvertU8to*`: at least the needed
/// bytes, the first elements used, the rest ignored): the 8-byte zero padding its C++
/// serializer writes, the 8-byte CLAMP bounds its test generator writes, and ExecuTorch 1.5.1's
/// per-channel CONV2D weight zero point (N bytes for N output channels in a shape-[1] INT8
/// tensor; the reference model uses element 0, and so does armlower — measured equal in
/// tests/interop/). More bytes than the needed count rounded up to a multiple of 8 are reported
/// in `tosa_file::warnings` (one line naming the tensor or operator); fewer bytes than needed
/// is an error (the reference model refuses or aborts on those). A graph input listed twice is
/// a warning too (`check_dataflow`). `TosaGraph.software_version` is optional and not used.
///
/// The graph returned: the block's `shapes` as SHAPE tensors [rank], then its tensors, in file
/// order (constants with `is_constant` and their payload,
/// unpadded, FP6 unpacked to one code per byte as in `graph/constant.hpp`); CONST and
/// CONST_SHAPE operators are folded into their constant tensors (not returned as operators);
/// other operators in file order with TOSA operand order and `graph::attribute`s; graph
/// inputs/outputs = block inputs/outputs. `write(read(b).graph, read(b).version)` reproduces
/// `b` for every `b` armlower wrote.
///
/// Composite block-scaled tensors (TOSA 1.1 spec head, written by tosa-tools 2026.8.0: a
/// `TosaTensor` whose `scale_type` = FP8UE8M0 and `block_shape` = BLOCK_SHAPE_32 carry, beside
/// the FP8/FP6/FP4/MXINT8 values in `data`, one FP8UE8M0 scale per 32 values in `scale_data`;
/// tosa-tools' `bin/tosa.fbs` and `tosa_serializer.ScaledDType`, facts and reference-model
/// behaviour in `serialize/detail/block_scaled_types.hpp`) are never read as plain tensors:
/// each becomes a data tensor `x` and a scale tensor `x_scale`, CAST to/from it becomes
/// CAST_TO/FROM_BLOCK_SCALED and MATMUL_T on two of them MATMUL_T_BLOCK_SCALED, as the
/// reference model computes them; any other form or use is refused naming tensor and type.
#pragma once

#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/serialize/detail/block_scaled_types.hpp>
#include <armlower/serialize/detail/generated.hpp>
#include <armlower/serialize/detail/payload.hpp>
#include <armlower/serialize/detail/text.hpp>
#include <armlower/tosa/op_descriptor.hpp>
#include <armlower/serialize/error.hpp>
#include <armlower/serialize/format.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace armlower::serialize {

/// A composite block-scaled tensor of the file (TOSA 1.1 spec head, e.g. BS32_FP8UE8M0_FP4E2M1;
/// `detail::composite_name`), as the reader split it: the names of its data tensor (the
/// file's tensor name, dtype `value_type`) and of its FP8UE8M0 scale tensor in the graph.
struct block_scaled_tensor {
  std::string data;
  std::string scale;
  dtype::id value_type = dtype::id::fp8e4m3;
  /// The type's spec-head name, e.g. "BS32_FP8UE8M0_FP4E2M1".
  [[nodiscard]] std::string type_name() const { return detail::composite_name(value_type); }
};

/// What `read` returns: the format the file declared, its graph, the composite block-scaled
/// tensors the graph carries as data + scale tensors (file order), and the warnings about
/// input the reader accepted although a careful writer would not produce it (each one line,
/// naming the tensor or operator; see the file comment). Callers print them (the CLI to stderr).
struct tosa_file {
  format version = format::tosa_1_0;
  graph::graph graph;
  std::vector<block_scaled_tensor> block_scaled;
  std::vector<std::string> warnings;
  /// `operator_index[k]` = the index in the file's operator list (the numbering every reader
  /// message uses, CONST/CONST_SHAPE counted) of `graph.operators[k]`.
  std::vector<std::size_t> operator_index;
};

namespace detail {

class graph_reader {
 public:
  explicit graph_reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  [[nodiscard]] result<tosa_file> run() {
    if (bytes_.size() < 8)
      return fail(errc::malformed, "not a TOSA flatbuffer: " + std::to_string(bytes_.size()) + " bytes is too short");
    if (bytes_.size() >= FLATBUFFERS_MAX_BUFFER_SIZE)
      return fail(errc::malformed, "not a TOSA flatbuffer: " + std::to_string(bytes_.size()) + " bytes exceeds the 2 GiB limit");
    if (std::memcmp(bytes_.data() + 4, file_identifier.data(), 4) != 0)
      return fail(errc::malformed, "not a TOSA flatbuffer: file identifier is '" + printable(bytes_.subspan(4, 4)) +
                                       "', expected 'TOSA'");
    // flatbuffers reads scalars in place: give it an 8-byte aligned copy when needed.
    if (reinterpret_cast<std::uintptr_t>(bytes_.data()) % 8 != 0) {
      aligned_.reset(new std::uint64_t[(bytes_.size() + 7) / 8]);
      std::memcpy(aligned_.get(), bytes_.data(), bytes_.size());
      bytes_ = {reinterpret_cast<const std::uint8_t*>(aligned_.get()), bytes_.size()};
    }
    flatbuffers::Verifier verifier(bytes_.data(), bytes_.size(), 64, 1000000);
    if (!fb11::VerifyTosaGraphBuffer(verifier))
      return fail(errc::malformed,
                  "not a valid TOSA flatbuffer: the flatbuffers verifier rejected it (truncated or corrupt, " +
                      std::to_string(bytes_.size()) + " bytes)");
    const auto* root = fb11::GetTosaGraph(bytes_.data());
    const auto* v = root->version();
    const auto fmt = format_of(v->_major(), v->_minor(), v->_draft());
    if (!fmt)
      return fail(errc::unsupported, "unsupported TOSA version " + std::to_string(v->_major()) + "." +
                                         std::to_string(v->_minor()) + "." + std::to_string(v->_patch()) +
                                         (v->_draft() ? " draft" : "") + " (armlower reads 1.0 final and 1.1 draft)");
    f_ = *fmt;
    if (auto e = read_graph(*root)) return std::move(*e);
    return tosa_file{f_, std::move(g_), std::move(block_scaled_), std::move(warnings_), std::move(op_index_)};
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::unique_ptr<std::uint64_t[]> aligned_;
  format f_ = format::tosa_1_0;
  graph::graph g_;
  std::unordered_map<std::string, std::size_t> index_;
  /// Composite block-scaled tensors: data tensor name → scale tensor name.
  std::unordered_map<std::string, std::string> composite_;
  std::vector<block_scaled_tensor> block_scaled_;
  std::vector<std::string> warnings_;
  std::vector<std::size_t> op_index_;

  /// Where the reader is: stage "reader", and while an operator is read its file index
  /// (`location::op_index`) and op name; every failure carries a copy.
  location cur_ = at_graph();

  static location at_graph() {
    location l;
    l.stage = "reader";
    return l;
  }
  void at_op(std::size_t i, std::string op) {
    cur_.op_index = static_cast<std::int64_t>(i);
    cur_.op = std::move(op);
  }
  /// A failure at the current location, optionally about `tensor` (a name from the file, kept
  /// printable: control bytes escaped as \xNN, so the error stays one line).
  error fail(errc c, std::string m, const std::string& tensor = {}) const {
    location l = cur_;
    l.tensor = printable({reinterpret_cast<const std::uint8_t*>(tensor.data()), tensor.size()});
    return error{c, std::move(l), std::move(m)};
  }

  std::optional<error> read_graph(const fb11::TosaGraph& root) {
    const auto* regions = root.regions();
    if (regions == nullptr || regions->size() != 1)
      return fail(errc::malformed, "the graph has " + std::to_string(regions ? regions->size() : 0) +
                  " regions; armlower reads exactly one ('main', no control flow)");
    const auto* blocks = regions->Get(0)->blocks();
    if (blocks == nullptr || blocks->size() != 1)
      return fail(errc::malformed, "region 0 has " + std::to_string(blocks ? blocks->size() : 0) +
                  " blocks; armlower reads exactly one ('main')");
    const auto* block = blocks->Get(0);
    if (auto e = read_shapes(*block)) return e;
    if (auto e = read_tensors(*block)) return e;
    if (auto e = read_operators(*block)) return e;
    if (auto e = read_names(block->inputs(), "graph input", g_.inputs)) return e;
    if (auto e = read_names(block->outputs(), "graph output", g_.outputs)) return e;
    return check_dataflow(*block);
  }

  /// The block's `shapes` become SHAPE tensors [rank] (constant when they carry data), placed
  /// before the other tensors.
  std::optional<error> read_shapes(const fb11::TosaBasicBlock& block) {
    const auto* ss = block.shapes();
    if (ss == nullptr) return {};
    for (flatbuffers::uoffset_t i = 0; i < ss->size(); ++i) {
      const auto* s = ss->Get(i);
      if (s->name() == nullptr || s->name()->size() == 0) return fail(errc::malformed, "shape #" + std::to_string(i) + " has no name");
      std::string name = s->name()->str();
      const std::string q =
          "shape " + quote_name(name);
      if (s->rank() > static_cast<std::uint32_t>(max_shape_len))
        return fail(errc::malformed, q + ": rank " + std::to_string(s->rank()) + " exceeds " + std::to_string(max_shape_len));
      graph::tensor out;
      out.type = dtype::id::shape;
      out.shape = {static_cast<std::int32_t>(s->rank())};
      if (const auto* data = s->data(); data != nullptr && data->size() != 0) {
        auto payload = payload_of(*data, std::size_t{8} * s->rank(), q + " (rank " + std::to_string(s->rank()) + "): data");
        if (!payload) return payload.error();
        out.data.assign(payload->begin(), payload->end());
        out.is_constant = true;
      }
      out.name = std::move(name);
      if (!index_.emplace(out.name, g_.tensors.size()).second) return fail(errc::malformed, q + " is declared twice");
      g_.tensors.push_back(std::move(out));
    }
    return {};
  }

  [[nodiscard]] bool is_scale_name(const std::string& n) const {
    for (const auto& [d, sc] : composite_)
      if (sc == n) return true;
    return false;
  }

  /// A composite block-scaled tensor (the tensor just added is its data half): checks the
  /// type and adds the scale tensor `<name>_scale` (see block_scaled_types.hpp).
  std::optional<error> read_block_scales(const fb11::TosaTensor& t, const std::string& q) {
    const auto st = static_cast<std::uint32_t>(t.scale_type());
    const auto bs = static_cast<std::uint32_t>(t.block_shape());
    const auto* sd = t.scale_data();
    const bool has_scales = sd != nullptr && sd->size() != 0;
    if (st == 0 && bs == 0 && !has_scales && t.scale_offset() <= 1 && t.scale_size() <= 1) return {};
    graph::tensor& data = g_.tensors.back();
    const auto sdt = dtype_of_wire(st, f_);
    const std::string type = "block-scaled type (value " + std::string(dtype::name(data.type)) + ", scale " +
                             (sdt ? std::string(dtype::name(*sdt)) : "DType " + std::to_string(st)) +
                             ", block shape " + std::to_string(bs) + ")";
    if (f_ == format::tosa_1_0) return fail(errc::malformed, q + ": " + type + " does not exist in TOSA 1.0");
    if (sdt != dtype::id::fp8ue8m0 || bs != block_shape_32 || !is_mx_value_type(data.type))
      return fail(errc::unsupported, q + ": " + type +
                  " is not supported (armlower reads BS32_FP8UE8M0_{FP8E4M3,FP8E5M2,FP6E2M3,FP6E3M2,FP4E2M1,MXINT8})");
    const std::string what = q + " " + composite_name(data.type) + describe_shape(data.shape);
    if (t.scale_offset() > 1 || t.scale_size() > 1) return fail(errc::unsupported, what + ": external scale data is not supported");
    if (data.shape.empty() || data.shape.back() % 32 != 0)
      return fail(errc::malformed, what + ": rank must be >= 1 and the last dimension a multiple of the block size 32");
    graph::tensor scale;
    scale.type = dtype::id::fp8ue8m0;
    scale.shape = data.shape;
    scale.shape.back() /= 32;
    if (data.is_constant != has_scales)
      return fail(errc::malformed, what + (data.is_constant ? ": constant data has no scale_data" : ": scale_data without data"));
    if (has_scales) {
      const auto want = static_cast<std::size_t>(graph::element_count(scale.shape));
      if (sd->size() < want || sd->size() > pad8(want))
        return fail(errc::malformed, what + ": scale_data has " + std::to_string(sd->size()) + " bytes, expected " +
                    std::to_string(want) + " (up to " + std::to_string(pad8(want)) + " with padding)");
      scale.data.assign(sd->data(), sd->data() + want);
      scale.is_constant = true;
    }
    scale.name = scale_tensor_name(data.name);
    composite_.emplace(data.name, scale.name);
    block_scaled_.push_back({data.name, scale.name, data.type});
    if (!index_.emplace(scale.name, g_.tensors.size()).second)
      return fail(errc::malformed, what + ": its scale tensor would be named '" + scale.name + "', which is already a tensor");
    g_.tensors.push_back(std::move(scale));
    return {};
  }

  [[nodiscard]] static std::string describe_shape(const std::vector<std::int32_t>& shape) {
    std::string s = " [";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? "," : "") + std::to_string(shape[k]);
    return s + "]";
  }

  std::optional<error> read_tensors(const fb11::TosaBasicBlock& block) {
    const auto* ts = block.tensors();
    if (ts == nullptr) return {};
    g_.tensors.reserve(ts->size());
    for (flatbuffers::uoffset_t i = 0; i < ts->size(); ++i) {
      const auto* t = ts->Get(i);
      if (t->name() == nullptr || t->name()->size() == 0) return fail(errc::malformed, "tensor #" + std::to_string(i) + " has no name");
      std::string name = t->name()->str();
      const std::string q = "tensor " + quote_name(name);
      const auto wire = static_cast<std::uint32_t>(t->type());
      const auto d = dtype_of_wire(wire, f_);
      if (!d)
        return fail(errc::malformed, q + ": DType " + std::to_string(wire) + " is not a dtype of " + std::string(serialize::name(f_)));
      if (t->variable()) return fail(errc::unsupported, q + ": variable tensors (EXT-VARIABLE) are not supported");
      if (t->is_unranked()) return fail(errc::unsupported, q + ": unranked tensors are not supported");
      if (t->offset() > 1 || t->size() > 1) return fail(errc::unsupported, q + ": external (out-of-flatbuffer) data is not supported");
      graph::tensor out;
      out.type = *d;
      if (const auto* s = t->shape()) out.shape.assign(s->begin(), s->end());
      const std::int64_t n = checked_count(out.shape);
      if (n < 0)
        return fail(errc::malformed, q + " " + describe(out) + ": every dimension must be >= 1 and the element count <= 2^40");
      if (out.type == dtype::id::shape && out.shape.size() != 1)
        return fail(errc::malformed, q + " " + describe(out) + ": a SHAPE tensor must have rank 1");
      if (const auto* data = t->data(); data != nullptr && data->size() != 0) {
        auto payload = payload_of(*data, wire_bytes(out.type, n), q + " " + describe(out) + ": constant data");
        if (!payload) return payload.error();
        out.data = is_fp6(out.type) ? unpack_fp6(*payload, static_cast<std::size_t>(n))
                                    : std::vector<std::uint8_t>(payload->begin(), payload->end());
        out.is_constant = true;
      }
      out.name = std::move(name);
      if (!index_.emplace(out.name, g_.tensors.size()).second)
        return fail(errc::malformed, q + " is declared twice" +
                    (is_scale_name(out.name) ? " (also the scale tensor of a block-scaled tensor)" : ""));
      g_.tensors.push_back(std::move(out));
      if (auto e = read_block_scales(*t, q)) return e;
    }
    return {};
  }

  /// The first `want` bytes of the byte vector `data`, named `what` in messages ("tensor 'w'
  /// INT8 [1]: constant data").
  /// Like tosa-tools' serialization_lib (`TosaSerializationHandler::ConvertU8to*`: "uint8
  /// buffer size must >= target size"), any vector of at least `want` bytes is read and the
  /// bytes after the first `want` are ignored: zero padding to a multiple of 8 silently, more
  /// than that with a warning (ExecuTorch 1.5.1 writes a per-channel CONV2D weight zero point
  /// as one byte per output channel in a shape-[1] tensor; the reference model reads element 0).
  /// Fewer than `want` bytes is an error (the reference model refuses them too).
  result<std::span<const std::uint8_t>> payload_of(const flatbuffers::Vector<std::uint8_t>& data, std::size_t want,
                                                   const std::string& what) {
    const std::size_t have = data.size();
    if (have < want)
      return fail(errc::malformed, what + " has " + std::to_string(have) + " bytes, " + std::to_string(want) + " needed");
    if (have > pad8(want))
      warnings_.push_back(diagnostic{errc::malformed, cur_, what}.line() + " has " + std::to_string(have) + " bytes, " + std::to_string(want) +
                          " needed; reading the first " + std::to_string(want) +
                          " and ignoring the rest, as the TOSA reference model does");
    return std::span<const std::uint8_t>(data.data(), want);
  }

  std::optional<error> resolve(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* names,
                               std::string_view role, std::vector<std::string>& out) {
    if (names == nullptr) return {};
    for (flatbuffers::uoffset_t k = 0; k < names->size(); ++k) {
      const auto* s = names->Get(k);
      std::string n = s ? s->str() : std::string();
      if (index_.find(n) == index_.end())
        return fail(errc::malformed,
                    std::string(role) + " " + std::to_string(k) + " is not a tensor of the block",
                    n);
      out.push_back(std::move(n));
    }
    return {};
  }

  std::optional<error> read_names(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* names,
                                  std::string_view role, std::vector<std::string>& out) {
    std::vector<std::string> named;
    if (auto e = resolve(names, role, named)) return e;
    for (auto& n : named) {  // a composite graph input/output is its data and its scales
      const auto c = composite_.find(n);
      out.push_back(std::move(n));
      if (c != composite_.end()) out.push_back(c->second);
    }
    return {};
  }

  /// "CONV2D", or "op 250" for a value the schema does not name.
  static std::string wire_op_name(const fb11::TosaOperator& o) {
    const auto code = static_cast<std::uint32_t>(o.op());
    const char* n = code <= static_cast<std::uint32_t>(fb11::Op::MAX) ? fb11::EnumNameOp(o.op()) : "";
    return n != nullptr && *n != '\0' ? std::string(n) : "op " + std::to_string(code);
  }

  /// Single assignment and order of the block's data flow (run after every name resolved).
  /// TOSA graphs are in SSA form (tosa-tools' serializer checks it,
  /// `TosaSerializer._checkSSAConstraints`: "SSA violated. Multiple assignment to tensor") and
  /// tosa-tools 2026.8.0's reference model does not run the other forms reliably: measured with
  /// files written by `tosa_serializer` (tests/interop/), a tensor assigned twice aborts it or
  /// runs with the last assignment, an overwritten graph input gives the overwritten value, an
  /// operator that reads a tensor produced only later (or never) aborts it, and one that reads
  /// its own output computes with garbage. So each of these is an error naming the operator
  /// (file index), the tensor and the rule:
  ///  - an operator output that is a graph input, or that an earlier operator (CONST included)
  ///    already produced;
  ///  - an operator input that is not a graph input, a constant or the output of an earlier
  ///    operator (never produced, produced by the operator itself, or only by a later one:
  ///    operators must be in topological order, as the reference model runs them);
  ///  - a graph output that is not a graph input, a constant or an operator output.
  /// A graph input listed twice is accepted with a warning (the reference model and the
  /// interpreter bind the value given last); a graph output listed twice is returned twice.
  std::optional<error> check_dataflow(const fb11::TosaBasicBlock& block) {
    constexpr std::size_t none = SIZE_MAX;
    const std::size_t n = g_.tensors.size();
    std::vector<std::size_t> producer(n, none), input_pos(n, none);
    for (std::size_t k = 0; k < g_.inputs.size(); ++k) {
      auto& pos = input_pos[index_.at(g_.inputs[k])];
      if (pos != none)
        warnings_.push_back(diagnostic{errc::malformed, cur_, "graph input "}.line() + quote_name(g_.inputs[k]) + " is listed twice (positions " +
                            std::to_string(pos) + " and " + std::to_string(k) +
                            "); the value given last is used, as in the TOSA reference model");
      pos = k;
    }
    const auto* ops = block.operators();
    const flatbuffers::uoffset_t count = ops ? ops->size() : 0;
    auto name = [](const flatbuffers::String* s) { return s->string_view(); };
    for (flatbuffers::uoffset_t i = 0; i < count; ++i) {  // every resolve() passed: names exist
      const auto* o = ops->Get(i);
      if (o->outputs() == nullptr) continue;
      for (flatbuffers::uoffset_t k = 0; k < o->outputs()->size(); ++k) {
        const auto tn = name(o->outputs()->Get(k));
        const std::size_t t = index_.find(std::string(tn))->second;
        if (input_pos[t] != none || producer[t] != none) at_op(i, wire_op_name(*o));
        if (input_pos[t] != none)
          return fail(errc::invalid_graph,
                      "output " + std::to_string(k) + " is graph input " +
                          std::to_string(input_pos[t]) +
                          "; a graph input is never overwritten (each tensor is assigned once)",
                      std::string(tn));
        if (producer[t] != none)
          return fail(errc::invalid_graph,
                      "output " + std::to_string(k) + " is already produced by " +
                          where(producer[t],
                                wire_op_name(*ops->Get(static_cast<flatbuffers::uoffset_t>(producer[t])))) +
                          "; each tensor is assigned once",
                      std::string(tn));
        producer[t] = i;
        // A composite block-scaled output's scale tensor is produced with it.
        if (const auto c = composite_.find(std::string(tn)); c != composite_.end())
          producer[index_.at(c->second)] = i;
      }
    }
    for (flatbuffers::uoffset_t i = 0; i < count; ++i) {
      const auto* o = ops->Get(i);
      if (o->inputs() == nullptr) continue;
      for (flatbuffers::uoffset_t k = 0; k < o->inputs()->size(); ++k) {
        const auto tn = name(o->inputs()->Get(k));
        const std::size_t t = index_.find(std::string(tn))->second;
        const std::size_t p = producer[t];
        if (input_pos[t] != none || g_.tensors[t].is_constant || p < i) continue;
        at_op(i, wire_op_name(*o));
        const std::string w = "input " + std::to_string(k);
        if (p == none)
          return fail(errc::invalid_graph,
                      w + " is never produced (not a graph input, a constant or an operator output)", std::string(tn));
        if (p == i) return fail(errc::invalid_graph, w + " is its own output (a cycle)", std::string(tn));
        return fail(errc::invalid_graph,
                    w + " is produced only by the later " +
                        where(p, wire_op_name(*ops->Get(static_cast<flatbuffers::uoffset_t>(p)))) +
                        "; operators must be in topological order",
                    std::string(tn));
      }
    }
    for (std::size_t k = 0; k < g_.outputs.size(); ++k) {
      const std::size_t t = index_.at(g_.outputs[k]);
      if (input_pos[t] == none && !g_.tensors[t].is_constant && producer[t] == none)
        return fail(errc::invalid_graph,
                    "graph output " + std::to_string(k) + " " + quote_name(g_.outputs[k]) +
                        " is never produced (not a graph input, a constant or an operator output)");
    }
    return {};
  }

  std::optional<error> read_operators(const fb11::TosaBasicBlock& block) {
    const auto* ops = block.operators();
    if (ops == nullptr) return {};
    for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i) {
      const auto* o = ops->Get(i);
      const auto code = static_cast<std::uint32_t>(o->op());
      const auto attr_type = static_cast<std::uint32_t>(o->attribute_type());
      const std::string op_name = wire_op_name(*o);
      at_op(i, op_name);
      if (code > const_shape_op && f_ == format::tosa_1_0)
        return fail(errc::malformed, "op value " + std::to_string(code) + " does not exist in TOSA 1.0");
      if (attr_type != code && attr_type != 0)
        return fail(errc::malformed, "attribute type " + std::to_string(attr_type) + " does not match the op (" +
                    std::to_string(code) + ")");
      std::vector<std::string> inputs, outputs;
      if (auto e = resolve(o->inputs(), "input", inputs)) return e;
      if (auto e = resolve(o->outputs(), "output", outputs)) return e;

      if (code == tosa::serialized(tosa::op::const_) || code == const_shape_op) {
        if (!inputs.empty() || outputs.size() != 1)
          return fail(errc::malformed, "has " + std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) +
                      " outputs, expected 0 and 1");
        auto& t = g_.tensors[index_.at(outputs[0])];
        // A constant of zero bytes (the shape [] of a rank-0 RESHAPE) has an empty data vector.
        if (!t.is_constant && graph::payload_bytes(t.type, graph::element_count(t.shape)) == 0) t.is_constant = true;
        if (!t.is_constant) return fail(errc::malformed, "output " + quote_name(t.name) + " has no constant data");
        if ((code == const_shape_op) != (t.type == dtype::id::shape))
          return fail(errc::malformed, "output " + quote_name(t.name) + " has dtype " + std::string(dtype::name(t.type)) +
                      (code == const_shape_op ? " (CONST_SHAPE makes SHAPE tensors)" : " (SHAPE constants use CONST_SHAPE)"));
        continue;
      }
      if (touches_composite(inputs) || touches_composite(outputs)) {
        if (auto e = read_block_scaled_op(code, inputs, outputs)) return e;
        op_index_.resize(g_.operators.size(), i);  // every op the rewrite added comes from file op i
        continue;
      }
      const auto op = op_of_wire(code);
      if (!op) return fail(errc::unsupported, "armlower does not read this op");
      if (!has_op(*op, f_))
        return fail(errc::malformed, "op does not exist in " + std::string(serialize::name(f_)));
      const tosa::op_descriptor& wr = tosa::describe(*op);
      if (inputs.size() != wr.n_in || outputs.size() != wr.n_out)
        return fail(errc::malformed, "has " + std::to_string(inputs.size()) + " inputs and " +
                                         std::to_string(outputs.size()) + " outputs, expected " +
                                         std::to_string(wr.n_in) + " and " + std::to_string(wr.n_out));
      for (const auto& n : outputs)
        if (g_.tensors[index_.at(n)].is_constant)
          return fail(errc::malformed, "output " + quote_name(n) + " has constant data; only CONST may produce a constant");
      graph::operation out;
      out.code = *op;
      auto attr = read_attribute(*o, *op, inputs);
      if (!attr) return attr.error();
      out.attr = std::move(*attr);
      out.inputs = std::move(inputs);
      out.outputs = std::move(outputs);
      g_.operators.push_back(std::move(out));
      op_index_.push_back(i);
    }
    cur_ = at_graph();
    return {};
  }

  [[nodiscard]] bool touches_composite(const std::vector<std::string>& names) const {
    for (const auto& n : names)
      if (composite_.count(n) != 0) return true;
    return false;
  }

  /// An operator with a composite block-scaled operand or result (block_scaled_types.hpp):
  /// CAST and MATMUL_T are rewritten into the ops the reference model computes; anything else
  /// is refused naming the op, the tensor and its type.
  std::optional<error> read_block_scaled_op(std::uint32_t code, const std::vector<std::string>& in,
                                            const std::vector<std::string>& out) {
    auto comp = [&](const std::string& n) { return composite_.count(n) != 0; };
    auto type = [&](const std::string& n) { return g_.tensors[index_.at(n)].type; };
    auto type_name = [&](const std::string& n) {
      return comp(n) ? composite_name(type(n)) : std::string(dtype::name(type(n)));
    };
    const std::string rule =
        " (armlower runs a block-scaled tensor as the input or output of CAST to/from FP32, BF16 or FP16 "
        "(also to FP8E4M3/FP8E5M2), and as both operands of MATMUL_T with zero points 0.0 and an FP32 or BF16 output)";
    auto refuse = [&](const std::string& n, const std::string& why) {
      return fail(errc::unsupported, "tensor '" + n + "' has the block-scaled type " + type_name(n) + why + rule, n);
    };
    std::string first;
    for (const auto* v : {&in, &out})
      for (const auto& n : *v)
        if (first.empty() && comp(n)) first = n;
    for (const auto& n : out)
      if (g_.tensors[index_.at(n)].is_constant)
        return fail(errc::malformed, std::string("output ").append(quote_name(n)).append(" has constant data; only CONST may produce a constant"));
    const graph::attribute bs32{graph::block_scaled_attr{32}};
    using tosa::op;
    if (code == tosa::serialized(op::cast)) {
      if (in.size() != 1 || out.size() != 1)
        return fail(errc::malformed, "has " + std::to_string(in.size()) + " inputs and " + std::to_string(out.size()) +
                    " outputs, expected 1 and 1");
      const std::string &x = in[0], &y = out[0];
      if (comp(x) && comp(y))
        return refuse(x, " and its output '" + y + "' has " + type_name(y) +
                             ": a CAST between two block-scaled types is not allowed");
      if (comp(x)) {
        const auto t = type(y);
        if (t == dtype::id::fp32 || t == dtype::id::bf16) {
          add_op(op::cast_from_block_scaled, {x, composite_.at(x)}, {y}, bs32);
        } else if (t == dtype::id::fp16 || t == dtype::id::fp8e4m3 || t == dtype::id::fp8e5m2) {
          const auto tmp = add_temp(y, dtype::id::fp32);
          add_op(op::cast_from_block_scaled, {x, composite_.at(x)}, {tmp}, bs32);
          add_op(op::cast, {tmp}, {y}, {});
        } else {
          return refuse(x, ": CAST to " + type_name(y) + " is not supported");
        }
        return {};
      }
      const auto t = type(x);
      if (t == dtype::id::fp32 || t == dtype::id::bf16) {
        add_op(op::cast_to_block_scaled, {x}, {y, composite_.at(y)}, bs32);
      } else if (t == dtype::id::fp16) {
        const auto tmp = add_temp(x, dtype::id::fp32);
        add_op(op::cast, {x}, {tmp}, {});
        add_op(op::cast_to_block_scaled, {tmp}, {y, composite_.at(y)}, bs32);
      } else {
        return refuse(y, ": CAST from " + type_name(x) + " is not supported");
      }
      return {};
    }
    if (code == matmul_t_op) {
      if (in.size() != 4 || out.size() != 1)
        return fail(errc::malformed, "has " + std::to_string(in.size()) + " inputs and " + std::to_string(out.size()) +
                    " outputs, expected 4 and 1");
      if (!comp(in[0]) || !comp(in[1]) || type(in[0]) != type(in[1]))
        return refuse(first, ": MATMUL_T with A " + type_name(in[0]) + " and B " + type_name(in[1]) +
                                 " is not supported (A and B must have the same block-scaled type)");
      if (comp(out[0])) return refuse(out[0], ": a block-scaled MATMUL_T output is not supported");
      for (std::size_t k = 2; k < 4; ++k) {
        const auto& z = g_.tensors[index_.at(in[k])];
        bool zero = z.is_constant && z.type == dtype::id::fp32 && graph::element_count(z.shape) == 1 &&
                    z.data.size() == 4;
        if (zero) {
          float v = 1.0f;
          std::memcpy(&v, z.data.data(), 4);
          zero = v == 0.0f;
        }
        if (!zero)
          return refuse(first, ": its zero point '" + z.name + "' is not an FP32 constant 0.0");
      }
      const auto t = type(out[0]);
      const std::vector<std::string> ops{in[0], composite_.at(in[0]), in[1], composite_.at(in[1])};
      if (t == dtype::id::fp32) {
        add_op(op::matmul_t_block_scaled, ops, {out[0]}, bs32);
      } else if (t == dtype::id::bf16) {
        const auto tmp = add_temp(out[0], dtype::id::fp32);
        add_op(op::matmul_t_block_scaled, ops, {tmp}, bs32);
        add_op(op::cast, {tmp}, {out[0]}, {});
      } else {
        return refuse(first, ": a MATMUL_T output of " + type_name(out[0]) + " is not supported");
      }
      return {};
    }
    const std::string name = code <= static_cast<std::uint32_t>(fb11::Op::MAX)
                                 ? std::string(fb11::EnumNameOp(static_cast<fb11::Op>(code)))
                                 : "op " + std::to_string(code);
    return refuse(first, ": " + name + " on a block-scaled tensor is not supported");
  }

  void add_op(tosa::op code, std::vector<std::string> in, std::vector<std::string> out, graph::attribute attr) {
    graph::operation o;
    o.code = code;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.attr = std::move(attr);
    g_.operators.push_back(std::move(o));
  }

  /// Adds an intermediate tensor shaped like `like` with dtype `t`, named `<like>/<dtype>` (made
  /// unique), and returns its name.
  std::string add_temp(const std::string& like, dtype::id t) {
    graph::tensor n;
    n.type = t;
    n.shape = g_.tensors[index_.at(like)].shape;
    std::string base = like + "/" + std::string(dtype::traits(t).short_name);
    n.name = base;
    for (int k = 1; index_.count(n.name) != 0; ++k) n.name = base + "_" + std::to_string(k);
    index_.emplace(n.name, g_.tensors.size());
    g_.tensors.push_back(std::move(n));
    return g_.tensors.back().name;
  }

  /// One CLAMP bound (`min_val` or `max_val`) of input `t`: its first `clamp_width` bytes, read
  /// like a constant's data (`payload_of`: tosa-tools' test generator pads the bounds to 8
  /// bytes; the reference model reads the first value of any longer vector).
  result<double> clamp_bound(const flatbuffers::Vector<std::uint8_t>* v, std::string_view field,
                             const graph::tensor& t) {
    const std::string what = std::string(field) + " of input " + quote_name(t.name) + " " + describe(t);
    const std::size_t need = clamp_width(t.type);
    if (need == 0) return fail(errc::malformed, what + ": CLAMP bounds are INT8, INT16, INT32, FP16, BF16 or FP32 values");
    if (v == nullptr) return fail(errc::malformed, what + " is missing");
    auto b = payload_of(*v, need, what);
    if (!b) return b.error();
    return *clamp_value(t.type, *b);
  }

  /// The attribute table of `o` (op `op`), decoded by the decoder of the op's descriptor kind.
  result<graph::attribute> read_attribute(const fb11::TosaOperator& o, tosa::op op,
                                          const std::vector<std::string>& inputs) {
    return tosa::visit_op(op, [&](auto c) { return decode<tosa::describe(decltype(c)::value).attr>(o, inputs); });
  }

  /// Decoder of one attribute-table kind (not of one op: an op whose descriptor names an
  /// existing kind needs no reader code). The empty table is not read; the {block_size} table
  /// of the EXT-MXFP ops and the {nan_mode} table (MAXIMUM, MINIMUM) are read generically (field 0 at vtable offset 4, as the writer's
  /// `attr_encoder` writes it; the verifier checked the table for the union type = op).
  template <tosa::attr_kind K>
  result<graph::attribute> decode(const fb11::TosaOperator& o, const std::vector<std::string>& inputs) {
    using tosa::attr_kind;
    auto ints = [](const flatbuffers::Vector<std::int32_t>* v, auto& dst) {
      if (v == nullptr || v->size() != dst.size()) return false;
      for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = v->Get(static_cast<flatbuffers::uoffset_t>(k));
      return true;
    };
    if constexpr (K == attr_kind::none) {
      return graph::attribute{};
    } else if constexpr (K == attr_kind::conv2d) {
      const auto* a = o.attribute_as_Conv2dAttribute();
      if (a == nullptr) return fail(errc::malformed, "missing Conv2dAttribute");
      graph::conv2d_attr c;
      if (!ints(a->pad(), c.pad)) return fail(errc::malformed, "Conv2dAttribute.pad must have 4 values");
      if (!ints(a->stride(), c.stride)) return fail(errc::malformed, "Conv2dAttribute.stride must have 2 values");
      if (!ints(a->dilation(), c.dilation)) return fail(errc::malformed, "Conv2dAttribute.dilation must have 2 values");
      const auto acc = dtype_of_wire(static_cast<std::uint32_t>(a->acc_type()), f_);
      if (!acc)
        return fail(errc::malformed, "acc_type " + std::to_string(static_cast<std::uint32_t>(a->acc_type())) +
                                         " is not a DType of " + std::string(serialize::name(f_)));
      c.acc_type = *acc;
      c.local_bound = a->local_bound();
      return graph::attribute{c};
    } else if constexpr (K == attr_kind::rescale) {
      const auto* a = o.attribute_as_RescaleAttribute();
      if (a == nullptr) return fail(errc::malformed, "missing RescaleAttribute");
      const auto m = static_cast<std::uint32_t>(a->rounding_mode());
      if (m < 1 || m > 3) return fail(errc::malformed, "rounding_mode " + std::to_string(m) + " is not a RoundingMode");
      graph::rescale_attr r;
      r.scale32 = a->scale32();
      r.rounding = static_cast<tosa::rounding_mode>(m);
      r.per_channel = a->per_channel();
      r.input_unsigned = a->input_unsigned();
      r.output_unsigned = a->output_unsigned();
      return graph::attribute{r};
    } else if constexpr (K == attr_kind::transpose) {
      const auto* a = o.attribute_as_TransposeAttribute();
      if (a == nullptr) return fail(errc::malformed, "missing TransposeAttribute");
      graph::transpose_attr t;
      if (const auto* p = a->perms()) t.perms.assign(p->begin(), p->end());
      return graph::attribute{std::move(t)};
    } else if constexpr (K == attr_kind::clamp) {
      const auto* a = o.attribute_as_ClampAttribute();
      if (a == nullptr) return fail(errc::malformed, "missing ClampAttribute");
      const auto& t = g_.tensors[index_.at(inputs[0])];
      const auto lo = clamp_bound(a->min_val(), "min_val", t);
      if (!lo) return lo.error();
      const auto hi = clamp_bound(a->max_val(), "max_val", t);
      if (!hi) return hi.error();
      const auto nm = static_cast<std::uint32_t>(a->nan_mode());
      if (nm < 1 || nm > 2) return fail(errc::malformed, "nan_mode " + std::to_string(nm) + " is not a NanPropagationMode");
      return graph::attribute{graph::clamp_attr{*lo, *hi, static_cast<graph::nan_mode>(nm)}};
    } else if constexpr (K == attr_kind::nan_mode) {
      // {nan_mode} (MaximumAttribute, MinimumAttribute): field 0 at vtable offset 4, read
      // generically like the writer's `attr_encoder<attr_kind::nan_mode>` writes it.
      std::uint32_t nm = 0;  // NanPropagationMode::UNKNOWN
      if (o.attribute_type() != fb11::Attribute::NONE && o.attribute() != nullptr)
        nm = static_cast<const flatbuffers::Table*>(o.attribute())->GetField<std::uint32_t>(4, 0);
      if (nm < 1 || nm > 2) return fail(errc::malformed, "nan_mode " + std::to_string(nm) + " is not a NanPropagationMode");
      return graph::attribute{graph::nan_mode_attr{static_cast<graph::nan_mode>(nm)}};
    } else {
      static_assert(K == attr_kind::block_scaled, "decode: no decoder for this attribute kind");
      std::uint32_t bs = 0;  // BlockSize::UNKNOWN
      if (o.attribute_type() != fb11::Attribute::NONE && o.attribute() != nullptr)
        bs = static_cast<const flatbuffers::Table*>(o.attribute())->GetField<std::uint32_t>(4, 0);
      if (bs != static_cast<std::uint32_t>(fb11::BlockSize::BLOCK_SIZE_32))
        return fail(errc::unsupported, "block_size " + std::to_string(bs) + " is not supported (BLOCK_SIZE_32 only)");
      return graph::attribute{graph::block_scaled_attr{32}};
    }
  }
};

}  // namespace detail

/// Reads a `.tosa` flatbuffer from memory (untrusted input; see the file comment for every
/// check). `bytes` need not be aligned. Errors: not a flatbuffer / too short / wrong
/// identifier / verifier failure (truncated, corrupt), unsupported version, unknown op or
/// DType, missing tensor, payload or CLAMP bound shorter than needed, bad attribute,
/// unsupported features, a data flow that is not SSA or not in topological order. Accepted
/// oddities are listed in the result's `warnings`.
[[nodiscard]] inline result<tosa_file> read(std::span<const std::uint8_t> bytes) {
  return detail::graph_reader(bytes).run();
}

/// Reads a `.tosa` file; errors as `read`, plus "cannot open"/"cannot read" naming the path.
[[nodiscard]] inline result<tosa_file> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  location l;
  l.file = path.string();
  l.stage = "reader";
  if (!in) return error{errc::io, l, "cannot open '" + path.string() + "'"};
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return error{errc::io, l, "cannot read '" + path.string() + "'"};
  auto r = read(bytes);
  if (!r) return std::move(r).error().in_file(path.string());
  return r;
}

}  // namespace armlower::serialize
