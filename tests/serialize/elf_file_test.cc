// Copyright ferry authors.
//
// The ELF reader (src/serialize/code/elf_file.h) on real files, on files made
// here byte by byte, and on files whose headers lie: every lie gives
// ferry::module_load_error or nothing, never a read outside the file.
#include "serialize/code/elf_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <serialize/error.h>

#include "serialize/code/loaded_modules_linux.h"
#include "../temp_dir.h"

namespace elf = ferry::detail::elf;
namespace fs = std::filesystem;

extern "C" __attribute__((noinline)) int ferry_elf_test_marker(int x) { return x + 1; }

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file of these bytes in a directory of this process's, removed (with
// every file written here) when the process ends.
std::string write_file(const std::string& name, const std::string& bytes) {
  static const ferry_test::temp_dir dir;
  const std::string path = (dir.path() / name).string();
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

template <class T>
void put(std::string& bytes, std::size_t at, const T& value) {
  if (bytes.size() < at + sizeof value) bytes.resize(at + sizeof value);
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

template <class T>
T get(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// One ELF note: header, name and descriptor, each padded to 4 bytes.
std::string note(const std::string& name, std::uint32_t type, const std::string& desc) {
  Elf64_Nhdr nh{static_cast<Elf64_Word>(name.size()), static_cast<Elf64_Word>(desc.size()), type};
  std::string out(reinterpret_cast<const char*>(&nh), sizeof nh);
  auto padded = [](std::string s) {
    s.resize((s.size() + 3) & ~std::size_t{3}, '\0');
    return s;
  };
  return out + padded(name) + padded(desc);
}

const std::string gnu{"GNU\0", 4};
const std::string some_id{"\x01\x02\x03\x04\x05\x06\x07\x08", 8};

// The GNU build-id of notes held in memory of exactly their size, so that
// a read past them is a sanitizer's error.
std::string id_of(const std::string& notes) {
  const std::vector<unsigned char> exact(notes.begin(), notes.end());
  return elf::build_id_from_notes(exact.data(), exact.size());
}

// A shared object with one PT_NOTE segment holding `notes`, nothing else.
std::string tiny_library(const std::string& notes) {
  std::string bytes;
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  put(bytes, 0, eh);
  Elf64_Phdr ph{};
  ph.p_type = PT_NOTE;
  ph.p_offset = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  ph.p_filesz = notes.size();
  ph.p_memsz = notes.size();
  put(bytes, sizeof(Elf64_Ehdr), ph);
  return bytes + notes;
}

constexpr std::size_t note_phdr = sizeof(Elf64_Ehdr);  // tiny_library's one program header

// Whether inspect and function_symbols give an answer or a
// module_load_error for the file; anything else fails the test.
void expect_answer_or_load_error(const std::string& path) {
  try {
    elf::inspect(path);
  } catch (const ferry::module_load_error& e) {
    EXPECT_EQ(e.path(), path);
  }
  try {
    elf::function_symbols(path);
  } catch (const ferry::module_load_error& e) {
    EXPECT_EQ(e.path(), path);
  }
}

}  // namespace

TEST(ElfFileNotes, TheGnuBuildIdIsFoundAfterAnotherNote) {
  EXPECT_EQ(id_of(note("XYZ", 7, "abcdef") + note(gnu, NT_GNU_BUILD_ID, some_id)), some_id);
}

TEST(ElfFileNotes, ABuildIdNoteOfAnotherVendorIsNotABuildId) {
  EXPECT_EQ(id_of(note(std::string("GNX\0", 4), NT_GNU_BUILD_ID, some_id)), "");
}

TEST(ElfFileNotes, AGnuNoteOfAnotherTypeIsNotABuildId) {
  EXPECT_EQ(id_of(note(gnu, NT_GNU_ABI_TAG, some_id)), "");
}

TEST(ElfFileNotes, AnEmptyBuildIdIsSkippedForALaterOne) {
  EXPECT_EQ(id_of(note(gnu, NT_GNU_BUILD_ID, "") + note(gnu, NT_GNU_BUILD_ID, some_id)), some_id);
}

TEST(ElfFileNotes, ANoteClaimingMoreBytesThanTheBlockHoldsEndsTheSearch) {
  std::string notes = note(gnu, NT_GNU_BUILD_ID, some_id);
  put(notes, offsetof(Elf64_Nhdr, n_descsz), Elf64_Word{0xffffffff});
  EXPECT_EQ(id_of(notes), "");
  put(notes, offsetof(Elf64_Nhdr, n_descsz), Elf64_Word{8});
  put(notes, offsetof(Elf64_Nhdr, n_namesz), Elf64_Word{0xfffffffd});  // wraps when padded
  EXPECT_EQ(id_of(notes), "");
}

TEST(ElfFileNotes, ABlockShorterThanANoteHeaderHasNoBuildId) {
  EXPECT_EQ(id_of(note(gnu, NT_GNU_BUILD_ID, some_id).substr(0, sizeof(Elf64_Nhdr) - 1)), "");
  EXPECT_EQ(id_of(""), "");
}

TEST(ElfFileNotes, ABuildIdCutShortByTheBlocksEndIsNotRead) {
  const std::string notes = note(gnu, NT_GNU_BUILD_ID, some_id);
  EXPECT_EQ(id_of(notes.substr(0, notes.size() - 1)), "");
}

TEST(ElfFile, TheRunningProgramIsAProgramWithTheBuildIdTheLoaderReports) {
  std::string loaded_id;
  ferry::detail::for_each_loaded_object([&](const ferry::detail::object_view& object) {
    loaded_id = object.build_id();  // the first object is the executable
    return true;
  });
  const elf::file_facts facts = elf::inspect("/proc/self/exe");
  EXPECT_TRUE(facts.is_program);
  EXPECT_FALSE(facts.build_id.empty());
  EXPECT_EQ(facts.build_id, loaded_id);
}

TEST(ElfFile, ASharedLibraryIsNotAProgram) {
  const elf::file_facts facts = elf::inspect(FERRY_TEST_PLUGIN);
  EXPECT_FALSE(facts.is_program);
  EXPECT_FALSE(facts.build_id.empty());
}

TEST(ElfFile, ALibraryLinkedWithoutABuildIdHasNone) {
  EXPECT_EQ(elf::inspect(FERRY_TEST_PLUGIN_NO_BUILD_ID).build_id, "");
}

TEST(ElfFile, ALibraryMadeHereHasTheBuildIdOfItsNoteSegment) {
  const std::string path = write_file("tiny.so", tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id)));
  const elf::file_facts facts = elf::inspect(path);
  EXPECT_EQ(facts.build_id, some_id);
  EXPECT_FALSE(facts.is_program);
  EXPECT_TRUE(elf::function_symbols(path).empty());
}

