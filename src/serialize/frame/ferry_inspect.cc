// Copyright ferry authors.
//
// ferry-inspect: what loading the ferry::function in a file would need, and
// whether this process, under the policy the options give it, could load it,
// without loading or running anything (ferry::inspect).
//
//   ferry-inspect FILE [--allow PATH]... [--search DIR]...
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <serialize/error.h>
#include <serialize/inspect.h>
#include <serialize/module_policy.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: ferry-inspect FILE [--allow PATH]... [--search DIR]...\n";
    return 2;
  }
  try {
    for (int i = 2; i + 1 < argc; i += 2) {
      const std::string option = argv[i];
      if (option == "--allow") ferry::allow_module(argv[i + 1]);
      else if (option == "--search") ferry::add_module_search_path(argv[i + 1]);
      else {
        std::cerr << "ferry-inspect: unknown option " << option << "\n";
        return 2;
      }
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
      std::cerr << "ferry-inspect: cannot read " << argv[1] << "\n";
      return 2;
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::cout << ferry::to_string(ferry::inspect(bytes.str()));
    return 0;
  } catch (const ferry::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
