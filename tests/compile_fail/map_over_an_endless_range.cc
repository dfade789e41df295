// Copyright ferry authors.
//
// Must NOT compile: map, which waits for every result and returns them
// all, over std::views::iota(0), which never ends; the message must name
// the maps that stream and views::take.
#include <executor/executor.h>

#include <ranges>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return static_cast<int>(pool.map([](int x) { return 2 * x; }, std::views::iota(0)).size());
}
