// One out-of-line instance of each fused linear kernel path, compiled alone (run_icount.sh) so that
// arm-none-eabi-size reports the code size of that path (including the generic helpers it uses).
#include <armlower/kernels/arch/dsp/linear.hpp>
#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/mve/linear.hpp>

namespace k = armlower::kernels;

#if ARMLOWER_SIZE_PATH == 2
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_mve(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_mve(a); }
#elif ARMLOWER_SIZE_PATH == 1
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_dsp(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_dsp(a); }
#else
void size_linear_s8(const k::linear_s8_args& a) noexcept { k::detail::linear_s8_generic(a); }
void size_linear_s16(const k::linear_s16_args& a) noexcept { k::detail::linear_s16_generic(a); }
#endif
