// expect: CONV2D fp32xfp32->fp32 requires PRO-FP; TOSA-1.0+INT does not enable it
// A pass that emits a row the compile-time target forbids does not compile: emit<> checks the
// CONV2D fp32 row with tosa::require and the diagnostic carries the op table's reason.
#include <armlower/passes/emit.hpp>
using namespace armlower;
using passes::value;
constexpr auto F = dtype::id::fp32;
void test_pass(std::vector<graph::operation>& out) {
  passes::lowering_context<tosa::spec<"TOSA-1.0+INT">> ctx;
  ctx.at(out, "TestPass", 0, 0);
  passes::emit<tosa::op::conv2d>(ctx, value<F>{"x"}, value<F>{"w"}, value<F>{"b"}, value<F>{"izp"}, value<F>{"wzp"},
                                 value<F>{"y"}, graph::conv2d_attr{});
}
