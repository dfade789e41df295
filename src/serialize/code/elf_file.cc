// Copyright ferry authors.
#include "serialize/code/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <cstring>
#include <optional>

#include <serialize/error.h>
#include "internal/unique_fd.h"

namespace ferry::detail::elf {
namespace {

// A read-only mapping of a whole file, unmapped on destruction.
class mapped_file {
 public:
  explicit mapped_file(const std::string& path) : path_(path) {
    const unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));  // the mapping outlives it
    if (!fd) throw module_load_error(path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) throw module_load_error(path, "not a regular file");
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ != 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
      if (p == MAP_FAILED) {
        const int e = errno;
        throw module_load_error(path, std::strerror(e));
      }
      data_ = static_cast<const unsigned char*>(p);
    }
  }
  ~mapped_file() {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  // The bytes [offset, offset + count), or nullptr if they are not all there.
  const unsigned char* at(std::uint64_t offset, std::uint64_t count) const {
    if (offset > size_ || count > size_ - offset) return nullptr;
    return data_ + offset;
  }

  template <class T>
  std::optional<T> read(std::uint64_t offset) const {
    const unsigned char* p = at(offset, sizeof(T));
    if (p == nullptr) return std::nullopt;
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

Elf64_Ehdr header_of(const mapped_file& file) {
  const auto eh = file.read<Elf64_Ehdr>(0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
    throw module_load_error(file.path(), "not an ELF file");
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
    throw module_load_error(file.path(), "not a 64-bit little-endian ELF file");
  return *eh;
}

}  // namespace

std::string build_id_from_notes(const unsigned char* notes, std::size_t size) {
  std::size_t pos = 0;
  auto align4 = [](std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; };
  while (size - pos >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr nh;
    std::memcpy(&nh, notes + pos, sizeof nh);
    pos += sizeof nh;
    const std::uint64_t name_len = align4(nh.n_namesz);
    const std::uint64_t desc_len = align4(nh.n_descsz);
    if (name_len > size - pos || desc_len > size - pos - name_len) return {};
    const bool is_gnu = nh.n_namesz == 4 && std::memcmp(notes + pos, "GNU", 4) == 0;
    if (is_gnu && nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz != 0)
      return std::string(reinterpret_cast<const char*>(notes + pos + name_len), nh.n_descsz);
    pos += name_len + desc_len;
  }
  return {};
}

file_facts inspect(const std::string& path) {
  const mapped_file file(path);
  const Elf64_Ehdr eh = header_of(file);
  file_facts facts{{}, eh.e_type == ET_EXEC};
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    throw module_load_error(path, "not an executable or shared object");
  for (std::uint64_t i = 0; i < eh.e_phnum; ++i) {
    const auto ph = file.read<Elf64_Phdr>(eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (!ph) throw module_load_error(path, "truncated program headers");
    if (ph->p_type == PT_INTERP) facts.is_program = true;
    if (ph->p_type == PT_NOTE && facts.build_id.empty()) {
      if (const unsigned char* notes = file.at(ph->p_offset, ph->p_filesz))
        facts.build_id = build_id_from_notes(notes, ph->p_filesz);
    }
  }
  return facts;
}

namespace {

// Calls fn(symbol, name) for each symbol of the tables of the given section
// types (SHT_SYMTAB, SHT_DYNSYM) until it returns true.
template <class Fn>
bool visit_symbols(const mapped_file& file, std::initializer_list<std::uint32_t> table_types, Fn fn) {
  const Elf64_Ehdr eh = header_of(file);
  for (std::uint64_t i = 0; i < eh.e_shnum; ++i) {
    const auto sh = file.read<Elf64_Shdr>(eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (!sh) break;
    if (std::find(table_types.begin(), table_types.end(), sh->sh_type) == table_types.end() ||
        sh->sh_link >= eh.e_shnum)
      continue;
    const auto strtab =
        file.read<Elf64_Shdr>(eh.e_shoff + std::uint64_t{sh->sh_link} * sizeof(Elf64_Shdr));
    const unsigned char* names = strtab ? file.at(strtab->sh_offset, strtab->sh_size) : nullptr;
    if (names == nullptr) continue;
    for (std::uint64_t s = 0; s + sizeof(Elf64_Sym) <= sh->sh_size; s += sizeof(Elf64_Sym)) {
      const auto sym = file.read<Elf64_Sym>(sh->sh_offset + s);
      if (!sym) break;
      if (sym->st_name >= strtab->sh_size) continue;
      const char* name = reinterpret_cast<const char*>(names + sym->st_name);
      if (fn(*sym, std::string_view(name, ::strnlen(name, strtab->sh_size - sym->st_name))))
        return true;
    }
  }
  return false;
}

}  // namespace

std::unordered_map<std::uint64_t, std::string> function_symbols(const std::string& path) {
  const mapped_file file(path);
  std::unordered_map<std::uint64_t, std::string> symbols;
  visit_symbols(file, {SHT_SYMTAB, SHT_DYNSYM}, [&](const Elf64_Sym& sym, std::string_view name) {
    if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && sym.st_value != 0)
      symbols.try_emplace(sym.st_value, name);
    return false;
  });
  return symbols;
}

bool imports_symbol(const std::string& path, std::string_view wanted) {
  const mapped_file file(path);
  return visit_symbols(file, {SHT_DYNSYM}, [&](const Elf64_Sym& sym, std::string_view name) {
    return sym.st_shndx == SHN_UNDEF && name == wanted;
  });
}

}  // namespace ferry::detail::elf
