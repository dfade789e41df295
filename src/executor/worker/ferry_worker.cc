// Copyright ferry authors.
//
// ferry-worker: the generic worker program of start_method::plugin. It links
// only ferry; the code of each task lives in a shared object that it loads
// on demand, under the module policy the pool hands it.
#include <cstdio>

#include <executor/worker.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  std::fprintf(stderr,
               "ferry-worker runs tasks for a ferry::process_pool with start_method::plugin; "
               "it is not meant to be run by hand.\n");
  return 2;
}
