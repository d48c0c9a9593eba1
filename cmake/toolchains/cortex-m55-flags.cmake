# Compiler and linker flags shared by every armlower Cortex-M55 build: the cross toolchain files
# (cortex-m55 preset) and armlower_add_firmware_test() (cmake/ArmlowerFirmware.cmake) both read
# these lists, so the two ways of building firmware cannot drift apart.
#
#   ARMLOWER_M55_CPU_<variant>                     -mcpu= value of each variant (mve, nomve, m4)
#   ARMLOWER_FW_FLOAT_ABI_<variant>, ARMLOWER_FW_MACHINE_<variant>  float ABI and QEMU machine
#   ARMLOWER_M55_CXX_FLAGS                         C++ code generation flags (no -mcpu, no -mfloat-abi)
#   ARMLOWER_M55_LINK_LIBS                         newlib + semihosting (rdimon) link group

set(ARMLOWER_M55_CPU_mve "cortex-m55")          # Armv8.1-M + DSP + MVE (integer and float)
set(ARMLOWER_M55_CPU_nomve "cortex-m55+nomve")  # Armv8.1-M + DSP (SMLAD family), no Helium
# Extra firmware-test variant (armlower_add_firmware_test VARIANTS m4): Cortex-M4 (Armv7E-M + DSP),
# soft-float ABI, run on QEMU's mps2-an386 (same memory layout as an547.ld's ITCM/DTCM regions).
set(ARMLOWER_M55_CPU_m4 "cortex-m4")
set(ARMLOWER_FW_FLOAT_ABI_mve hard)
set(ARMLOWER_FW_FLOAT_ABI_nomve hard)
set(ARMLOWER_FW_FLOAT_ABI_m4 soft)
set(ARMLOWER_FW_MACHINE_mve mps3-an547)
set(ARMLOWER_FW_MACHINE_nomve mps3-an547)
set(ARMLOWER_FW_MACHINE_m4 mps2-an386)

# Code generation flags without -mcpu and -mfloat-abi (the toolchain files use -mfloat-abi=hard).
set(ARMLOWER_M55_CXX_FLAGS
  -mthumb
  -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit
  -ffunction-sections -fdata-sections)

# rdimon = newlib's semihosting back end (printf to the host console, exit code to QEMU). Its
# crt0 (--specs=rdimon.specs) is NOT used: firmware/startup.cpp is the reset handler.
set(ARMLOWER_M55_LINK_LIBS -Wl,--start-group -lc -lrdimon -lgcc -lstdc++ -Wl,--end-group)
