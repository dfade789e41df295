// Copyright ferry authors.
//
// Must NOT compile: an actor's call is given the address of a member as a
// value, as std::invoke takes it; the message must say to name the member
// as a template argument.
#include <executor/executor.h>

struct counter {
  int add(int k) { return n += k; }
  int n = 0;
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto c = pool.make_actor<counter>();
  return c.call(&counter::add, 1).get();
}
