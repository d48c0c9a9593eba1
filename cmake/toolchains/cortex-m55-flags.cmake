# Compiler and linker flags shared by every armlower Cortex-M55 build: the cross toolchain files
# (cortex-m55 preset) and armlower_add_firmware_test() (cmake/ArmlowerFirmware.cmake) both read
# these lists, so the two ways of building firmware cannot drift apart.
#
#   ARMLOWER_M55_CPU_mve / ARMLOWER_M55_CPU_nomve  -mcpu= value of each variant
#   ARMLOWER_M55_CXX_FLAGS                         C++ code generation flags (no -mcpu)
#   ARMLOWER_M55_LINK_LIBS                         newlib + semihosting (rdimon) link group

set(ARMLOWER_M55_CPU_mve "cortex-m55")          # Armv8.1-M + DSP + MVE (integer and float)
set(ARMLOWER_M55_CPU_nomve "cortex-m55+nomve")  # Armv8.1-M + DSP (SMLAD family), no Helium

set(ARMLOWER_M55_CXX_FLAGS
  -mthumb -mfloat-abi=hard
  -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit
  -ffunction-sections -fdata-sections)

# rdimon = newlib's semihosting back end (printf to the host console, exit code to QEMU). Its
# crt0 (--specs=rdimon.specs) is NOT used: firmware/startup.cpp is the reset handler.
set(ARMLOWER_M55_LINK_LIBS -Wl,--start-group -lc -lrdimon -lgcc -lstdc++ -Wl,--end-group)
