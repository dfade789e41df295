// Copyright ferry authors.
//
// Must not compile: a task cannot shut down the pool it runs in; the error
// must say so, where it said only that shutdown is inaccessible.
#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return pool.submit([] {
               ferry::this_task::pool().shutdown();
               return 1;
             })
      .get();
}
