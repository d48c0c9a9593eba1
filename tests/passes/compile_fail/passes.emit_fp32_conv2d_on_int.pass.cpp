// Positive twin: the same emission into a context whose target has PRO-FP compiles.
#include <armlower/passes/emit.hpp>
using namespace armlower;
using passes::value;
constexpr auto F = dtype::id::fp32;
void test_pass(std::vector<graph::operation>& out) {
  passes::lowering_context<tosa::spec<"TOSA-1.0+FP">> ctx;
  ctx.at(out, "TestPass", 0, 0);
  passes::emit<tosa::op::conv2d>(ctx, value<F>{"x"}, value<F>{"w"}, value<F>{"b"}, value<F>{"izp"}, value<F>{"wzp"},
                                 value<F>{"y"}, graph::conv2d_attr{});
}
