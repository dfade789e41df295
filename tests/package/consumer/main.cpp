// Runs the consumer's local closure in a worker of each start method named on
// the command line, and once through dumps/loads, printing one line each. No
// policy call: the pool's tasks vouch for the consumer's library.
#include <iostream>
#include <string>

#include <executor/executor.h>
#include <serialize/serialize.h>

#include "closures.h"

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  ferry::function<std::string(std::string)> greet = make_greeter("hello");
  auto copy = ferry::loads<decltype(greet)>(ferry::dumps(greet));
  std::cout << "loads: " << copy("consumer") << "\n";
  for (int i = 1; i < argc; ++i) {
    ferry::pool_options options;
    options.max_workers = 1;
    options.start = ferry::start_method_from_string(argv[i]);
    ferry::process_pool pool(options);
    std::cout << argv[i] << ": " << pool.submit(greet, std::string(argv[i])).get() << "\n";
  }
  return 0;
}
