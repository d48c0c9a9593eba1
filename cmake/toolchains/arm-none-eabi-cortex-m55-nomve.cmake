# CMake toolchain file: Cortex-M55 without Helium (`-mcpu=cortex-m55+nomve`), i.e. Armv8.1-M with
# the DSP extension only; armlower's kernels select their DSP (SMLAD family) paths.
set(ARMLOWER_M55_VARIANT nomve)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-cortex-m55.cmake)
