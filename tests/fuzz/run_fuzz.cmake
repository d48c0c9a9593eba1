# ctest driver of the reader fuzzer: seeds a corpus with the sample .tosa files written by
# serialize_emit_samples, then runs the fuzzer for a bounded time.
# -D FUZZER=<exe> -D EMITTER=<exe> -D WORK=<dir> -D DICT=<file> -D SECONDS=<n> -D REGRESSIONS=<dir>
file(REMOVE_RECURSE ${WORK}/seeds)
file(MAKE_DIRECTORY ${WORK}/seeds ${WORK}/corpus)
execute_process(COMMAND ${EMITTER} ${WORK}/seeds RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "serialize_emit_samples failed (${rc})")
endif()
file(GLOB json ${WORK}/seeds/*.json)
if(json)
  file(REMOVE ${json})
endif()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=16384 -rss_limit_mb=2048 -timeout=10
                        -print_final_stats=1 -dict=${DICT} -artifact_prefix=${WORK}/ ${WORK}/corpus ${WORK}/seeds ${REGRESSIONS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_reader found a failure (exit ${rc}); the input is ${WORK}/crash-* (add it to tests/fuzz/regressions once fixed)")
endif()
