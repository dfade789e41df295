// Copyright ferry authors.
//
// Must not compile: a task returning a reference, whose referent stays in
// the worker's memory; the error must say to return the value.
#include <string>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto same = pool.submit([](const std::string& s) -> const std::string& { return s; }, std::string("x"));
  return static_cast<int>(same.get().size());
}
