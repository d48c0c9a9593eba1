# ctest driver of one libFuzzer target:
#  1. replays every file in REGRESSIONS (not its subfolders; README*.md excluded), each once, as
#     given (no -max_len truncation): any failure fails the test;
#  2. builds the seed corpus WORK/seeds: the files EMITTER writes (`EMITTER [EMITTER_ARG] <dir>`,
#     *.json dropped), the files of SEED_DIR and the regression inputs;
#  3. fuzzes for SECONDS over WORK/corpus (kept between runs) and the seeds, with libFuzzer's
#     random seed SEED (default 1: a CI run on a fresh build is reproducible; pass
#     -D ARMLOWER_FUZZ_SEED=0 to CMake for a time-based seed, or run the fuzzer by hand).
# -D FUZZER=<exe> -D WORK=<dir> -D SECONDS=<n> -D MAX_LEN=<bytes> -D REGRESSIONS=<dir>
# [-D EMITTER=<exe> [-D EMITTER_ARG=<arg>]] [-D SEED_DIR=<dir>] [-D DICT=<file>]
# [-D REPLAY_ONLY=ON]  (step 1 only)
get_filename_component(name ${FUZZER} NAME)
if(REPLAY_ONLY)
  set(WORK ${WORK}/replay)  # (a ctest -j run of both cases must not share WORK/seeds)
endif()
file(REMOVE_RECURSE ${WORK}/seeds)
file(MAKE_DIRECTORY ${WORK}/seeds ${WORK}/corpus)

set(regressions)
if(IS_DIRECTORY ${REGRESSIONS})
  file(GLOB regressions LIST_DIRECTORIES false ${REGRESSIONS}/*)
  list(FILTER regressions EXCLUDE REGEX "/README[^/]*\\.md$")
endif()
list(LENGTH regressions n)
if(n GREATER 0)
  message(STATUS "${name}: replaying ${n} regression input(s) from ${REGRESSIONS}")
  execute_process(COMMAND ${FUZZER} -rss_limit_mb=2048 -timeout=10 -artifact_prefix=${WORK}/ ${regressions}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} fails on a regression input of ${REGRESSIONS} (exit ${rc})")
  endif()
  file(COPY ${regressions} DESTINATION ${WORK}/seeds)
endif()
if(REPLAY_ONLY)
  return()
endif()

if(EMITTER)
  execute_process(COMMAND ${EMITTER} ${EMITTER_ARG} ${WORK}/seeds RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EMITTER} failed (${rc})")
  endif()
  file(GLOB json ${WORK}/seeds/*.json)
  if(json)
    file(REMOVE ${json})
  endif()
endif()
if(SEED_DIR)
  file(GLOB seed_files LIST_DIRECTORIES false ${SEED_DIR}/*)
  if(seed_files)
    file(COPY ${seed_files} DESTINATION ${WORK}/seeds)
  endif()
endif()

set(dict_arg)
if(DICT)
  set(dict_arg -dict=${DICT})
endif()
if(NOT DEFINED SEED)
  set(SEED 1)
endif()
execute_process(COMMAND ${FUZZER} -seed=${SEED} -max_total_time=${SECONDS} -max_len=${MAX_LEN} -rss_limit_mb=2048 -timeout=10
                        -print_final_stats=1 ${dict_arg} -artifact_prefix=${WORK}/ ${WORK}/corpus ${WORK}/seeds
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${name} found a failure (exit ${rc}); the input is ${WORK}/crash-* (or leak-, timeout-, oom-); "
                      "minimise it (-minimize_crash=1) and keep it in tests/fuzz/regressions once fixed")
endif()
