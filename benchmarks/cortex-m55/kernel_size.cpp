// One out-of-line instance of each fused linear kernel path, compiled alone (run_icount.sh) so that
// arm-none-eabi-size reports the code size of that path (including the generic helpers it uses).
// ARMLOWER_SIZE_PATH: 0 generic, 1 DSP, 2 MVE (full generality, the run-time entry points' kernels);
// 3 "plan mve" and 4 "plan dsp": what a per-tensor Cortex-M plan instantiates
// (`linear_features` `per_tensor_features`: `run_plan<A, per_tensor_features, true>`, MVE s8 on
// weights packed by pack_weights_s8); 5 "plan mve row-major": `run_plan<A, per_tensor_features>`.
#include <armlower/kernels/arch/dsp/linear.hpp>
#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/mve/linear.hpp>

namespace k = armlower::kernels;

#if ARMLOWER_SIZE_PATH == 3
void size_linear_s8(const k::linear_s8_args& a, const std::int8_t* packed) noexcept {
  k::detail::linear_s8_packed_mve<k::per_tensor_features>(a, packed);
}
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_mve<k::per_tensor_features>(a); }
#elif ARMLOWER_SIZE_PATH == 5
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_mve<k::per_tensor_features>(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_mve<k::per_tensor_features>(a); }
#elif ARMLOWER_SIZE_PATH == 4
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_dsp<k::per_tensor_features>(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_dsp<k::per_tensor_features>(a); }
#elif ARMLOWER_SIZE_PATH == 2
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_mve(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_mve(a); }
#elif ARMLOWER_SIZE_PATH == 1
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_dsp(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_dsp(a); }
#else
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_generic(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_generic(a); }
#endif
