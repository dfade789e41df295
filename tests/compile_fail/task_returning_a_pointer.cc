// Copyright ferry authors.
//
// Must not compile: a task returning a pointer, whose pointee stays in the
// worker's memory; the error must say to return the value or a smart
// pointer, in ferry's words rather than cereal's.
#include <executor/executor.h>

int counter = 0;

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto where = pool.submit([] { return &counter; });
  return *where.get();
}
