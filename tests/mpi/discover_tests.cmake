# Run after mpi_pool_test is built: lists its tests (--gtest_list_tests,
# which needs no MPI job) and writes OUTPUT, which CTest includes. A job
# runs its pools one after another, so one MPI job serves a whole suite:
# one CTest test per suite and start method, run through run_job.sh. How a
# job is launched follows the suite's name:
#   MpiPool, MpiCore, Agent mpi.<method>.<Suite>, under -n 3: rank 0 runs
#                           the suite's tests, rank 1 is the agent, rank 2
#                           waits
#   MpiPoolBoundToCores     the same with every rank bound to one core
#   MpiPoolOneRank.X        mpi.<method>.MpiPoolOneRank.X, one job per test
#                           under -n 1: whether a job of one rank has agents
#                           depends on what its earlier pools spawned
#   MpiPoolOutput           none here: tests/mpi/CMakeLists.txt runs it with
#                           its output files
# One test of a suite alone: run_job.sh with the suite's command and
# --gtest_filter=Suite.Test (ctest -R <suite> -V prints the command).
#   cmake -DPROGRAM=... -DOUTPUT=... -DLAUNCH=<run_job.sh and mpirun args; list> -P discover_tests.cmake
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST), in a script run with -P
execute_process(COMMAND ${PROGRAM} --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc
                TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${rc}): ${listing}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(out "# Written by tests/mpi/discover_tests.cmake from ${PROGRAM}\n")

# Adds mpi.<method>.<name> for each start method: `ranks` the mpirun
# arguments, `filter` the tests its job runs, `count` how many (its bound).
function(add_mpi_test name ranks filter count)
  math(EXPR timeout "60 + 15 * ${count}")
  foreach(method spawn plugin)
    set(command ${LAUNCH} ${ranks} -x FERRY_TEST_START=${method} ${PROGRAM} --gtest_filter=${filter})
    list(JOIN command "]=] [=[" quoted)
    string(APPEND out "add_test([=[mpi.${method}.${name}]=] [=[${quoted}]=])\n")
    string(APPEND out "set_tests_properties([=[mpi.${method}.${name}]=] PROPERTIES TIMEOUT ${timeout} COST ${count})\n")
  endforeach()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(suite "")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_]+)\\.$")
    set(suite ${CMAKE_MATCH_1})
  elseif(line MATCHES "^  ([A-Za-z0-9_]+)")
    if(suite STREQUAL "MpiPoolOneRank")
      add_mpi_test(${suite}.${CMAKE_MATCH_1} "-n;1" ${suite}.${CMAKE_MATCH_1} 1)
    elseif(NOT suite STREQUAL "MpiPoolOutput")
      if(NOT suite IN_LIST suites)
        list(APPEND suites ${suite})
        set(count_${suite} 0)
      endif()
      math(EXPR count_${suite} "${count_${suite}} + 1")
    endif()
  endif()
endforeach()
foreach(suite IN LISTS suites)
  if(suite STREQUAL "MpiPoolBoundToCores")
    set(ranks -n 3 --bind-to core:overload-allowed)
  else()
    set(ranks -n 3)
  endif()
  add_mpi_test(${suite} "${ranks}" "${suite}.*" ${count_${suite}})
endforeach()
file(WRITE ${OUTPUT} "${out}")
