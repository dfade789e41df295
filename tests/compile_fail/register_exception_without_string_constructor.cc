// Copyright ferry authors.
//
// Must NOT compile: a type registered with ferry::register_exception cannot
// be made from the what() that travels; the message must say what
// constructor it needs.
#include <executor/executor.h>

struct parse_error : std::exception {
  explicit parse_error(int line) : line(line) {}
  int line;
};

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  ferry::register_exception<parse_error>();
}
