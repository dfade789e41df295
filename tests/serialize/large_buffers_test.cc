// Copyright ferry authors.
//
// The hint that backs a large value's memory with huge pages
// (src/serialize/buffers/large_buffers.cc): given to the whole 2 MiB pages
// inside a range, and to nothing outside them; the 4 KiB pages at either
// end of the range outside those are faulted in at once.
#include <serialize/internal/large_buffers.h>

#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace {

constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;

// Whether the mapping holding `address` is marked for huge pages ("hg" in
// its VmFlags in /proc/self/smaps).
bool marked_for_huge_pages(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return false;
}

// Whether the 4 KiB page at `address` is in memory.
bool resident(std::uintptr_t address) {
  unsigned char in = 0;
  const std::uintptr_t page = address & ~std::uintptr_t{4095};
  if (::mincore(reinterpret_cast<void*>(page), 4096, &in) != 0) return false;
  return (in & 1) != 0;
}

// Five huge pages of fresh memory, `p` its first 2 MiB boundary (four
// whole huge pages from there), unmapped when it goes.
struct region {
  region() : raw(::mmap(nullptr, 5 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) {
    if (raw != MAP_FAILED) p = (reinterpret_cast<std::uintptr_t>(raw) + huge - 1) & ~(huge - 1);
  }
  ~region() {
    if (raw != MAP_FAILED) ::munmap(raw, 5 * huge);
  }
  region(const region&) = delete;
  region& operator=(const region&) = delete;
  // Marks the first huge page "no huge pages"; false where the kernel has
  // no transparent huge pages to mark.
  bool marks_huge_pages() const { return ::madvise(reinterpret_cast<void*>(p), huge, MADV_NOHUGEPAGE) == 0; }

  void* raw;
  std::uintptr_t p = 0;
};

}  // namespace

TEST(LargeBuffers, ThePagesAtEitherEndOutsideTheHugePagesAreFaultedInAndNothingOutsideTheRange) {
  const region r;
  ASSERT_NE(r.raw, MAP_FAILED);
  if (!r.marks_huge_pages()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  const std::uintptr_t p = r.p;
  // [p + 8 KiB + 100, p + 3 huge pages + 12 KiB): its first page is partly
  // outside, its whole huge pages are the second and third.
  const std::uintptr_t begin = p + 8192 + 100;
  const std::uintptr_t end = p + 3 * huge + 3 * 4096;
  ASSERT_FALSE(resident(begin));
  ferry::detail::advise_huge_pages(reinterpret_cast<void*>(begin), end - begin);
  EXPECT_FALSE(resident(p + 4096)) << "before the range";
  EXPECT_TRUE(resident(begin)) << "the page holding the range's first byte";
  EXPECT_TRUE(resident(p + huge - 1)) << "the head, up to the first huge page";
  EXPECT_FALSE(resident(p + huge)) << "a huge page faults in when written, as before";
  EXPECT_TRUE(resident(p + 3 * huge)) << "the tail";
  EXPECT_TRUE(resident(end - 1));
  EXPECT_FALSE(resident(end)) << "after the range";
}

TEST(LargeBuffers, TheWholeHugePagesInsideTheRangeAndNothingElseAreOfferedHugePages) {
  // Four huge pages, aligned to one: [p, p + 4 * huge).
  const region r;
  ASSERT_NE(r.raw, MAP_FAILED);
  if (!r.marks_huge_pages()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  const std::uintptr_t p = r.p;
  // From inside the first huge page to inside the fourth: whole ones are the second and third.
  ferry::detail::advise_huge_pages(reinterpret_cast<void*>(p + 4096), 3 * huge);
  EXPECT_FALSE(marked_for_huge_pages(p + 4096));
  EXPECT_TRUE(marked_for_huge_pages(p + huge));
  EXPECT_TRUE(marked_for_huge_pages(p + 3 * huge - 1));
  EXPECT_FALSE(marked_for_huge_pages(p + 3 * huge));
  // A range holding no whole huge page changes nothing.
  ferry::detail::advise_huge_pages(reinterpret_cast<void*>(p + 3 * huge + 4096), huge);
  EXPECT_FALSE(marked_for_huge_pages(p + 3 * huge + 4096));
}
