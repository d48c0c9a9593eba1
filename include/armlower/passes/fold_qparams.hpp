/// @file armlower/passes/fold_qparams.hpp
/// FoldAndAnnotateQParams and FuseQuantizedActivation — the first passes of every quantized
/// lowering (ExecuTorch `FoldAndAnnotateQParamsPass`, `backends/arm/_passes/fold_qdq_with_annotated_qparams_pass.py`).
///
/// FoldAndAnnotateQParams: for every framework operator that is not itself a QUANTIZE or
/// DEQUANTIZE, each input produced by a DEQUANTIZE is rewired to the DEQUANTIZE's (quantized)
/// source, and an output consumed by QUANTIZE operators is replaced by the QUANTIZE's output. The
/// qparams are thus *annotated on the tensors* the operator now reads and writes (armlower keeps
/// them in `tensor::quant`). DEQUANTIZE/QUANTIZE operators left without users are erased.
/// Errors: an output read both by QUANTIZE and by a float consumer, or by QUANTIZEs with different
/// qparams ("Input qparams do not match" in ExecuTorch).
///
/// FuseQuantizedActivation: a quantized `linear` whose float output feeds only a ReLU/ReLU6 whose
/// output is quantized (ExecuTorch's `[linear, relu]` annotation pattern) becomes one `linear`
/// with `linear_attr::fused` set, writing the ReLU's quantized output.
/// Hosted only.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace armlower::passes {

namespace detail {
[[nodiscard]] inline bool is_fw(const graph::operation& o, graph::framework_op k) {
  return !o.is_tosa() && std::get<graph::framework_op>(o.code) == k;
}
[[nodiscard]] inline bool same_qparams(const graph::tensor& a, const graph::tensor& b) {
  if (a.type != b.type || a.quant.has_value() != b.quant.has_value()) return false;
  if (!a.quant) return true;
  return a.quant->scale == b.quant->scale && a.quant->zero_point == b.quant->zero_point &&
         a.quant->per_channel == b.quant->per_channel;
}
}  // namespace detail