TEST(ElfFile, ANoteSegmentOutsideTheFileGivesNoBuildIdRatherThanARead) {
  std::string bytes = tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id));
  put(bytes, note_phdr + offsetof(Elf64_Phdr, p_offset), Elf64_Off{1} << 40);
  EXPECT_EQ(elf::inspect(write_file("far_note.so", bytes)).build_id, "");
  bytes = tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id));
  put(bytes, note_phdr + offsetof(Elf64_Phdr, p_filesz), ~Elf64_Xword{0});
  EXPECT_EQ(elf::inspect(write_file("long_note.so", bytes)).build_id, "");
}

TEST(ElfFile, ProgramHeadersPastTheEndOfTheFileAreTruncated) {
  std::string bytes = tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id));
  put(bytes, offsetof(Elf64_Ehdr, e_phnum), Elf64_Half{2});
  try {
    elf::inspect(write_file("two_headers.so", bytes));
    FAIL() << "a second program header that is not there was read";
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated program headers"), std::string::npos) << e.what();
  }
}

TEST(ElfFile, ANonElfFileIsRefusedNamingIt) {
  try {
    elf::inspect(FERRY_TEST_NOT_ELF);
    FAIL() << "no error";
  } catch (const ferry::module_load_error& e) {
    EXPECT_EQ(e.path(), FERRY_TEST_NOT_ELF);
    EXPECT_NE(std::string(e.what()).find("not an ELF file"), std::string::npos) << e.what();
  }
}

TEST(ElfFile, AnEmptyFileIsNotAnElfFile) {
  EXPECT_THROW(elf::inspect(write_file("empty", "")), ferry::module_load_error);
}

TEST(ElfFile, ADirectoryIsNotARegularFile) {
  try {
    elf::inspect(::testing::TempDir());
    FAIL() << "no error";
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(ElfFile, AMissingFileGivesTheSystemsReason) {
  try {
    elf::inspect("/nonexistent/libferry_none.so");
    FAIL() << "no error";
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOENT)), std::string::npos) << e.what();
  }
}

TEST(ElfFile, A32BitOrBigEndianFileIsRefused) {
  std::string bytes = tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id));
  bytes[EI_CLASS] = ELFCLASS32;
  EXPECT_THROW(elf::inspect(write_file("elf32.so", bytes)), ferry::module_load_error);
  bytes[EI_CLASS] = ELFCLASS64;
  bytes[EI_DATA] = ELFDATA2MSB;
  EXPECT_THROW(elf::inspect(write_file("msb.so", bytes)), ferry::module_load_error);
}

TEST(ElfFile, ARelocatableObjectIsNotAModule) {
  std::string bytes = tiny_library(note(gnu, NT_GNU_BUILD_ID, some_id));
  put(bytes, offsetof(Elf64_Ehdr, e_type), Elf64_Half{ET_REL});
  try {
    elf::inspect(write_file("object.o", bytes));
    FAIL() << "no error";
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("not an executable or shared object"), std::string::npos)
        << e.what();
  }
}

