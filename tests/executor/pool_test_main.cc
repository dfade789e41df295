// Copyright ferry authors.
//
// main() of every test program whose tests start pools: it serves when the
// program runs as a worker (spawn), then runs the tests.
#include "test_harness.h"

int main(int argc, char** argv) { return ferry_test::run_tests(argc, argv); }
