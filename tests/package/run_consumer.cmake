# cmake -DMODE=<install|subdir> [-DEXPECT_SERIALIZE=ON] -DSOURCE_DIR=<armlower src> -DWORK_DIR=<scratch>
#       -DGENERATOR=<gen> -DCXX=<compiler> -P run_consumer.cmake
# install: configure a fresh armlower tree (tests/tools/examples off), build it, `cmake --install`
#          it into WORK_DIR/prefix, then configure+build+run the consumer with find_package.
# subdir:  configure+build+run the consumer with add_subdirectory(SOURCE_DIR).
foreach(v MODE SOURCE_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_consumer.cmake: ${v} not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(common -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}")
  endif()
endfunction()

if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/armlower ${common}
      -DARMLOWER_BUILD_TESTS=OFF -DARMLOWER_BUILD_EXAMPLES=OFF -DARMLOWER_BUILD_BENCHMARKS=OFF
      -DARMLOWER_BUILD_TOOLS=OFF -DARMLOWER_FIRMWARE_TESTS=OFF -DARMLOWER_INSTALL=ON)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/armlower)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/armlower --prefix ${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/consumer -B ${WORK_DIR}/consumer ${common}
      -DARMLOWER_CONSUME=find_package -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
      -DARMLOWER_EXPECT_SERIALIZE=${EXPECT_SERIALIZE})
elseif(MODE STREQUAL "subdir")
  run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/consumer -B ${WORK_DIR}/consumer ${common}
      -DARMLOWER_CONSUME=add_subdirectory -DARMLOWER_SOURCE_DIR=${SOURCE_DIR})
else()
  message(FATAL_ERROR "MODE must be install or subdir")
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer --target consumer)
run(${WORK_DIR}/consumer/consumer)
message(STATUS "armlower consumer (${MODE}): OK")
