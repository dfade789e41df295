// Copyright ferry authors.
//
// main() of every test program whose tests start pools: it serves when the
// program runs as a worker (spawn), then runs the tests. Under a sanitizer
// it also gives the sanitizer its default options, once per program (a
// definition in the header would be one per source file, which the linker
// refuses).
#include "test_harness.h"

#if defined(FERRY_UNDER_ASAN)
extern "C" const char* __asan_default_options() { return sanitizer_options; }
#elif defined(FERRY_UNDER_TSAN)
extern "C" const char* __tsan_default_options() { return sanitizer_options; }
#endif

int main(int argc, char** argv) { return ferry_test::run_tests(argc, argv); }
