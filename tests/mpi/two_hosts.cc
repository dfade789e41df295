// Copyright ferry authors.
//
// Rank 0 of the two-host scenario (tests/mpi/two_hosts_test.sh): the agent
// runs on the other "host", a network namespace where the test plugin's
// directory is hidden. Prints what happened, one fact per line.
//
//   two_hosts [--ship]
#include <dlfcn.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include <executor/mpi_pool.h>
#include <serialize/dumps.h>

#include "../executor/test_tasks.h"

using namespace std::chrono_literals;

int main(int argc, char** argv) {
  ferry::serve_if_mpi_agent(argc, argv);
  const bool ship = argc > 1 && std::string(argv[1]) == "--ship";
  // A closure of a plugin that only this host has.
  void* plugin = ::dlopen(FERRY_TEST_PLUGIN, RTLD_NOW);
  auto make = plugin ? reinterpret_cast<std::string* (*)(const char*)>(::dlsym(plugin, "ferry_test_make")) : nullptr;
  if (make == nullptr) {
    std::cerr << "cannot load the test plugin\n";
    return 2;
  }
  const std::unique_ptr<std::string> bytes(make("lambda"));
  const auto from_plugin = ferry::loads<ferry::function<int(int)>>(*bytes);

  ferry::mpi_pool_options o;
  o.local.max_workers = 1;
  o.ship_modules = ship;
  ferry::mpi_pool pool(o);
  for (const std::string& host : pool.hosts()) std::cout << "agent on " << host << "\n";

  auto length = pool.submit(test_tasks::length(), std::string(std::size_t{8} << 20, 'b'));
  if (length.wait_for(60s) != std::future_status::ready) return 3;
  std::cout << "length " << length.get() << "\n";

  auto r = pool.submit(from_plugin, 1);
  if (r.wait_for(60s) != std::future_status::ready) return 3;
  try {
    const int value = r.get();
    std::cout << "plugin " << value << "\n";
  } catch (const ferry::serialization_error& e) {
    std::cout << "plugin error " << e.type_name() << "\n";
  }
  return 0;
}
