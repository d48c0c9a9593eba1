// The lattice laws, proven exhaustively over all dtype pairs and triples at compile time.
// Building this file is the test (style.md §12 rule 5/8).
#include <armlower/dtype.hpp>

#include <utility>

namespace {
using namespace armlower::dtype;

constexpr id at(std::size_t i) { return static_cast<id>(i); }

constexpr bool partial_order(std::size_t a) {
  {
    if (!representable_in(at(a), at(a))) return false;  // reflexive
    for (std::size_t b = 0; b < count; ++b) {
      // antisymmetric
      if (a != b && representable_in(at(a), at(b)) && representable_in(at(b), at(a))) return false;
      for (std::size_t c = 0; c < count; ++c) {  // transitive
        if (representable_in(at(a), at(b)) && representable_in(at(b), at(c)) &&
            !representable_in(at(a), at(c)))
          return false;
      }
    }
  }
  return true;
}

constexpr bool join_laws(std::size_t a) {
  {
    if (join(at(a), at(a)) != at(a)) return false;  // idempotent
    for (std::size_t b = 0; b < count; ++b) {
      const auto j = join(at(a), at(b));
      if (j != join(at(b), at(a))) return false;  // commutative
      // a ⊑ b  ⇔  a ⊔ b == b
      if (representable_in(at(a), at(b)) != (j == at(b))) return false;
      if (!j) {
        continue;
      }
      if (!representable_in(at(a), *j) || !representable_in(at(b), *j)) return false;  // upper bound
      for (std::size_t c = 0; c < count; ++c) {  // least
        if (representable_in(at(a), at(c)) && representable_in(at(b), at(c)) &&
            !representable_in(*j, at(c)))
          return false;
      }
      for (std::size_t c = 0; c < count; ++c) {  // associative where both sides are defined
        const auto bc = join(at(b), at(c));
        const auto l = join(*j, at(c));
        if (bc && l && join(at(a), *bc) != l) return false;
      }
    }
  }
  return true;
}

// One static_assert per first operand keeps each evaluation within clang's step limit.
template <std::size_t A>
struct laws_for {
  static_assert(partial_order(A), "representable_in must be a partial order");
  static_assert(join_laws(A), "join must be commutative, idempotent and the least upper bound");
  static constexpr bool value = true;
};
template <std::size_t... A>
constexpr bool all_laws(std::index_sequence<A...>) {
  return (laws_for<A>::value && ...);
}
static_assert(all_laws(std::make_index_sequence<count>{}));

// The relations the issue names.
static_assert(representable_in(id::i8, id::i16) && representable_in(id::i16, id::i32) &&
              representable_in(id::i32, id::i48) && representable_in(id::i48, id::i64) &&
              representable_in(id::i4, id::i8));
static_assert(representable_in(id::fp4e2m1, id::fp6e2m3) && representable_in(id::fp6e2m3, id::fp8e4m3) &&
              representable_in(id::fp8e4m3, id::fp16) && representable_in(id::fp16, id::fp32));
static_assert(representable_in(id::fp6e3m2, id::fp8e5m2) && representable_in(id::fp8e5m2, id::fp16));
static_assert(representable_in(id::bf16, id::fp32) && representable_in(id::i8, id::fp16) &&
              representable_in(id::i16, id::fp32) && representable_in(id::mxint8, id::fp16));
static_assert(!representable_in(id::i16, id::fp16) && !representable_in(id::fp16, id::bf16));
}  // namespace
