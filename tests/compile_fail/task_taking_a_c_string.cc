// Copyright ferry authors.
//
// Must not compile: a string literal travels as a std::string, which a
// task taking const char* cannot be called with; the error must say what
// to take instead.
#include <cstring>

#include <executor/executor.h>

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::process_pool pool;
  return static_cast<int>(pool.submit([](const char* s) { return std::strlen(s); }, "abc").get());
}
