// Copyright ferry authors.
//
// Must NOT compile: an actor's call is given a callable that does not take
// the actor's object first; the message must say what it must take.
#include <executor/executor.h>

struct counter {
  int n = 0;
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  auto c = pool.make_actor<counter>();
  return c.call([](int x) { return x; }, 1).get();
}
