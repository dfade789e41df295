// Copyright ferry authors.
#include "executor/pool/crash_report.h"

#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include <boost/stacktrace/safe_dump_to.hpp>

#include "serialize/code/demangle.h"
#include "serialize/code/elf_file.h"

namespace ferry::detail {
namespace {

constexpr std::uint32_t magic = 0x31524346;  // "FCR1"
constexpr std::size_t max_frames = 64;
constexpr std::size_t max_module_bytes = 32 * 1024;
constexpr int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// The worker's state for its handler: written before any crash, read by it.
int crash_fd = -1;
// The module map, twice: the handler reads the one `current` names while
// the other is rewritten.
unsigned char modules[2][max_module_bytes];
std::size_t module_bytes[2] = {0, 0};
std::atomic<int> current{0};
unsigned long long seen_adds = ~0ULL;
alignas(16) unsigned char alternate_stack[64 * 1024];
// The record being written; static, so that a crash on a small stack uses
// none of it.
unsigned char record[64 + max_frames * sizeof(std::uint64_t)];

template <class T>
void put(unsigned char*& at, T v) {
  std::memcpy(at, &v, sizeof v);
  at += sizeof v;
}

void write_all(int fd, const unsigned char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_crash(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (crash_fd >= 0) {
    unsigned char* at = record;
    put<std::uint32_t>(at, magic);
    put<std::int32_t>(at, sig);
    put<std::int32_t>(at, info != nullptr ? info->si_code : 0);
    put<std::uint64_t>(at, info != nullptr ? reinterpret_cast<std::uintptr_t>(info->si_addr) : 0);
    std::uint64_t pc = 0;
#if defined(__x86_64__)
    if (context != nullptr) pc = static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP];
#endif
    put<std::uint64_t>(at, pc);
    void* frames[max_frames + 1];
    std::size_t n = boost::stacktrace::safe_dump_to(frames, sizeof frames);
    if (n > 0) --n;  // the terminating null
    put<std::uint32_t>(at, static_cast<std::uint32_t>(n));
    for (std::size_t i = 0; i < n; ++i) put<std::uint64_t>(at, reinterpret_cast<std::uintptr_t>(frames[i]));
    const int c = current.load(std::memory_order_acquire);
    put<std::uint32_t>(at, static_cast<std::uint32_t>(module_bytes[c]));
    write_all(crash_fd, record, static_cast<std::size_t>(at - record));
    write_all(crash_fd, modules[c], module_bytes[c]);
  }
  // Die of the signal itself, as the pool expects: the default action, and
  // the signal raised again (or, for a fault, the faulting instruction
  // repeated when the handler returns).
  ::signal(sig, SIG_DFL);
  errno = saved_errno;
  if (info == nullptr || info->si_code <= 0) ::raise(sig);
}

struct map_builder {
  unsigned char* out = nullptr;
  std::size_t used = 0;
  unsigned long long adds = 0;
  bool first = true;
  std::string program;
};

int add_module(dl_phdr_info* info, std::size_t, void* data) {
  auto& b = *static_cast<map_builder*>(data);
  if (b.first) {
    b.adds = info->dlpi_adds;
    b.first = false;
  }
  std::uint64_t lo = ~0ULL, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    lo = std::min<std::uint64_t>(lo, ph.p_vaddr);
    hi = std::max<std::uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
  }
  if (hi == 0) return 0;
  const std::string_view path =
      info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' ? std::string_view(info->dlpi_name) : b.program;
  const std::size_t need = 3 * sizeof(std::uint64_t) + sizeof(std::uint16_t) + path.size();
  if (path.size() > 0xffff || b.used + need > max_module_bytes) return 0;
  unsigned char* at = b.out + b.used;
  put<std::uint64_t>(at, info->dlpi_addr + lo);
  put<std::uint64_t>(at, info->dlpi_addr + hi);
  put<std::uint64_t>(at, info->dlpi_addr);
  put<std::uint16_t>(at, static_cast<std::uint16_t>(path.size()));
  std::memcpy(at, path.data(), path.size());
  b.used += need;
  return 0;
}

// Reads what `record` holds at `at`, if it holds that much.
class reader {
 public:
  explicit reader(std::string_view s) : s_(s) {}
  template <class T>
  bool get(T& v) {
    if (s_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, s_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool get(std::string& v, std::size_t n) {
    if (s_.size() - at_ < n) return false;
    v.assign(s_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::size_t left() const { return s_.size() - at_; }

 private:
  std::string_view s_;
  std::size_t at_ = 0;
};

struct module_entry {
  std::uint64_t start, end, base;
  std::string path;
};

}  // namespace

void install_crash_reporter(int fd) {
  crash_fd = fd;
  note_loaded_modules();
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_crash;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  ::sigemptyset(&sa.sa_mask);
  for (const int sig : crash_signals) ::sigaction(sig, &sa, nullptr);
}

void note_loaded_modules() {
  if (crash_fd < 0) return;
  // Cheap when nothing changed: the loader's count of loads is read from
  // the first object alone.
  unsigned long long adds = 0;
  ::dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void* data) {
    *static_cast<unsigned long long*>(data) = info->dlpi_adds;
    return 1;
  }, &adds);
  if (adds == seen_adds) return;
  const int next = 1 - current.load(std::memory_order_relaxed);
  map_builder b;
  b.out = modules[next];
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) b.program.assign(exe, static_cast<std::size_t>(n));
  ::dl_iterate_phdr(add_module, &b);
  module_bytes[next] = b.used;
  current.store(next, std::memory_order_release);
  seen_adds = adds;
}

std::string read_crash_pipe(int fd) {
  std::string out;
  if (fd < 0) return out;
  char buf[16384];
  while (out.size() < 64 * 1024) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::optional<crash_report> parse_crash_record(std::string_view record) {
  reader r(record);
  std::uint32_t m = 0, frame_count = 0, module_size = 0;
  std::int32_t sig = 0, code = 0;
  std::uint64_t address = 0, pc = 0;
  if (!r.get(m) || m != magic || !r.get(sig) || !r.get(code) || !r.get(address) || !r.get(pc) ||
      !r.get(frame_count) || frame_count > max_frames)
    return std::nullopt;
  std::vector<std::uint64_t> frames(frame_count);
  for (std::uint64_t& f : frames)
    if (!r.get(f)) return std::nullopt;
  if (!r.get(module_size) || module_size != r.left() || module_size > max_module_bytes) return std::nullopt;
  std::vector<module_entry> mods;
  while (r.left() > 0) {
    module_entry e;
    std::uint16_t len = 0;
    if (!r.get(e.start) || !r.get(e.end) || !r.get(e.base) || !r.get(len) || !r.get(e.path, len))
      return std::nullopt;
    mods.push_back(std::move(e));
  }
  crash_report report;
  report.signal = sig;
  report.fault_address = static_cast<std::uintptr_t>(address);
  // The first frames are the handler's own: the stack starts at the
  // interrupted instruction when it is among them.
  std::size_t first = 0;
  for (std::size_t i = 0; i < frames.size(); ++i)
    if (frames[i] == pc) {
      first = i;
      break;
    }
  std::unordered_map<std::string, std::map<std::uint64_t, std::string>> symbols;
  for (std::size_t i = first; i < frames.size(); ++i) {
    crash_frame f;
    f.address = static_cast<std::uintptr_t>(frames[i]);
    const auto mod = std::find_if(mods.begin(), mods.end(),
                                  [&](const module_entry& e) { return frames[i] >= e.start && frames[i] < e.end; });
    if (mod != mods.end()) {
      f.module = mod->path;
      f.offset = frames[i] - mod->base;
      auto [it, fresh] = symbols.try_emplace(mod->path);
      if (fresh) {
        try {
          for (auto& [offset, name] : elf::function_symbols(mod->path)) it->second.emplace(offset, std::move(name));
        } catch (...) {  // gone, or not a file (the vDSO): the frame keeps its offset
        }
      }
      // A return address points past its call: look up the byte before it.
      const std::uint64_t probe = i == first ? f.offset : f.offset - 1;
      auto sym = it->second.upper_bound(probe);
      if (sym != it->second.begin()) {
        --sym;
        f.function = demangle(sym->second.c_str()) + "+0x" + [&] {
          char hex[32];
          std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(f.offset - sym->first));
          return std::string(hex);
        }();
      }
    }
    report.frames.push_back(std::move(f));
  }
  return report;
}

}  // namespace ferry::detail
