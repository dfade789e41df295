// Copyright ferry authors.
//
// The README's demo: a closure made inside a function of a shared library
// runs in a worker process of the reusable executor and prints "ok".
//
//   local_function [spawn|fork|plugin]
//
// With plugin, the worker is the generic ferry-worker program, which never
// linked the library: it loads it on demand, because a task from this
// program's own pool vouches for the modules it names (no policy call).
#include <iostream>
#include <string>

#include <executor/executor.h>

#include "local_function.h"

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);  // first: a spawned worker serves here

  // [snippet:demo]
  ferry::function<std::string()> f = make_local_function();

  ferry::pool_options options;
  if (argc > 1 && std::string(argv[1]) == "fork") options.start = ferry::start_method::fork;
  if (argc > 1 && std::string(argv[1]) == "plugin") options.start = ferry::start_method::plugin;

  std::cout << ferry::get_reusable_executor(options).submit(f).get() << "\n";
  // [end]
  return 0;
}
