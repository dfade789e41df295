// Copyright ferry authors.
//
// Must not compile: actors are made by the program that holds the pool,
// not by a task through this_task::pool(); the error must say so, where it
// said only that make_actor is inaccessible.
#include <executor/executor.h>

struct tally {
  int n = 0;
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return pool.submit([] {
               auto inner = ferry::this_task::pool().make_actor<tally>();
               return 1;
             })
      .get();
}
