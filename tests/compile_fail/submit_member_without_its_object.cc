// Copyright ferry authors.
//
// Must NOT compile: a member named as a template argument to submit is
// given arguments without the object it runs on; the message must say
// that the object goes first.
#include <executor/executor.h>

struct point {
  int x = 0;
  int scaled(int k) const { return x * k; }
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return pool.submit<&point::scaled>(3).get();
}
