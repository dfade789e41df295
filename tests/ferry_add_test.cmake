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
#     [PREFIX prefix]          before those names (O0.)
#     [TIMEOUT seconds])       of each test; 60 unless given
#
# Warnings are ferry's (FERRY_WARNINGS: -Wall -Wextra, and -Werror with
# FERRY_WARNINGS_AS_ERRORS), as for the libraries. Tests are discovered from
# the program (gtest_discover_tests), never listed by hand.
function(ferry_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "POOL_MAIN;START_METHODS" "PREFIX;TIMEOUT"
                        "SOURCES;LIBRARIES;DEFINITIONS;METHODS")
  if(arg_START_METHODS AND NOT arg_METHODS)
    set(arg_METHODS spawn fork plugin)
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  if(arg_POOL_MAIN)
    add_executable(${name} ${arg_SOURCES} ${FERRY_TESTS_DIR}/executor/pool_test_main.cc)
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} GTest::gtest)
  else()
    add_executable(${name} ${arg_SOURCES})
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} GTest::gtest_main)
  endif()
  target_compile_options(${name} PRIVATE ${FERRY_WARNINGS})
  target_compile_definitions(${name} PRIVATE ${arg_DEFINITIONS})
  if(FERRY_SANITIZE MATCHES "address")
    target_compile_definitions(${name} PRIVATE FERRY_UNDER_ASAN=1)
  elseif(FERRY_SANITIZE MATCHES "thread")
    target_compile_definitions(${name} PRIVATE FERRY_UNDER_TSAN=1)
  endif()
  if(arg_METHODS)
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
