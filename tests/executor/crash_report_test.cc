// Copyright ferry authors.
//
// Reading a crash record (src/executor/pool/crash_report.h): one made by hand is
// symbolized with the module's ELF symbols; every cut of it, and lengths
// that lie, are refused, never read past.
#include "executor/pool/crash_report.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace {

[[gnu::noinline]] int marker_function(int x) { return x * 3 + 1; }

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A record of a SIGSEGV at 0x10 whose one frame is marker_function + 4, in
// this program, mapped at its real base.
std::string record_in_this_program() {
  Dl_info info{};
  EXPECT_NE(dladdr(reinterpret_cast<void*>(&marker_function), &info), 0);
  const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  const auto pc = reinterpret_cast<std::uintptr_t>(&marker_function) + 4;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
  const std::string path(exe, static_cast<std::size_t>(n > 0 ? n : 0));
  std::string modules;
  put<std::uint64_t>(modules, base);
  put<std::uint64_t>(modules, base + (std::uint64_t{1} << 30));
  put<std::uint64_t>(modules, base);
  put<std::uint16_t>(modules, static_cast<std::uint16_t>(path.size()));
  modules += path;
  std::string r;
  put<std::uint32_t>(r, 0x31524346);
  put<std::int32_t>(r, 11);
  put<std::int32_t>(r, 1);
  put<std::uint64_t>(r, 0x10);
  put<std::uint64_t>(r, pc);
  put<std::uint32_t>(r, 1);
  put<std::uint64_t>(r, pc);
  put<std::uint32_t>(r, static_cast<std::uint32_t>(modules.size()));
  return r + modules;
}

}  // namespace

TEST(CrashReport, ARecordIsSymbolizedWithTheModulesSymbols) {
  EXPECT_EQ(marker_function(1), 4);
  const auto report = ferry::detail::parse_crash_record(record_in_this_program());
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->signal, 11);
  EXPECT_EQ(report->fault_address, 0x10u);
  ASSERT_EQ(report->frames.size(), 1u);
  EXPECT_EQ(report->frames[0].function.rfind("(anonymous namespace)::marker_function(int)+0x4", 0), 0u)
      << report->frames[0].function;
}

TEST(CrashReport, EveryCutOfARecordIsRefused) {
  const std::string whole = record_in_this_program();
  for (std::size_t n = 0; n < whole.size(); ++n)
    EXPECT_FALSE(ferry::detail::parse_crash_record(whole.substr(0, n)).has_value()) << "cut at " << n;
}

TEST(CrashReport, LengthsThatLieAreRefused) {
  std::string r = record_in_this_program();
  std::string many = r;
  const std::uint32_t frames = 1'000'000;
  std::memcpy(many.data() + 28, &frames, sizeof frames);  // the frame count
  EXPECT_FALSE(ferry::detail::parse_crash_record(many).has_value());
  std::string bad_magic = r;
  bad_magic[0] = 'X';
  EXPECT_FALSE(ferry::detail::parse_crash_record(bad_magic).has_value());
  std::string long_path = r;
  const std::uint16_t len = 0xffff;
  std::memcpy(long_path.data() + 44 + 24, &len, sizeof len);  // the module's path length
  EXPECT_FALSE(ferry::detail::parse_crash_record(long_path).has_value());
}

TEST(CrashReport, AnEmptyPipeHasNoRecord) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[1]);
  EXPECT_EQ(ferry::detail::read_crash_pipe(fds[0]), "");
  close(fds[0]);
  EXPECT_FALSE(ferry::detail::parse_crash_record("").has_value());
}
