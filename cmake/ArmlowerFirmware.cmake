# Cortex-M55 firmware tests from a host build.
#
#   include(ArmlowerFirmware)
#   armlower_add_firmware_test(<name> SOURCES <files...>
#                              [VARIANTS mve nomve [m4]]   # default: mve nomve
#                              [INCLUDES <dirs...>]        # extra -I directories
#                              [DEFINITIONS <defs...>]     # extra -D definitions (without -D)
#                              [OPTIONS <flags...>]        # extra compiler flags
#                              [OPTIMIZE <-O flag>]        # default -O2
#                              [TIMEOUT <seconds>]         # default 60
#                              [LABELS <labels...>]
#                              [NO_TEST])                  # build the ELFs only (benchmarks)
#
# For each variant it cross-compiles the sources plus firmware/startup.cpp with arm-none-eabi-g++
# (C++20, -mcpu=cortex-m55 for `mve`, -mcpu=cortex-m55+nomve for `nomve` — both hard-float, run on
# mps3-an547 —, and optionally -mcpu=cortex-m4 soft-float for `m4`, run on mps2-an386; flags from
# cmake/toolchains/cortex-m55-flags.cmake; -Wall -Wextra -Werror) into
# `${CMAKE_CURRENT_BINARY_DIR}/<name>.<variant>.elf` (target `<name>.<variant>`, built by `all`),
# linked with firmware/an547.ld, newlib and rdimon semihosting. It registers two ctest cases:
#   <name>.<variant>          runs the ELF under `qemu-system-arm -M mps3-an547` with semihosting;
#                             the test passes when main() returns 0.
#   <name>.<variant>.symbols  fails if the ELF contains operator new/delete, __cxa_throw,
#                             __cxa_allocate_exception or typeinfo symbols.
# Include path: armlower's include/, firmware/ (armlower_firmware.hpp), tests/ and a build-tree
# directory holding only a `boost` symlink (arm-none-eabi never sees the host's /usr/include).
# ARMLOWER_SHARED_DATA is defined as for host tests; ARMLOWER_SHARED_DATA_DIR is on the -I path.
#
# When ARMLOWER_FIRMWARE_TESTS is OFF, or arm-none-eabi-g++ / qemu-system-arm are missing, the
# function does nothing (one STATUS message at configure time says why).
#
# The file may be included from several directories: it sets its variables in the including scope
# each time (tool look-ups are cached) and prints its status message once per configure.
include(${CMAKE_CURRENT_LIST_DIR}/toolchains/cortex-m55-flags.cmake)

