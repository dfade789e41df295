// Copyright ferry authors.
//
// What a search directory of many files costs (ferry::add_module_search_path):
// the first search, which indexes every file's build-id, and each later one,
// which uses the index. The directory is made beside this program, of hard
// links (no disk space) to libferry_serialize.so of the same build tree,
// plus one link to this program, whose build-id is the one searched for.
//   search_path_bench [FILES...]   (default: 10 100 1000 5000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "serialize/code/build_id_index.h"
#include "serialize/code/elf_file.h"
#include <serialize/error.h>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {10, 100, 1000, 5000};
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path filler = fs::canonical(self.parent_path().parent_path() / "lib" / "libferry_serialize.so");
  const std::string wanted = ferry::detail::elf::inspect(self.string()).build_id;
  const fs::path dir = self.parent_path() / "search_path_bench.d";
  for (int files : sizes) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (int i = 0; i < files; ++i) fs::create_hard_link(filler, dir / ("lib" + std::to_string(i) + ".so"));
    fs::create_hard_link(self, dir / "wanted");
    const std::vector<fs::path> dirs{fs::canonical(dir)};
    const auto t0 = clock_type::now();
    const std::string first = ferry::detail::find_by_build_id(dirs, wanted);
    const auto t1 = clock_type::now();
    constexpr int repeats = 2000;
    for (int i = 0; i < repeats; ++i)
      if (ferry::detail::find_by_build_id(dirs, wanted).empty()) return 1;
    const auto t2 = clock_type::now();
    if (first.empty()) {
      std::fprintf(stderr, "the wanted file was not found\n");
      return 1;
    }
    std::printf("{\"files\": %d, \"first_search_ms\": %.2f, \"later_search_us\": %.2f}\n", files + 1,
                std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::micro>(t2 - t1).count() / repeats);
  }
  fs::remove_all(dir);
  return 0;
}
