# armlower_compile_fail_suite(<dir> [LIBS <targets...>] [EXPECTED_TO_PASS <case>...])
#
# For every <dir>/<case>.fail.cpp whose first line is "// expect: <text>":
#  - an EXCLUDE_FROM_ALL object library cf_<case> compiling that file;
#  - a ctest case cf.<case> that builds it and passes only when the build output contains
#    <text> (PASS_REGULAR_EXPRESSION = the escaped text, so a typo cannot pass);
#  - its positive twin <dir>/<case>.pass.cpp as target cft_<case> and ctest case
#    cf.<case>.twin, which must build successfully.
# Cases listed in EXPECTED_TO_PASS (the harness sanity case) compile, so their regex cannot
# match: they are marked WILL_FAIL, proving the harness fails when the diagnostic is missing.
# All cases share RESOURCE_LOCK armlower_build_tree (they drive the same build tree).
function(armlower_compile_fail_suite dir)
  cmake_parse_arguments(CF "" "" "LIBS;EXPECTED_TO_PASS" ${ARGN})
  file(GLOB cases RELATIVE ${dir} ${dir}/*.fail.cpp)
  list(SORT cases)
  foreach(file IN LISTS cases)
    string(REGEX REPLACE "\\.fail\\.cpp$" "" case "${file}")
    string(REPLACE "." "_" target "${case}")
    file(STRINGS ${dir}/${file} first LIMIT_COUNT 1)
    if(NOT first MATCHES "^// expect: (.+)$")
      message(FATAL_ERROR "${dir}/${file}: first line must be '// expect: <text>'")
    endif()
    set(expect "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "([][+.*()^$?|\\\\{}])" "\\\\\\1" regex "${expect}")
    if(NOT EXISTS ${dir}/${case}.pass.cpp)
      message(FATAL_ERROR "${dir}/${file}: missing positive twin ${case}.pass.cpp")
    endif()
    foreach(kind fail pass)
      if(kind STREQUAL "fail")
        set(tgt cf_${target})
        set(test cf.${case})
      else()
        set(tgt cft_${target})
        set(test cf.${case}.twin)
      endif()
      add_library(${tgt} OBJECT EXCLUDE_FROM_ALL ${dir}/${case}.${kind}.cpp)
      target_link_libraries(${tgt} PRIVATE ${CF_LIBS})
      add_test(NAME ${test}
               COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${tgt})
      set_tests_properties(${test} PROPERTIES LABELS compile_fail RESOURCE_LOCK armlower_build_tree)
    endforeach()
    set_tests_properties(cf.${case} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}")
    if(case IN_LIST CF_EXPECTED_TO_PASS)
      set_tests_properties(cf.${case} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()
