// Copyright ferry authors.
//
// ferry-inspect: what loading the ferry::function in a file would need, and
// whether this process, under the policy the options give it, could load it,
// without loading or running anything (ferry::inspect).
//
//   ferry-inspect FILE [--allow PATH]... [--search DIR]...
//
// Options may come before or after FILE. Exit status: 0 with the report
// (or --help), 1 when the bytes cannot be inspected, 2 for a command line
// or a file that cannot be read, each with a line on stderr saying which.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include <serialize/error.h>
#include <serialize/inspect.h>
#include <serialize/module_policy.h>

namespace {

constexpr std::string_view usage = "usage: ferry-inspect FILE [--allow PATH]... [--search DIR]...\n";

int refuse(const std::string& why) {
  std::cerr << "ferry-inspect: " << why << "\n" << usage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::cout << usage
                  << "Prints what loading the ferry::function in FILE would need (each module, its build-id,\n"
                     "and whether this process could load it), loading and running nothing. --allow and\n"
                     "--search give the policy, as ferry::allow_module and ferry::add_module_search_path do.\n";
        return 0;
      }
      if (arg == "--allow" || arg == "--search") {
        if (i + 1 == argc) return refuse(std::string(arg) + " needs a " + (arg == "--allow" ? "PATH" : "DIR"));
        const char* value = argv[++i];
        if (arg == "--allow") ferry::allow_module(value);
        else ferry::add_module_search_path(value);
      } else if (arg.size() > 1 && arg.front() == '-') {
        return refuse("unknown option " + std::string(arg));
      } else if (!file.empty()) {
        return refuse("one FILE only: got " + file + " and " + std::string(arg));
      } else {
        file = arg;
      }
    }
    if (file.empty()) return refuse("no FILE given");
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) return refuse("cannot read " + file + ": it is a directory");
    std::ifstream in(file, std::ios::binary);
    if (!in) return refuse("cannot read " + file + ": " + std::strerror(errno));
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::cout << ferry::to_string(ferry::inspect(bytes.str()));
    return 0;
  } catch (const ferry::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
