// Copyright ferry authors.
#include "serialize/code/loaded_modules_linux.h"

#include <link.h>

#include <filesystem>
#include <system_error>

#include "internal/mutex.h"
#include "serialize/code/elf_file.h"
#include "serialize/code/fork_guard.h"

namespace ferry::detail {
namespace {

// Orders ferry's walks of the loader's list with each other and with fork();
// it guards no data of ferry's.
mutex& phdr_mutex() {
  static auto* mu = new mutex;  // never destroyed: walks may run during exit
  return *mu;
}

class phdr_view final : public object_view {
 public:
  phdr_view(const dl_phdr_info* info, bool first) : info_(info), first_(first) {}

  std::string build_id() const override {
    for (int i = 0; i < info_->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info_->dlpi_phdr[i];
      if (ph.p_type != PT_NOTE) continue;
      auto notes = reinterpret_cast<const unsigned char*>(info_->dlpi_addr + ph.p_vaddr);
      std::string id = elf::build_id_from_notes(notes, ph.p_memsz);
      if (!id.empty()) return id;
    }
    return {};
  }

  bool contains(std::uintptr_t address) const override {
    for (int i = 0; i < info_->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info_->dlpi_phdr[i];
      const std::uintptr_t start = info_->dlpi_addr + ph.p_vaddr;
      if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz) return true;
    }
    return false;
  }

  loaded_object describe() const override {
    // The first object is the executable; its dlpi_name is empty.
    return {info_->dlpi_addr, first_ ? executable_path() : std::string(info_->dlpi_name), build_id(),
            first_};
  }

 private:
  const dl_phdr_info* info_;
  bool first_;
};

}  // namespace

bool for_each_loaded_object(const std::function<bool(const object_view&)>& fn) {
  mutex_lock lock(phdr_mutex());
  struct state {
    const std::function<bool(const object_view&)>* fn;
    int index;
  } s{&fn, 0};
  return dl_iterate_phdr(
             [](dl_phdr_info* info, std::size_t, void* data) -> int {
               auto* st = static_cast<state*>(data);
               const phdr_view view(info, st->index++ == 0);
               return (*st->fn)(view) ? 1 : 0;
             },
             &s) != 0;
}

std::uint64_t load_generation() {
  mutex_lock lock(phdr_mutex());
  std::uint64_t gen = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        *static_cast<std::uint64_t*>(data) = (info->dlpi_adds << 32) ^ info->dlpi_subs;
        return 1;
      },
      &gen);
  return gen;
}

const std::string& executable_path() {
  static const std::string path = [] {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("/proc/self/exe") : p.string();
  }();
  return path;
}

void hold_loaded_modules_for_fork(fork_phase phase) { apply_fork_phase(phdr_mutex(), phase); }

}  // namespace ferry::detail
