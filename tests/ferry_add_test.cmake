# The one way a GoogleTest program of ferry's is declared:
#
#   ferry_add_test(NAME
#     SOURCES file...          the program's sources
#     LIBRARIES target...      what it links besides GoogleTest
#     [DEFINITIONS def...]
#     [POOL_MAIN]              main() of tests that start pools
#                              (executor/pool_test_main.cc); else gtest_main
#     [START_METHODS]          every test once per start method, named
#                              spawn.X, fork.X and plugin.X, with
#                              FERRY_TEST_START set
#     [METHODS method...]      the same under these start methods only
#     [SANITIZE_EVERY_METHOD]  under a sanitizer, still every method but
#                              fork (else the first of them alone; below)
#     [OWN_PROCESSES]          each test in a process of its own under a
#                              sanitizer too (else in shards; below): for
#                              tests whose outcome depends on what modules
#                              the tests before them loaded into the process
#     [PREFIX prefix]          before those names (O0.)
#     [UNOPTIMIZED]            compiled at -O0
#     [TIMEOUT seconds])       of each test; 60 unless given
#
# Warnings are ferry's (FERRY_WARNINGS: -Wall -Wextra, and -Werror with
# FERRY_WARNINGS_AS_ERRORS), as for the libraries. Tests are discovered from
# the program (gtest_discover_tests; under a sanitizer, run in shards:
# below), never listed by hand.
#
# Compile time: most of a test file's compile is parsing GoogleTest and
# ferry's API, so every test program reuses one precompiled header of the
# two (one per optimization level: GCC refuses a header precompiled with
# another, and -Winvalid-pch says so, an error in CI). Where the build has
# debug info, tests have line tables only (-g1): a failing test's stack
# still names files and lines. main() of the pool tests is compiled once,
# in ferry_pool_test_main. The examples, the compile-fail cases and the
# executables declared by hand reuse the header too (ferry_test_compile);
# the tests' shared libraries cannot, as GCC refuses a header made for
# executables (-fpie) in position-independent code.
set(FERRY_TEST_OPTIONS ${FERRY_WARNINGS} $<$<CONFIG:RelWithDebInfo,Debug>:-g1>)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND FERRY_TEST_OPTIONS -Winvalid-pch)
endif()
set(FERRY_TEST_DEFINITIONS "")
if(FERRY_SANITIZE MATCHES "address")
  set(FERRY_TEST_DEFINITIONS FERRY_UNDER_ASAN=1)
elseif(FERRY_SANITIZE MATCHES "thread")
  set(FERRY_TEST_DEFINITIONS FERRY_UNDER_TSAN=1)
endif()
# ferry_test_header at the build's optimization level, ferry_test_header_O0
# for UNOPTIMIZED programs; each is built only where a program reuses it.
foreach(header ferry_test_header ferry_test_header_O0)
  add_library(${header} OBJECT EXCLUDE_FROM_ALL ${FERRY_TESTS_DIR}/precompiled.cc)
  target_link_libraries(${header} PRIVATE ferry::executor GTest::gtest)
  target_compile_options(${header} PRIVATE ${FERRY_TEST_OPTIONS})
  target_precompile_headers(${header} PRIVATE <gtest/gtest.h> <executor/executor.h>)
endforeach()
target_compile_options(ferry_test_header_O0 PRIVATE -O0)

# What every target of test code is compiled with: the options and
# definitions above and the precompiled header for its level (PCH: one of
# the two above).
#   ferry_test_compile(TARGET PCH)
# The options are kept in global properties: a function sees its caller's
# variables, and examples/ is not below tests/.
# GoogleTest's interface options are among them (the header was made with
# them; read here, where its imported target is visible), so a program that
# is not a test neither links nor finds GoogleTest.
foreach(kind OPTIONS DEFINITIONS)
  get_target_property(gtest_${kind} GTest::gtest INTERFACE_COMPILE_${kind})
  if(gtest_${kind})
    list(APPEND FERRY_TEST_${kind} ${gtest_${kind}})
  endif()
endforeach()
set_property(GLOBAL PROPERTY FERRY_TEST_OPTIONS ${FERRY_TEST_OPTIONS})
set_property(GLOBAL PROPERTY FERRY_TEST_DEFINITIONS ${FERRY_TEST_DEFINITIONS})
function(ferry_test_compile target pch)
  get_property(options GLOBAL PROPERTY FERRY_TEST_OPTIONS)
  get_property(definitions GLOBAL PROPERTY FERRY_TEST_DEFINITIONS)
  target_compile_options(${target} PRIVATE ${options})
  target_compile_definitions(${target} PRIVATE ${definitions})
  target_precompile_headers(${target} REUSE_FROM ${pch})
endfunction()

add_library(ferry_pool_test_main STATIC ${FERRY_TESTS_DIR}/executor/pool_test_main.cc)
target_link_libraries(ferry_pool_test_main PUBLIC ferry::executor GTest::gtest)
target_compile_definitions(ferry_pool_test_main PRIVATE FERRY_TEST_WORKER_PROGRAM="$<TARGET_FILE:ferry-worker>")
ferry_test_compile(ferry_pool_test_main ferry_test_header)

