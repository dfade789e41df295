# Run after mpi_pool_test is built: lists its tests (--gtest_list_tests,
# which needs no MPI job) and writes OUTPUT, which CTest includes, with one
# test per GoogleTest test and start method, each its own MPI job through
# run_job.sh. How a job is launched follows the test suite's name:
#   MpiPool.X               mpi.<method>.MpiPool.X, under -n 3: rank 0 runs
#                           the test, rank 1 is the agent, rank 2 waits
#   MpiPoolBoundToCores.X   the same with every rank bound to one core
#   MpiPoolOneRank.X        under -n 1
#   cmake -DPROGRAM=... -DOUTPUT=... -DLAUNCH=<run_job.sh and mpirun args; list> -P discover_tests.cmake
execute_process(COMMAND ${PROGRAM} --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc
                TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${rc}): ${listing}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(out "# Written by tests/mpi/discover_tests.cmake from ${PROGRAM}\n")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_]+)\\.$")
    set(suite ${CMAKE_MATCH_1})
  elseif(line MATCHES "^  ([A-Za-z0-9_]+)")
    set(test ${suite}.${CMAKE_MATCH_1})
    if(suite STREQUAL "MpiPoolOneRank")
      set(ranks -n 1)
    elseif(suite STREQUAL "MpiPoolBoundToCores")
      set(ranks -n 3 --bind-to core:overload-allowed)
    else()
      set(ranks -n 3)
    endif()
    foreach(method spawn plugin)
      set(command ${LAUNCH} ${ranks} -x FERRY_TEST_START=${method} ${PROGRAM} --gtest_filter=${test})
      list(JOIN command "]=] [=[" quoted)
      string(APPEND out "add_test([=[mpi.${method}.${test}]=] [=[${quoted}]=])\n")
      string(APPEND out "set_tests_properties([=[mpi.${method}.${test}]=] PROPERTIES TIMEOUT 120)\n")
    endforeach()
  endif()
endforeach()
file(WRITE ${OUTPUT} "${out}")
