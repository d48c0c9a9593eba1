# armlower::onnx — the optional ONNX importer (armlower/import/onnx.hpp): a small compiled library
# holding the C++ protobuf code generated from armlower's own schema subset
# (include/armlower/import/onnx_subset.proto) and the importer (src/import/onnx_model.cpp: parsing
# and initializers; src/import/onnx.cpp: the graph). Everything
# else in armlower stays header-only. Needs Debian libprotobuf-dev + protobuf-compiler (protoc must
# match the runtime library; Debian 12: 3.21.12). Option ARMLOWER_ONNX (default ON when Protobuf
# is found); without Protobuf the target is simply not defined.
find_package(Protobuf QUIET)
if(NOT Protobuf_FOUND OR NOT TARGET protobuf::libprotobuf OR NOT Protobuf_PROTOC_EXECUTABLE)
  message(STATUS "armlower: Protobuf (libprotobuf-dev + protobuf-compiler) not found; armlower::onnx is not available")
  return()
endif()
option(ARMLOWER_ONNX "Build the ONNX importer component armlower::onnx (needs Protobuf)" ON)
if(NOT ARMLOWER_ONNX)
  return()
endif()

set(armlower_onnx_gen_dir ${PROJECT_BINARY_DIR}/armlower_generated/onnx)
set(armlower_onnx_proto ${PROJECT_SOURCE_DIR}/include/armlower/import/onnx_subset.proto)
add_custom_command(
  OUTPUT ${armlower_onnx_gen_dir}/onnx_subset.pb.cc ${armlower_onnx_gen_dir}/onnx_subset.pb.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${armlower_onnx_gen_dir}
  COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=${armlower_onnx_gen_dir}
          -I${PROJECT_SOURCE_DIR}/include/armlower/import ${armlower_onnx_proto}
  DEPENDS ${armlower_onnx_proto}
  COMMENT "protoc: generating onnx_subset.pb.{h,cc}"
  VERBATIM)

add_library(armlower_onnx STATIC
  ${PROJECT_SOURCE_DIR}/src/import/onnx.cpp
  ${PROJECT_SOURCE_DIR}/src/import/onnx_model.cpp
  ${armlower_onnx_gen_dir}/onnx_subset.pb.cc)
add_library(armlower::onnx ALIAS armlower_onnx)
target_compile_features(armlower_onnx PUBLIC cxx_std_20)
set_target_properties(armlower_onnx PROPERTIES EXPORT_NAME onnx POSITION_INDEPENDENT_CODE ON)
# The generated code is a system include: protoc's output is not held to -Werror.
target_include_directories(armlower_onnx SYSTEM PRIVATE ${armlower_onnx_gen_dir})
target_link_libraries(armlower_onnx PUBLIC armlower::armlower PRIVATE protobuf::libprotobuf)
# protoc's .pb.cc is not written for -Wextra -Werror (unused parameters etc.)
set_source_files_properties(${armlower_onnx_gen_dir}/onnx_subset.pb.cc PROPERTIES COMPILE_OPTIONS "-w")

if(ARMLOWER_INSTALL)
  install(TARGETS armlower_onnx EXPORT armlowerOnnxTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT armlowerOnnxTargets NAMESPACE armlower:: DESTINATION ${CMAKE_INSTALL_DATADIR}/armlower/cmake)
endif()