/// FoldAndAnnotateQParams (see file comment). Appends a record to `rep`.
[[nodiscard]] inline pass_status fold_and_annotate_qparams(graph::graph& g, report& rep) {
  const detail::stopwatch sw;
  constexpr const char* pass = "FoldAndAnnotateQParams";
  using graph::framework_op;
  std::int64_t folded_in = 0, folded_out = 0;
  // Producers and readers of every tensor name, computed once (the pass is linear in the graph).
  // Only names that no edit below changes are looked up: the inputs of an op are rewired before
  // its own outputs are, and an op's outputs are read only by later ops.
  const auto prod = detail::producers(g);
  const auto readers = detail::readers(g);
  auto producer_of = [&](const std::string& n) {
    const auto it = prod.find(n);
    return it == prod.end() ? detail::npos : it->second;
  };
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    auto& o = g.operators[i];
    if (o.is_tosa() || detail::is_fw(o, framework_op::quantize) || detail::is_fw(o, framework_op::dequantize))
      continue;
    // Inputs produced by DEQUANTIZE -> the quantized source.
    for (auto& in : o.inputs) {
      const auto p = producer_of(in);
      if (p != detail::npos && detail::is_fw(g.operators[p], framework_op::dequantize)) {
        in = g.operators[p].inputs.at(0);
        ++folded_in;
      }
    }
    // Outputs consumed by QUANTIZE -> the QUANTIZE's output.
    for (auto& out : o.outputs) {
      const auto rit = readers.find(out);
      if (rit == readers.end()) continue;
      const auto& us = rit->second;
      std::vector<std::size_t> qs;
      for (auto u : us)
        if (detail::is_fw(g.operators[u], framework_op::quantize)) qs.push_back(u);
      if (qs.empty()) continue;
      if (qs.size() != us.size() || detail::is_graph_output(g, out))
        return lowering_error{pass, detail::op_label(g, i), out,
                              "output is read both by QUANTIZE and by a float consumer; a quantized graph must "
                              "quantize every use of it", errc::unsupported};
      const auto target = g.operators[qs[0]].outputs.at(0);
      const auto* tq = g.find(target);
      for (std::size_t k = 1; k < qs.size(); ++k) {
        const auto other = g.operators[qs[k]].outputs.at(0);
        const auto* to = g.find(other);
        if (tq == nullptr || to == nullptr || !detail::same_qparams(*tq, *to))
          return lowering_error{pass, detail::op_label(g, i), out, "output qparams do not match between its QUANTIZE users", errc::unsupported};
        if (const auto r2 = readers.find(other); r2 != readers.end())
          for (auto u2 : r2->second)
            for (auto& n : g.operators[u2].inputs)
              if (n == other) n = target;
        for (auto& n : g.outputs)
          if (n == other) n = target;
      }
      // Neutralise the QUANTIZEs (removed below).
      for (auto q : qs) g.operators[q].outputs.clear();
      out = target;
      ++folded_out;
    }
  }
  // Erase QUANTIZE ops made dead and DEQUANTIZE ops without users (and, in turn, DEQUANTIZEs
  // that only those fed), in one sweep over use counts.
  {
    std::unordered_map<std::string, std::size_t> uses;
    for (const auto& o : g.operators) {
      std::unordered_set<std::string_view> seen;
      for (const auto& in : o.inputs)
        if (seen.insert(in).second) ++uses[in];
    }
    const std::unordered_set<std::string> outs(g.outputs.begin(), g.outputs.end());
    const auto cur_prod = detail::producers(g);
    std::vector<bool> dead(g.operators.size(), false);
    std::vector<std::size_t> work;
    auto dq_dead = [&](std::size_t i) {
      const auto& o = g.operators[i];
      return detail::is_fw(o, framework_op::dequantize) && !o.outputs.empty() && uses[o.outputs[0]] == 0 &&
             !outs.contains(o.outputs[0]);
    };
    for (std::size_t i = 0; i < g.operators.size(); ++i) {
      const auto& o = g.operators[i];
      if ((detail::is_fw(o, framework_op::quantize) && o.outputs.empty()) || dq_dead(i)) work.push_back(i);
    }
    while (!work.empty()) {
      const auto i = work.back();
      work.pop_back();
      if (dead[i]) continue;
      dead[i] = true;
      std::unordered_set<std::string_view> seen;
      for (const auto& in : g.operators[i].inputs) {
        if (!seen.insert(in).second || --uses[in] != 0) continue;
        if (const auto p = cur_prod.find(in); p != cur_prod.end() && !dead[p->second] && dq_dead(p->second))
          work.push_back(p->second);
      }
    }
    std::size_t k = 0;
    std::erase_if(g.operators, [&](const graph::operation&) { return dead[k++]; });
  }
  detail::remove_unused_tensors(g);
  rep.passes.push_back({pass,
                        std::to_string(folded_in) + " DEQUANTIZE inputs and " + std::to_string(folded_out) +
                            " QUANTIZE outputs folded into qparams",
                        folded_in + folded_out, sw.ms()});
  return done{};
}

/// FuseQuantizedActivation (see file comment). Appends a record to `rep`.
[[nodiscard]] inline pass_status fuse_quantized_activation(graph::graph& g, report& rep) {
  const detail::stopwatch sw;
  using graph::framework_op;
  std::int64_t fused = 0;
  const auto readers = detail::readers(g);  // a linear's output is read only by later ops
  std::vector<bool> dead(g.operators.size(), false);
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    auto& o = g.operators[i];
    if (dead[i] || !detail::is_fw(o, framework_op::linear) || o.outputs.size() != 1) continue;
    const auto* y = g.find(o.outputs[0]);
    if (y == nullptr || y->quant || detail::is_graph_output(g, y->name)) continue;
    const auto rit = readers.find(y->name);
    if (rit == readers.end() || rit->second.size() != 1) continue;
    const auto& us = rit->second;
    const auto& a = g.operators[us[0]];
    const bool relu = detail::is_fw(a, framework_op::relu), relu6 = detail::is_fw(a, framework_op::relu6);
    if (!relu && !relu6) continue;
    const auto* z = g.find(a.outputs.at(0));
    if (z == nullptr || !z->quant) continue;
    auto attr = std::holds_alternative<graph::linear_attr>(o.attr) ? std::get<graph::linear_attr>(o.attr)
                                                                    : graph::linear_attr{};
    if (attr.fused != graph::activation::none) continue;
    attr.fused = relu ? graph::activation::relu : graph::activation::relu6;
    o.attr = attr;
    o.outputs[0] = z->name;
    dead[us[0]] = true;
    ++fused;
  }
  std::size_t k = 0;
  std::erase_if(g.operators, [&](const graph::operation&) { return dead[k++]; });
  detail::remove_unused_tensors(g);
  rep.passes.push_back({"FuseQuantizedActivation", std::to_string(fused) + " ReLU/ReLU6 fused into their linear",
                        fused, sw.ms()});
  return done{};
}

}  // namespace armlower::passes
