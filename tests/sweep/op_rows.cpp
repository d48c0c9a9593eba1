// Prints armlower's TOSA op table (armlower/tosa/op_table.hpp) as JSON for sweep.py: one object
// per type-support row, so the conformance sweep enumerates exactly the rows the library
// declares and never a hand-copied list. Output (stdout, one JSON document):
//   {"rows":[{"op":"CONV2D","slots":["input","weight","output"],"types":["INT8","INT8","INT32"],
//             "acc":"INT32","since":"1.0","profiles":["PRO-INT"],"extensions":[],
//             "condition":"any_of"}, ...]}
// Names are the TOSA spellings of tosa::name / dtype::name (the same as tosa_serializer's DType
// and Op member names).
#include <armlower/tosa/op_table.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

namespace tosa = armlower::tosa;
namespace dtype = armlower::dtype;

// Only TOSA identifiers are printed (A-Z, 0-9, '-', '_', '.'), none of which need escaping.
std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string row_json(const tosa::type_support_row& r) {
  const tosa::op_slots sl = tosa::slots(r.o);
  std::string s = "{\"op\":" + quoted(tosa::name(r.o)) + ",\"slots\":[";
  for (std::size_t i = 0; i < sl.arity; ++i) s += (i ? "," : "") + quoted(sl.names[i]);
  s += "],\"types\":[";
  const auto ops = r.operands();
  for (std::size_t i = 0; i < ops.size(); ++i) s += (i ? "," : "") + quoted(dtype::name(ops[i]));
  s += "],\"acc\":" + quoted(dtype::name(r.acc)) + ",\"since\":" + quoted(tosa::name(r.added)) + ",\"profiles\":[";
  bool first = true;
  for (tosa::profile p : {tosa::profile::pro_int, tosa::profile::pro_fp}) {
    if (!r.req.profiles.contains(p)) continue;
    s += (first ? "" : ",") + quoted(tosa::name(p));
    first = false;
  }
  s += "],\"extensions\":[";
  first = true;
  for (std::size_t i = 0; i < tosa::ext_count; ++i) {
    const auto e = static_cast<tosa::ext>(i);
    if (!r.req.extensions.contains(e)) continue;
    s += (first ? "" : ",") + quoted(tosa::name(e));
    first = false;
  }
  s += "],\"condition\":";
  s += r.req.cond == tosa::condition::all_of ? "\"all_of\"" : "\"any_of\"";
  return s + "}";
}

}  // namespace

int main() {
  std::string out = "{\"rows\":[\n";
  for (std::size_t i = 0; i < tosa::op_table.size(); ++i) out += (i ? ",\n" : "") + row_json(tosa::op_table[i]);
  out += "\n]}\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}
