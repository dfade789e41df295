// Copyright ferry authors.
//
// Must not compile: a pointer to a member function, as std::invoke and
// std::async take it, names no code ferry can find in another process; the
// error must say to call the member from a capture-less lambda.
#include <executor/executor.h>

struct scaler {
  int factor = 2;
  int scale(int x) const { return factor * x; }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(factor);
  }
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return pool.submit(&scaler::scale, scaler{}, 21).get();
}
