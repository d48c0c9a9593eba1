# CMake toolchain file: bare-metal Cortex-M55 (Armv8.1-M Mainline, DSP, MVE/Helium, FPv5 hard
# float) with Debian's gcc-arm-none-eabi 12.2 and newlib. Used by the `cortex-m55` preset.
#
# Set ARMLOWER_M55_VARIANT to `nomve` (or use arm-none-eabi-cortex-m55-nomve.cmake) for
# `-mcpu=cortex-m55+nomve`, which selects armlower's DSP (SMLAD) kernel paths.
#
# arm-none-eabi must never see the host's /usr/include. Boost.Mp11 (header-only, needed by
# armlower::kernels) is exposed through a build-tree directory that contains only a `boost`
# symlink, and find_package(Boost) is pointed at it.
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m55-flags.cmake)

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
if(NOT DEFINED ARMLOWER_M55_VARIANT)
  set(ARMLOWER_M55_VARIANT mve)
endif()
set(ARMLOWER_M55_CPU ${ARMLOWER_M55_CPU_${ARMLOWER_M55_VARIANT}})
if(NOT ARMLOWER_M55_CPU OR ARMLOWER_M55_VARIANT STREQUAL "m4")
  message(FATAL_ERROR "ARMLOWER_M55_VARIANT must be `mve` or `nomve`, not `${ARMLOWER_M55_VARIANT}`")
endif()
# try_compile() projects re-read this file; keep the variant.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ARMLOWER_M55_VARIANT)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)   # no startup code during compiler checks

list(JOIN ARMLOWER_M55_CXX_FLAGS " " _armlower_m55_flags)
set(CMAKE_C_FLAGS_INIT "-mcpu=${ARMLOWER_M55_CPU} -mthumb -mfloat-abi=hard -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "-mcpu=${ARMLOWER_M55_CPU} -mfloat-abi=hard ${_armlower_m55_flags}")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=${ARMLOWER_M55_CPU} -mthumb -mfloat-abi=hard")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles -Wl,--gc-sections")
unset(_armlower_m55_flags)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Boost.Mp11 without the rest of /usr/include.
if(CMAKE_BINARY_DIR AND NOT DEFINED ARMLOWER_M55_BOOST_ROOT)
  find_path(ARMLOWER_HOST_BOOST_DIR boost/mp11.hpp PATHS /usr/include /usr/local/include
            NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(ARMLOWER_HOST_BOOST_DIR)
    set(ARMLOWER_M55_BOOST_ROOT ${CMAKE_BINARY_DIR}/armlower-cross-include)
    file(MAKE_DIRECTORY ${ARMLOWER_M55_BOOST_ROOT})
    if(NOT EXISTS ${ARMLOWER_M55_BOOST_ROOT}/boost)
      file(CREATE_LINK ${ARMLOWER_HOST_BOOST_DIR}/boost ${ARMLOWER_M55_BOOST_ROOT}/boost SYMBOLIC)
    endif()
    set(Boost_NO_BOOST_CMAKE ON)          # use FindBoost (headers only), not the host's BoostConfig
    set(Boost_NO_SYSTEM_PATHS ON)
    set(Boost_INCLUDE_DIR ${ARMLOWER_M55_BOOST_ROOT} CACHE PATH "Boost headers for the cross build")
    list(APPEND CMAKE_FIND_ROOT_PATH ${ARMLOWER_M55_BOOST_ROOT})
  endif()
endif()
