/// @file armlower/graph/graph.hpp
/// armlower's host graph IR: named tensors (dtype, shape, optional constant payload, optional
/// quantization parameters) and operators that reference tensors by name, in topological order.
///
/// One IR carries both stages of a lowering:
///  - a *framework* graph (what a quantized framework or a `.tflite` importer produces):
///    `framework_op::linear`, `quantize`, `dequantize`, `relu`, `relu6`, `reshape`;
///  - a *TOSA* graph (what the passes produce, the serializer writes, the reader returns and
///    the interpreter runs): only `tosa::op` operators, with TOSA operand order
///    (TOSA 1.0 `tosa.xml` argument order, as written by serialization_lib `tosa_serializer.py`) and attributes as in serialization_lib `schema/tosa.fbs`.
/// Hosted only (uses std::string / std::vector).
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/tosa/op.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace armlower::graph {

/// Quantization parameters of a tensor (real = scale · (q − zero_point)).
/// Per-tensor when `per_channel` is false (then `scale` and `zero_point` have one entry);
/// per-channel along `axis` otherwise (one entry per channel; `zero_point` may have 1 entry).
struct quant_params {
  std::vector<float> scale;
  std::vector<std::int32_t> zero_point;
  std::int32_t axis = 0;
  bool per_channel = false;
  std::int64_t qmin = 0;  ///< smallest quantized value allowed (e.g. −127 for symmetric int8 weights)
  std::int64_t qmax = 0;  ///< largest quantized value allowed
};

/// A tensor. Shapes are row-major, dims ≥ 1, rank 0..6 (TOSA `shape:[int32]`).
/// `data` holds a constant's payload in the TOSA wire encoding (serialization_lib `tosa_serialization_handler.cpp` `Convert*toU8`: little-endian;
/// INT4/FP4 two per byte, low nibble = even index; INT48 6 bytes; SHAPE 8 bytes; FP6 one code
/// per byte here, bit-packed by the serializer), *without* the 8-byte alignment padding. Use `armlower/graph/constant.hpp` to fill it.
struct tensor {
  std::string name;
  dtype::id type = dtype::id::fp32;
  std::vector<std::int32_t> shape;
  bool is_constant = false;
  std::vector<std::uint8_t> data;
  std::optional<quant_params> quant;
};

/// Framework-level operators (before lowering). Operands:
///  - linear:     [x [..., Cin], weight [Cout, Cin], bias [Cout] (optional)] → [y [..., Cout]];
///                quantized when its tensors carry `quant` (weights int8, bias int32), float
///                otherwise; attribute `linear_attr`.
///  - quantize:   [x fp32] → [q] (q's `quant` gives scale/zero point);
///  - dequantize: [q] → [x fp32];
///  - relu, relu6: [x] → [y]; reshape: [x] → [y] (y's shape is the new shape).
enum class framework_op : std::uint8_t { linear, quantize, dequantize, relu, relu6, reshape };

/// TOSA spelling-like name of a framework op ("linear").
[[nodiscard]] constexpr std::string_view name(framework_op o) noexcept {
  constexpr std::string_view names[] = {"linear", "quantize", "dequantize", "relu", "relu6", "reshape"};
  const auto i = static_cast<std::size_t>(o);
  return i < std::size(names) ? names[i] : std::string_view("unknown");
}

/// CONV2D attribute (Conv2dAttribute): pad [top, bottom, left, right], stride [y, x],
/// dilation [y, x], accumulator dtype (INT32, INT48, FP16 or FP32), local_bound.
struct conv2d_attr {
  std::array<std::int32_t, 4> pad{0, 0, 0, 0};
  std::array<std::int32_t, 2> stride{1, 1};
  std::array<std::int32_t, 2> dilation{1, 1};
  dtype::id acc_type = dtype::id::i32;
  bool local_bound = false;
};

/// RESCALE attribute (RescaleAttribute).
struct rescale_attr {
  bool scale32 = true;
  tosa::rounding_mode rounding = tosa::rounding_mode::single_round;
  bool per_channel = false;
  bool input_unsigned = false;
  bool output_unsigned = false;
};

/// TRANSPOSE attribute: output dim i is input dim perms[i].
struct transpose_attr {
  std::vector<std::int32_t> perms;
};

/// NaN propagation mode of CLAMP, MAXIMUM and the other ops with a `nan_mode` (NanPropagationMode).
enum class nan_mode : std::uint32_t { propagate = 1, ignore = 2 };

/// CLAMP attribute: bounds in the tensor's own domain (integers are exact in a double for the
/// i8/i16 rows; floats are stored as the value). Serialized as the bound's raw LE bytes.
struct clamp_attr {
  double min_val = 0.0;
  double max_val = 0.0;
  nan_mode nan = nan_mode::propagate;
};

/// Block size of the 1.1-draft block-scaled ops (BlockSize enum: BLOCK_SIZE_32 = 32).
struct block_scaled_attr {
  std::int32_t block_size = 32;
};

/// The {nan_mode} attribute table (MaximumAttribute; the same table as MinimumAttribute).
struct nan_mode_attr {
  nan_mode nan = nan_mode::propagate;
};

/// Fused activation of a framework `linear` (TFLite NONE / RELU / RELU6).
enum class activation : std::uint8_t { none, relu, relu6 };

/// Framework `linear` attribute.
struct linear_attr {
  activation fused = activation::none;
};

/// Operator attributes; `std::monostate` for ops whose attribute table is empty.
using attribute = std::variant<std::monostate, conv2d_attr, rescale_attr, transpose_attr,
                               clamp_attr, block_scaled_attr, nan_mode_attr, linear_attr>;

/// One operator: what it is, its operand and result tensor names (in TOSA order for TOSA ops),
/// and its attribute.
struct operation {
  std::variant<tosa::op, framework_op> code;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  attribute attr;
  /// Index of the operator in the source model this op was made from (the `.tflite` operator
  /// index for an imported graph; ops a pass emits for it inherit it), or −1 when unknown.
  /// Messages name this index, which the user can find in the model.
  std::int64_t source_index = -1;

  [[nodiscard]] bool is_tosa() const noexcept { return std::holds_alternative<tosa::op>(code); }
  /// The TOSA op; precondition: `is_tosa()`.
  [[nodiscard]] tosa::op tosa_op() const { return std::get<tosa::op>(code); }
  /// Printable op name ("CONV2D" or "linear").
  [[nodiscard]] std::string_view op_name() const {
    return is_tosa() ? tosa::name(std::get<tosa::op>(code)) : name(std::get<framework_op>(code));
  }
};

namespace detail {

/// Hash of std::string and std::string_view alike (heterogeneous lookup without a copy).
struct name_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// Name → position cache of `graph::tensors` (see `graph::find`). Copying a graph gives the
/// copy an empty cache (rebuilt on its first lookup); moving keeps it (the vector's storage moves
/// with it).
struct tensor_name_cache {
  std::unordered_map<std::string, std::size_t, name_hash, std::equal_to<>> pos;  ///< name → index (first of that name)
  std::unordered_map<std::string, std::int64_t> next_suffix;  ///< unique_name: base → first suffix not known taken
  std::size_t size = 0;          ///< tensors [0, size) are indexed
  std::string last_name;         ///< name of tensors[size − 1] when it was indexed

  tensor_name_cache() = default;
  tensor_name_cache(const tensor_name_cache&) {}
  tensor_name_cache& operator=(const tensor_name_cache&) {
    clear();
    return *this;
  }
  tensor_name_cache(tensor_name_cache&&) = default;
  tensor_name_cache& operator=(tensor_name_cache&&) = default;
  ~tensor_name_cache() = default;

  void clear() {
    pos.clear();
    next_suffix.clear();
    size = 0;
    last_name.clear();
  }
};

}  // namespace detail

/// A graph: tensors (each name once), operators in topological order, graph input and output
/// tensor names (the TOSA `main` block's inputs/outputs).
///
/// Name lookups (`find`, `unique_name`) use a hash index built on demand, so building and
/// lowering a graph is linear in its size. The index follows the public vectors by itself when
/// tensors are appended (push_back/add) or erased (std::erase_if, erase): every hit is verified
/// against the tensor's current name, and any sign of a stale index (fewer tensors, another
/// tensor at the last indexed slot) rebuilds it. What it cannot see is a tensor renamed in
/// place or the vector reordered or replaced wholesale: rename tensors with `rename_tensor`,
/// and call `reindex()` after other such edits.
/// `find` on a const graph updates the cache: do not look names up in one graph from several
/// threads at once.
struct graph {
  std::vector<tensor> tensors;
  std::vector<operation> operators;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;

  /// The tensor called `n`, or nullptr (the first one if a malformed graph has several).
  [[nodiscard]] tensor* find(std::string_view n) noexcept {
    const auto i = index_of(n);
    return i < tensors.size() ? &tensors[i] : nullptr;
  }
  [[nodiscard]] const tensor* find(std::string_view n) const noexcept {
    const auto i = index_of(n);
    return i < tensors.size() ? &tensors[i] : nullptr;
  }
  /// Position of the tensor called `n` in `tensors`, or `tensors.size()` when there is none.
  [[nodiscard]] std::size_t index_of(std::string_view n) const noexcept {
    try {
      sync();
      auto it = cache_.pos.find(n);
      if (it == cache_.pos.end()) return tensors.size();
      if (it->second < tensors.size() && tensors[it->second].name == n) return it->second;
      reindex();  // the tensor moved or was renamed in place: rebuild and look again
      sync();
      it = cache_.pos.find(n);
      return it == cache_.pos.end() ? tensors.size() : it->second;
    } catch (...) {  // out of memory for the index: fall back to a scan
      for (std::size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == n) return i;
      return tensors.size();
    }
  }
  /// Adds `t` and returns a reference to it (the caller keeps names unique; see `unique_name`).
  tensor& add(tensor t) {
    tensors.push_back(std::move(t));
    return tensors.back();
  }
  /// `base` if no tensor has that name, else `base_1`, `base_2`, ... (the first free one).
  [[nodiscard]] std::string unique_name(std::string_view base) const {
    if (find(base) == nullptr) return std::string(base);
    const std::string b(base);
    // Suffixes below the remembered one are taken (names only become free by erasure or
    // rename, which reset the counters). `find` may rebuild the cache: keep k local.
    const auto it = cache_.next_suffix.find(b);
    for (std::int64_t k = it == cache_.next_suffix.end() ? 1 : it->second;; ++k) {
      std::string n = b + "_" + std::to_string(k);
      if (find(n) == nullptr) {
        cache_.next_suffix[b] = k;
        return n;
      }
    }
  }
  /// Renames tensor `from` to `to` everywhere: the tensor, every operator operand and result,
  /// graph inputs and outputs. Throws std::invalid_argument when `from` does not exist or `to`
  /// is already taken by another tensor.
  void rename_tensor(const std::string& from, const std::string& to) {
    if (from == to) return;
    auto* t = find(from);
    if (t == nullptr) throw std::invalid_argument("rename_tensor: no tensor '" + from + "'");
    if (find(to) != nullptr) throw std::invalid_argument("rename_tensor: '" + to + "' is already a tensor");
    t->name = to;
    for (auto& o : operators) {
      for (auto& s : o.inputs)
        if (s == from) s = to;
      for (auto& s : o.outputs)
        if (s == from) s = to;
    }
    for (auto& s : inputs)
      if (s == from) s = to;
    for (auto& s : outputs)
      if (s == from) s = to;
    reindex();
  }
  /// Drops the name index (it is rebuilt on the next lookup); needed only after renaming a
  /// tensor in place without `rename_tensor`.
  void reindex() const noexcept { cache_.clear(); }
  /// True when every operator is a TOSA op.
  [[nodiscard]] bool is_tosa() const noexcept {
    for (const auto& o : operators)
      if (!o.is_tosa()) return false;
    return true;
  }

 private:
  mutable detail::tensor_name_cache cache_;

  /// Brings the index up to date with `tensors` (see the struct comment).
  void sync() const {
    auto& c = cache_;
    // An erasure leaves fewer tensors or another tensor in the last indexed slot; reallocation
    // keeps every position, so it needs nothing.
    if (tensors.size() < c.size || (c.size > 0 && tensors[c.size - 1].name != c.last_name))
      c.clear();  // names may have become free: forget the unique_name counters too
    if (c.size == tensors.size()) return;
    if (c.size == 0) c.pos.reserve(tensors.size());
    for (; c.size < tensors.size(); ++c.size) c.pos.emplace(tensors[c.size].name, c.size);
    c.last_name = tensors[c.size - 1].name;
  }
};

/// Number of elements of a shape (1 for rank 0).
[[nodiscard]] inline std::int64_t element_count(std::span<const std::int32_t> shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

}  // namespace armlower::graph