# Under a sanitizer, a program's tests run in shards of about ten
# (GoogleTest's GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX), each shard one
# test named PREFIXMETHOD.PROGRAM.shard_I_of_N, instead of one process per
# test: a sanitized program takes 0.1-0.2 s to start (its shadow memory,
# its globals' registration), which one process per test paid some 880
# times per sanitizer. A failing shard's output names the failing tests
# (GoogleTest's summary); the plain build still runs each test alone. The
# count comes from the sources' TEST and TEST_F lines when CMake configures
# (a count gone stale changes how tests are split, never which run); a
# shard's timeout is three of its tests' (a test in the plain build takes a
# fraction of its own).
function(ferry_add_test_shards name prefix methods timeout)
  set(tests 0)
  foreach(source ${ARGN})
    file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/${source} found REGEX "^TEST(_F)?\\(")
    list(LENGTH found n)
    math(EXPR tests "${tests} + ${n}")
  endforeach()
  math(EXPR shards "(${tests} + 9) / 10")
  if(shards LESS 1)
    set(shards 1)
  endif()
  math(EXPR last "${shards} - 1")
  math(EXPR shard_timeout "${timeout} * 3")
  if(NOT methods)
    set(methods none)  # the program's own environment
  endif()
  foreach(method ${methods})
    if(method STREQUAL "none")
      set(test_prefix "${prefix}")
      set(start "")
    else()
      set(test_prefix "${prefix}${method}.")
      set(start "FERRY_TEST_START=${method};")
    endif()
    foreach(shard RANGE ${last})
      set(test ${test_prefix}${name}.shard_${shard}_of_${shards})
      add_test(NAME ${test} COMMAND ${name})
      set_tests_properties(${test} PROPERTIES TIMEOUT ${shard_timeout}
        ENVIRONMENT "${start}GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${shard}")
    endforeach()
  endforeach()
endfunction()

function(ferry_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "POOL_MAIN;START_METHODS;UNOPTIMIZED;SANITIZE_EVERY_METHOD;OWN_PROCESSES"
                        "PREFIX;TIMEOUT" "SOURCES;LIBRARIES;DEFINITIONS;METHODS")
  if(arg_START_METHODS AND NOT arg_METHODS)
    set(arg_METHODS spawn fork plugin)
  endif()
  if(FERRY_SANITIZE AND arg_METHODS)
    # No fork under a sanitizer: this toolchain's ASan and TSan allocators
    # take no lock around fork(), so a worker forked while another thread
    # allocates can hang in the sanitizer's malloc (seen under both, with
    # the test's main thread submitting). glibc's malloc locks around it:
    # the plain build runs them.
    list(REMOVE_ITEM arg_METHODS fork)
    # What a start method adds is the worker's start and, under plugin, its
    # loading of the modules a task names; the rest of a test runs the same
    # code in the parent and in the worker under each. So a sanitizer checks
    # those once per method, in the suites that ask (the executor's own
    # behaviour, vouching), and every other suite under its first method
    # alone; the plain build runs each under all of its methods.
    if(NOT arg_SANITIZE_EVERY_METHOD)
      list(GET arg_METHODS 0 arg_METHODS)
    endif()
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  add_executable(${name} ${arg_SOURCES})
  # Its sources in unity batches (ferry_unity, CMakeLists.txt): the files of
  # one program parse the same header and instantiate the same pool
  # templates, which a batch does once. A source whose test needs a
  # translation unit of its own sets SKIP_UNITY_BUILD_INCLUSION.
  ferry_unity(${name})
  if(arg_POOL_MAIN)
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} ferry_pool_test_main)
  else()
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} GTest::gtest_main)
  endif()
  if(arg_UNOPTIMIZED)
    ferry_test_compile(${name} ferry_test_header_O0)
    target_compile_options(${name} PRIVATE -O0)
  else()
    ferry_test_compile(${name} ferry_test_header)
  endif()
  target_compile_definitions(${name} PRIVATE ${arg_DEFINITIONS})
  if(FERRY_SANITIZE AND NOT arg_OWN_PROCESSES)
    ferry_add_test_shards(${name} "${arg_PREFIX}" "${arg_METHODS}" ${arg_TIMEOUT} ${arg_SOURCES})
  elseif(arg_METHODS)
    foreach(method ${arg_METHODS})
      gtest_discover_tests(${name}
        TEST_PREFIX "${arg_PREFIX}${method}."
        PROPERTIES ENVIRONMENT "FERRY_TEST_START=${method}" TIMEOUT ${arg_TIMEOUT}
        DISCOVERY_TIMEOUT 60)
    endforeach()
  else()
    gtest_discover_tests(${name} TEST_PREFIX "${arg_PREFIX}"
      PROPERTIES TIMEOUT ${arg_TIMEOUT} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
