// Copyright ferry authors.
//
// Must NOT compile: std::list is not among the standard types that
// serialize/std_types.h gives cereal support to; the error must say which
// header to include.
#include <list>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto f = pool.submit([](const std::list<int>& l) { return l.size(); }, std::list<int>{1, 2});
  return static_cast<int>(f.get());
}