set(ARMLOWER_FIRMWARE_DIR ${CMAKE_CURRENT_LIST_DIR}/../firmware)
get_filename_component(ARMLOWER_FIRMWARE_DIR ${ARMLOWER_FIRMWARE_DIR} ABSOLUTE)
get_filename_component(ARMLOWER_SOURCE_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

get_property(armlower_firmware_reported GLOBAL PROPERTY ARMLOWER_FIRMWARE_REPORTED)
set_property(GLOBAL PROPERTY ARMLOWER_FIRMWARE_REPORTED TRUE)
macro(armlower_firmware_status text)
  if(NOT armlower_firmware_reported)
    message(STATUS "${text}")
  endif()
endmacro()

set(ARMLOWER_FIRMWARE_ENABLED OFF)
if(NOT ARMLOWER_FIRMWARE_TESTS)
  armlower_firmware_status("armlower: Cortex-M55 firmware tests skipped (ARMLOWER_FIRMWARE_TESTS is OFF)")
elseif(CMAKE_CROSSCOMPILING)
  armlower_firmware_status("armlower: Cortex-M55 firmware tests skipped (cross-compiling build)")
else()
  find_program(ARMLOWER_ARM_CXX arm-none-eabi-g++)
  find_program(ARMLOWER_ARM_NM arm-none-eabi-nm)
  find_program(ARMLOWER_ARM_SIZE arm-none-eabi-size)
  find_program(ARMLOWER_QEMU_ARM qemu-system-arm)
  # The C++ standard headers and libraries of arm-none-eabi are a separate Debian package: check
  # that <span> compiles and libstdc++.a exists (a success is cached).
  if(ARMLOWER_ARM_CXX AND NOT ARMLOWER_ARM_CXX_WORKS)
    file(WRITE ${CMAKE_BINARY_DIR}/armlower-cross-check.cpp "#include <span>\n#include <cstdint>\nint main() { return 0; }\n")
    execute_process(COMMAND ${ARMLOWER_ARM_CXX} -mcpu=cortex-m55 -mfloat-abi=hard -std=c++20 -fsyntax-only
                            ${CMAKE_BINARY_DIR}/armlower-cross-check.cpp
                    RESULT_VARIABLE armlower_rc OUTPUT_QUIET ERROR_QUIET)
    execute_process(COMMAND ${ARMLOWER_ARM_CXX} -mcpu=cortex-m55 -mfloat-abi=hard -print-file-name=libstdc++.a
                    OUTPUT_VARIABLE armlower_libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(armlower_rc EQUAL 0 AND IS_ABSOLUTE "${armlower_libstdcxx}")
      set(ARMLOWER_ARM_CXX_WORKS ON CACHE INTERNAL "arm-none-eabi-g++ has a C++ standard library")
    endif()
  endif()
  if(NOT ARMLOWER_ARM_CXX OR NOT ARMLOWER_ARM_NM)
    armlower_firmware_status("armlower: Cortex-M55 firmware tests skipped: arm-none-eabi-g++/nm not found \
(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib)")
  elseif(NOT ARMLOWER_ARM_CXX_WORKS)
    armlower_firmware_status("armlower: Cortex-M55 firmware tests skipped: arm-none-eabi-g++ has no C++ standard \
library (apt-get install libstdc++-arm-none-eabi-newlib)")
  elseif(NOT ARMLOWER_QEMU_ARM)
    armlower_firmware_status("armlower: Cortex-M55 firmware tests skipped: qemu-system-arm not found \
(apt-get install qemu-system-arm)")
  else()
    set(ARMLOWER_FIRMWARE_ENABLED ON)
    armlower_firmware_status("armlower: Cortex-M55 firmware tests enabled (${ARMLOWER_ARM_CXX}, ${ARMLOWER_QEMU_ARM})")
  endif()
endif()
if(NOT DEFINED ARMLOWER_SHARED_DATA_DIR)
  get_filename_component(ARMLOWER_SHARED_DATA_DIR ${ARMLOWER_SOURCE_ROOT}/../shared/data ABSOLUTE)
endif()

function(armlower_add_firmware_test name)
  cmake_parse_arguments(F "NO_TEST" "OPTIMIZE;TIMEOUT" "SOURCES;VARIANTS;INCLUDES;DEFINITIONS;OPTIONS;LABELS" ${ARGN})
  if(NOT ARMLOWER_FIRMWARE_ENABLED)
    return()
  endif()
  if(NOT F_SOURCES)
    message(FATAL_ERROR "armlower_add_firmware_test(${name}): SOURCES is required")
  endif()
  if(NOT F_VARIANTS)
    set(F_VARIANTS mve nomve)
  endif()
  if(NOT F_OPTIMIZE)
    set(F_OPTIMIZE -O2)
  endif()
  if(NOT F_TIMEOUT)
    set(F_TIMEOUT 60)
  endif()

  set(include_flags)
  foreach(dir IN LISTS F_INCLUDES)
    get_filename_component(dir ${dir} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND include_flags -I${dir})
  endforeach()
  list(APPEND include_flags -I${ARMLOWER_SOURCE_ROOT}/include -I${ARMLOWER_FIRMWARE_DIR}
       -I${ARMLOWER_SOURCE_ROOT}/tests -I${ARMLOWER_SHARED_DATA_DIR})
  set(define_flags "-DARMLOWER_SHARED_DATA=\"${ARMLOWER_SHARED_DATA_DIR}\"" -DARMLOWER_FIRMWARE=1)
  foreach(def IN LISTS F_DEFINITIONS)
    list(APPEND define_flags -D${def})
  endforeach()

  set(sources ${F_SOURCES} ${ARMLOWER_FIRMWARE_DIR}/startup.cpp)
  foreach(variant IN LISTS F_VARIANTS)
    set(cpu ${ARMLOWER_M55_CPU_${variant}})
    if(NOT cpu)
      message(FATAL_ERROR "armlower_add_firmware_test(${name}): unknown variant `${variant}` (mve, nomve, m4)")
    endif()
    set(float_abi -mfloat-abi=${ARMLOWER_FW_FLOAT_ABI_${variant}})
    set(machine ${ARMLOWER_FW_MACHINE_${variant}})
    set(target ${name}.${variant})
    set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${target}.obj)
    set(cxx_flags -mcpu=${cpu} ${float_abi} ${ARMLOWER_M55_CXX_FLAGS} -std=c++20 ${F_OPTIMIZE} -g
                  -Wall -Wextra -Werror ${F_OPTIONS} ${define_flags} ${include_flags})
    set(objects)
    foreach(src IN LISTS sources)
      get_filename_component(src ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
      get_filename_component(stem ${src} NAME)
      set(obj ${objdir}/${stem}.o)
      file(RELATIVE_PATH obj_rel ${CMAKE_BINARY_DIR} ${obj})
      # The object directory is created by the command itself: Ninja makes the directories of
      # a custom command's outputs, the Makefile generators do not, and arm-none-eabi-g++ opens
      # the -MF depfile before it writes the object.
      add_custom_command(
        OUTPUT ${obj}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${objdir}
        COMMAND ${ARMLOWER_ARM_CXX} ${cxx_flags} -MD -MF ${obj}.d -c ${src} -o ${obj}
        DEPENDS ${src}
        DEPFILE ${obj}.d
        COMMENT "Cross-compiling ${obj_rel} (${cpu})"
        COMMAND_EXPAND_LISTS VERBATIM)
      list(APPEND objects ${obj})
    endforeach()
    set(elf ${CMAKE_CURRENT_BINARY_DIR}/${target}.elf)
    add_custom_command(
      OUTPUT ${elf}
      COMMAND ${ARMLOWER_ARM_CXX} -mcpu=${cpu} ${float_abi} ${ARMLOWER_M55_CXX_FLAGS} -nostartfiles
              -T ${ARMLOWER_FIRMWARE_DIR}/an547.ld -Wl,--gc-sections -Wl,-Map=${target}.map
              ${objects} -o ${elf} ${ARMLOWER_M55_LINK_LIBS}
      DEPENDS ${objects} ${ARMLOWER_FIRMWARE_DIR}/an547.ld
      WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
      COMMENT "Linking Cortex-M55 firmware ${target}.elf"
      COMMAND_EXPAND_LISTS VERBATIM)
    add_custom_target(${target} ALL DEPENDS ${elf})
    if(F_NO_TEST)
      continue()
    endif()
    add_test(NAME ${target}
             COMMAND ${ARMLOWER_QEMU_ARM} -M ${machine} -nographic
                     -semihosting-config enable=on,target=native -kernel ${elf})
    add_test(NAME ${target}.symbols
             COMMAND ${CMAKE_COMMAND} -DNM=${ARMLOWER_ARM_NM} -DELF=${elf}
                     -P ${ARMLOWER_FIRMWARE_DIR}/check_symbols.cmake)
    set_tests_properties(${target} PROPERTIES TIMEOUT ${F_TIMEOUT} LABELS "firmware;${F_LABELS}")
    set_tests_properties(${target}.symbols PROPERTIES TIMEOUT 30 LABELS "firmware;${F_LABELS}")
  endforeach()
endfunction()