TEST(ElfFile, FunctionSymbolsNameThisProgramsFunctionsByTheirOffset) {
  Dl_info info{};
  ASSERT_NE(::dladdr(reinterpret_cast<void*>(&ferry_elf_test_marker), &info), 0);
  const auto offset = reinterpret_cast<std::uintptr_t>(&ferry_elf_test_marker) -
                      reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  const auto symbols = elf::function_symbols("/proc/self/exe");
  ASSERT_TRUE(symbols.contains(offset));
  EXPECT_EQ(symbols.at(offset), "ferry_elf_test_marker");
  EXPECT_EQ(ferry_elf_test_marker(1), 2);
}

TEST(ElfFile, ImportsSymbolSeesOnlyWhatTheFileTakesFromOthers) {
  EXPECT_GT(::getpid(), 0);  // so that this program imports getpid
  EXPECT_TRUE(elf::imports_symbol("/proc/self/exe", "getpid"));
  EXPECT_FALSE(elf::imports_symbol("/proc/self/exe", "ferry_elf_test_marker"));
  EXPECT_FALSE(elf::imports_symbol("/proc/self/exe", "getpi"));
}

TEST(ElfFile, ALibraryCutBeforeItsSectionHeadersStillGivesItsBuildIdAndNoSymbols) {
  const std::string whole = read_file(FERRY_TEST_PLUGIN);
  const auto section_headers = get<Elf64_Off>(whole, offsetof(Elf64_Ehdr, e_shoff));
  ASSERT_LT(section_headers, whole.size());
  const std::string path = write_file("cut.so", whole.substr(0, section_headers));
  EXPECT_EQ(elf::inspect(path).build_id, elf::inspect(FERRY_TEST_PLUGIN).build_id);
  EXPECT_TRUE(elf::function_symbols(path).empty());
  EXPECT_FALSE(elf::imports_symbol(path, "getpid"));
}

TEST(ElfFile, HeaderFieldsThatLieGiveAnErrorOrNothingNeverAReadOutsideTheFile) {
#ifdef FERRY_UNDER_TSAN
  // One thread parsing: ThreadSanitizer has nothing to find here, and its
  // checks of every byte copied took 22 s of its run; AddressSanitizer's
  // run checks the reads this test is about.
  GTEST_SKIP() << "single-threaded parsing: run by the plain and AddressSanitizer builds";
#endif
  const std::string whole = read_file(FERRY_TEST_PLUGIN);
  ASSERT_GT(whole.size(), sizeof(Elf64_Ehdr));
  const auto shoff = get<Elf64_Off>(whole, offsetof(Elf64_Ehdr, e_shoff));
  const auto shnum = get<Elf64_Half>(whole, offsetof(Elf64_Ehdr, e_shnum));
  const std::uint64_t lies[] = {0, 1, 0x7fff, 0xffff, 0xffffffff, 1ull << 40, ~0ull, ~0ull - 63};
  int tried = 0;
  for (const std::uint64_t lie : lies) {
    std::string bytes = whole;
    put(bytes, offsetof(Elf64_Ehdr, e_phoff), static_cast<Elf64_Off>(lie));
    expect_answer_or_load_error(write_file("phoff.so", bytes));
    bytes = whole;
    put(bytes, offsetof(Elf64_Ehdr, e_phnum), static_cast<Elf64_Half>(lie));
    expect_answer_or_load_error(write_file("phnum.so", bytes));
    bytes = whole;
    put(bytes, offsetof(Elf64_Ehdr, e_shoff), static_cast<Elf64_Off>(lie));
    expect_answer_or_load_error(write_file("shoff.so", bytes));
    bytes = whole;
    put(bytes, offsetof(Elf64_Ehdr, e_shnum), static_cast<Elf64_Half>(lie));
    expect_answer_or_load_error(write_file("shnum.so", bytes));
    // Each section's offset, size and link in turn.
    for (std::uint64_t i = 0; i < shnum; ++i) {
      const std::size_t sh = shoff + i * sizeof(Elf64_Shdr);
      bytes = whole;
      put(bytes, sh + offsetof(Elf64_Shdr, sh_offset), static_cast<Elf64_Off>(lie));
      put(bytes, sh + offsetof(Elf64_Shdr, sh_size), static_cast<Elf64_Xword>(lie));
      expect_answer_or_load_error(write_file("section.so", bytes));
      bytes = whole;
      put(bytes, sh + offsetof(Elf64_Shdr, sh_link), static_cast<Elf64_Word>(lie));
      expect_answer_or_load_error(write_file("link.so", bytes));
      tried += 2;
    }
  }
  EXPECT_GT(tried, 0);
}
