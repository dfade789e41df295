// Copyright ferry authors.
#include "test_tasks.h"

#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <csignal>
#include <fstream>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <atomic>
#include <new>
#include <optional>
#include <system_error>
#include <variant>
#include <stop_token>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <sstream>
#include <vector>
#include <ranges>
#include <list>

#include <executor/executor.h>

#include "executor/wire/protocol.h"

namespace test_tasks {
namespace {

struct custom_error : std::exception {
  const char* what() const noexcept override { return "custom failure"; }
};

int negate(int x) { return -x; }

bool initializer_ran = false;

// The worker's sockets to the pool (it reads tasks on one and writes
// results to the other): its only two.
std::vector<int> pool_sockets() {
  std::vector<int> found;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) {
      char target[64] = {};
      const std::string link = std::string("/proc/self/fd/") + e->d_name;
      if (::readlink(link.c_str(), target, sizeof target - 1) > 0 &&
          std::string_view(target).starts_with("socket:"))
        found.push_back(std::atoi(e->d_name));
    }
    ::closedir(d);
  }
  if (found.size() != 2) throw std::runtime_error("the worker has " + std::to_string(found.size()) + " sockets, not 2");
  return found;
}

void write_all(int fd, const void* data, std::size_t size) {
  if (::write(fd, data, size) != static_cast<ssize_t>(size)) throw std::runtime_error("short write");
}


}  // namespace

ferry::function<int(int, int)> add() {
  return [](int a, int b) { return a + b; };
}

ferry::function<int(int)> scale(int k) {
  return ferry::bitwise([k](int x) { return k * x; });
}

ferry::function<std::string(const std::string&)> greet(std::string greeting) {
  return ferry::closure([](const std::string& g, const std::string& name) { return g + ", " + name; },
                        std::move(greeting));
}

ferry::function<double()> sum(std::vector<double> values) {
  struct summer {
    std::vector<double> values;
    double operator()() const {
      double s = 0;
      for (double v : values) s += v;
      return s;
    }
  };
  return summer{std::move(values)};
}

ferry::function<int(int)> negate_pointer() { return &negate; }

ferry::function<int(int)> header_closure_from_library(int k) { return header_closure(k); }

int triple(int x) { return 3 * x; }
double halve(double x) { return x / 2; }

ferry::function<int(int)> offset_by(int k) {
  class offset {
   public:
    offset() = default;
    explicit offset(int k) : k_(k) {}
    int operator()(int x) const { return x + k_; }
    void serialize(ferry::output_archive& ar) { ar(k_); }
    void serialize(ferry::input_archive& ar) { ar(k_); }

   private:
    int k_ = 0;
  };
  return offset(k);
}

ferry::function<void(int)> discard() {
  return [](int) {};
}

ferry::function<int(std::string)> throw_std() {
  return [](std::string kind) -> int {
    if (kind == "runtime_error") throw std::runtime_error("rt");
    if (kind == "logic_error") throw std::logic_error("lg");
    if (kind == "invalid_argument") throw std::invalid_argument("ia");
    if (kind == "out_of_range") throw std::out_of_range("oor");
    if (kind == "overflow_error") throw std::overflow_error("of");
    if (kind == "bad_alloc") throw std::bad_alloc();
    return 0;
  };
}

ferry::function<int()> throw_custom() {
  return []() -> int { throw custom_error(); };
}

ferry::function<int()> throw_int() {
  return []() -> int { throw 42; };
}

ferry::function<int(std::string)> crash() {
  return [](std::string how) -> int {
    if (how == "abort") std::abort();
    if (how == "segv") std::raise(SIGSEGV);
    if (how == "null") {  // a real fault, at address 0
      volatile int* nowhere = nullptr;
      *nowhere = 1;
    }
    if (how == "exit3") std::exit(3);
    return 0;
  };
}

ferry::function<int(std::string)> abort_holding() {
  return [](std::string s) -> int {
    if (!s.empty()) std::abort();
    return 0;
  };
}

ferry::function<int(std::string, int)> print() {
  return [](std::string text, int how) {
    if (how == 2) {
      std::fprintf(stderr, "%s\n", text.c_str());
    } else if (how == 4) {
      std::printf("%s", text.c_str());
    } else {
      std::printf("%s\n", text.c_str());
      if (how == 3) {
        std::fflush(stdout);
        std::raise(SIGKILL);
      }
    }
    return static_cast<int>(::getpid());
  };
}

ferry::function<int(std::string)> die_once() {
  return [](std::string path) {
    if (::access(path.c_str(), F_OK) != 0) {
      std::ofstream(path) << "died";
      std::raise(SIGKILL);
    }
    return 1;
  };
}

ferry::function<int(int)> sleep_ms() {
  return [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return static_cast<int>(::getpid());
  };
}

ferry::function<std::int64_t(int)> started_at() {
  return [](int ms) {
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count());
  };
}

ferry::function<std::int64_t(std::string, int)> mark_then_sleep() {
  return [](std::string mark, int ms) {
    const auto start = std::chrono::steady_clock::now();
    std::ofstream(mark).put('x');
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count());
  };
}

ferry::function<int(int)> poll_until_stopped() {
  return [](int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      if (ferry::this_task::stop_requested()) return 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return 0;
  };
}

ferry::function<int(int)> wait_for_stop_callback() {
  return [](int ms) {
    std::atomic<bool> told{false};
    std::stop_callback on_stop(ferry::this_task::get_stop_token(), [&] { told = true; });
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!told && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return told ? 1 : 0;
  };
}

ferry::function<int(int)> abort_after_ms() {
  return [](int ms) -> int {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    std::abort();
  };
}

ferry::function<int()> spin_forever() {
  return []() -> int {
    volatile unsigned spins = 0;
    for (;;) spins = spins + 1u;
  };
}

ferry::function<int()> pid() {
  return [] { return static_cast<int>(::getpid()); };
}

ferry::function<int(std::string, int, int)> fail_first() {
  return [](std::string path, int deaths, int throws) {
    int runs = 0;
    {
      std::ifstream in(path);
      in >> runs;
    }
    ++runs;
    std::ofstream(path) << runs;
    if (runs <= deaths) ::raise(SIGKILL);
    if (runs <= deaths + throws) throw std::runtime_error("run " + std::to_string(runs) + " threw");
    return runs;
  };
}

ferry::function<int()> parent_pid() {
  return [] { return static_cast<int>(::getppid()); };
}

ferry::function<std::string(std::string)> getenv() {
  return [](std::string name) {
    const char* v = std::getenv(name.c_str());
    return v != nullptr ? std::string(v) : std::string("<unset>");
  };
}

ferry::function<void()> initializer() {
  return [] { initializer_ran = true; };
}

ferry::function<bool()> initialized() {
  return [] { return initializer_ran; };
}

ferry::function<void()> failing_initializer() {
  return [] { throw std::runtime_error("no database"); };
}

ferry::function<void()> aborting_initializer() {
  return [] { std::abort(); };
}

ferry::function<void()> slow_start_while(std::string path) {
  return ferry::closure(
      [](const std::string& p) {
        if (std::ifstream(p)) std::this_thread::sleep_for(std::chrono::seconds(2));
      },
      std::move(path));
}

ferry::function<std::string(std::string)> echo() {
  return [](std::string s) { return s; };
}

ferry::function<std::size_t(std::string)> length() {
  return [](std::string s) { return s.size(); };
}

ferry::function<std::string(std::size_t)> make_string() {
  return [](std::size_t n) { return std::string(n, 'x'); };
}

ferry::function<std::string()> nested_pool() {
  return [] {
    ferry::process_pool inner;
    return std::string("a pool was made inside a worker");
  };
}

ferry::function<int(int)> child_exit_status() {
  return [](int code) {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(code);
    int status = 0;
    if (::waitpid(child, &status, 0) != child) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
  };
}

ferry::function<int()> exhaust_memory() {
  return []() -> int {
    const rlimit limit{256u << 20, 256u << 20};
    ::setrlimit(RLIMIT_AS, &limit);
    std::vector<std::vector<char>> hog;
    // Out of memory in a place that cannot throw: the process dies.
    auto grow = [&hog]() noexcept { hog.emplace_back(64u << 20, 'x'); };
    for (;;) grow();
  };
}

ferry::function<int(ferry::function<int(int)>)> apply_to_one() {
  return [](ferry::function<int(int)> g) { return g(1); };
}

// Pool side: saving 1 fails; loading 4 fails. Worker side: loading 2 fails,
// saving 3 fails. ferry::is_worker_process() tells the sides apart.
template <class Archive>
void fragile::save(Archive& ar) const {
  const bool worker = ferry::is_worker_process();
  if ((fail_when == 1 && !worker) || (fail_when == 3 && worker))
    throw std::runtime_error("fragile refuses to be saved");
  ar(fail_when);
}

template <class Archive>
void fragile::load(Archive& ar) {
  ar(fail_when);
  const bool worker = ferry::is_worker_process();
  if ((fail_when == 2 && worker) || (fail_when == 4 && !worker))
    throw std::runtime_error("fragile refuses to be loaded");
  in_worker = worker;
}

template void fragile::save(ferry::output_archive&) const;
template void fragile::load(ferry::input_archive&);

ferry::function<fragile(fragile)> pass_fragile() {
  return [](fragile f) { return f; };
}

ferry::function<int(std::string)> exit_with() {
  return [](std::string how) -> int {
    if (how == "exit0") std::exit(0);
    if (how == "_exit0") ::_exit(0);
    if (how == "_exit42") ::_exit(42);
    return 1;
  };
}

std::vector<std::string> map_over_std_map(ferry::detail::pool_front& pool, const std::map<std::string, int>& m) {
  std::vector<std::string> out =
      pool.map([](const std::pair<const std::string, int>& kv) { return kv.first + "=" + std::to_string(kv.second); }, m);
  for (auto& s : pool.map([](const auto& kv) { return kv.first + "=" + std::to_string(kv.second); }, m, 1))
    out.push_back(std::move(s));
  return out;
}

std::vector<std::string> submit_std_map_element(ferry::detail::pool_front& pool, const std::map<std::string, int>& m) {
  const auto& first = *m.begin();
  auto by_value = pool.submit([](std::pair<const std::string, int> kv) { return kv.first + "=" + std::to_string(kv.second); }, first);
  auto with_options = pool.submit({.name = "element"}, [](const auto& kv) { return kv.first + "=" + std::to_string(kv.second); }, first);
  return {by_value.get(), with_options.get()};
}

namespace {
struct labelled {
  explicit labelled(std::string s) : label(std::move(s)) {}
  std::string label;
};
}  // namespace

std::vector<std::string> c_string_arguments(ferry::detail::pool_front& pool) {
  std::vector<std::string> out;
  out.push_back(pool.submit([](const std::string& s) { return s + " " + std::to_string(s.size()); }, "hello").get());
  std::string buffer = "buffer";
  char* text = buffer.data();
  auto with_options = pool.submit({.retries = 2, .name = "c string"}, [](std::string s) { return s + "?"; }, text);
  buffer.assign(buffer.size(), 'x');  // the task has its own copy of the text
  out.push_back(with_options.get());
  auto count = pool.submit([] { return 3; });
  out.push_back(pool.submit([](int n, std::string_view s) { return std::string(static_cast<std::size_t>(n), s[0]); },
                            count, "z")
                    .get());
  const std::vector<const char*> words{"a", "bb", "ccc"};
  std::string sizes;
  for (std::size_t n : pool.map([](std::string_view s) { return s.size(); }, words, 1))
    sizes += (sizes.empty() ? "" : " ") + std::to_string(n);
  out.push_back(sizes);
  auto actor = pool.make_actor<labelled>("actor");
  out.push_back(actor.call([](labelled& l, const std::string& suffix) { return l.label + suffix; }, "-call").get());
  std::string viewed = "viewed";
  auto view = pool.submit({.retries = 1}, [](std::string_view s) { return std::string(s) + "!"; },
                          std::string_view(viewed));
  viewed.assign(viewed.size(), 'x');  // the task has its own copy of the text
  out.push_back(view.get());
  return out;
}

std::vector<std::string> zipped_maps(ferry::detail::pool_front& pool) {
  const auto line = [](const auto& results) {
    std::string out;
    for (const auto& r : results) {
      if (!out.empty()) out += ' ';
      if constexpr (std::is_same_v<std::decay_t<decltype(r)>, std::string>)
        out += r;
      else
        out += std::to_string(r);
    }
    return out;
  };
  std::vector<std::string> out;
  const std::vector<int> xs{1, 2, 3};
  const std::vector<int> ys{4, 5, 6, 7};
  out.push_back(line(pool.map([](int x, int y) { return x * y; }, xs, ys)));
  const std::list<std::string> names{"a", "b", "c"};
  out.push_back(line(pool.map(
      [](int i, const std::string& name, double d) {
        std::ostringstream s;
        s << i << name << d;
        return s.str();
      },
      xs, names, std::vector<double>{0.5, 1.5, 2.5, 3.5}, 1)));
  std::vector<int> offset;
  for (int r : pool.map_ordered([](int i, int x) { return i + 2 * x - 2; }, std::views::iota(100), xs,
                                ferry::map_options{.chunksize = 2}))
    offset.push_back(r);
  out.push_back(line(offset));
  std::istringstream numbers("7 8 9 10");
  const std::vector<const char*> letters{"x", "y", "z"};
  std::vector<std::string> labels(3);
  for (auto [i, r] : pool.map_unordered([](int n, std::string s) { return std::to_string(n) + s; },
                                        std::views::istream<int>(numbers), letters, 1))
    labels.at(i) = r;
  out.push_back(line(labels));
  const std::vector<const char*> words{"p", "q"};
  out.push_back(line(pool.map([](std::string_view w, int x) { return std::string(w) + std::to_string(x); }, words, xs,
                              ferry::map_options{.chunksize = 1, .retries = 2})));
  const ferry::function<int(int, int)> difference = [](int a, int b) { return a - b; };
  out.push_back(line(pool.map(difference, std::vector<int>{10, 20, 30}, xs)));
  out.push_back(std::to_string(pool.map(difference, std::vector<int>{}, xs).size()) + " results");
  // An endless range zipped with one that ends: map collects, up to the end.
  out.push_back(line(pool.map([](int i, int x) { return i * x; }, std::views::iota(1), xs)));
  return out;
}

std::vector<std::string> filesystem_arguments(ferry::detail::pool_front& pool, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const auto joined = [](std::vector<std::string> words, bool sorted) {
    if (sorted) std::sort(words.begin(), words.end());
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
  };
  std::vector<std::string> out;
  out.push_back(pool.submit([](const fs::path& p) { return p.filename().string(); }, dir / "f1").get());
  std::vector<std::string> sizes;
  const std::vector<fs::path> files{dir / "f1", dir / "f2"};
  for (std::uintmax_t n : pool.map([](const fs::path& p) { return fs::file_size(p); }, files, 1))
    sizes.push_back(std::to_string(n));
  out.push_back(joined(sizes, false));
  out.push_back(joined(pool.map([](const fs::path& p) { return p.filename().string(); }, fs::directory_iterator(dir), 1),
                       true));
  int regular = 0;
  for (bool r : pool.map([](const fs::directory_entry& e) { return e.is_regular_file(); }, fs::directory_iterator(dir)))
    regular += r ? 1 : 0;
  out.push_back(std::to_string(regular) + " regular files");
  out.push_back(joined(pool.map([](const fs::path& p, int i) { return p.filename().string() + ":" + std::to_string(i); },
                                files, std::vector<int>{1, 2, 3}),
                       false));
  out.push_back(pool.submit([](fs::path p) { return p.replace_extension(".txt"); }, dir / "f2").get().filename().string());
  return out;
}

std::exception_ptr null_c_string_argument(ferry::detail::pool_front& pool) {
  const char* none = nullptr;
  try {
    pool.submit([](const std::string& s) { return s; }, none).get();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

ferry::function<int(int)> close_descriptors() {
  return [](int x) {
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);
    return x;
  };
}

ferry::function<int(int)> keep_megabytes() {
  return [](int n) {
    static std::vector<std::vector<char>> kept;
    kept.emplace_back(static_cast<std::size_t>(n) << 20, 'k');  // touched, so resident
    return static_cast<int>(::getpid());
  };
}

ferry::function<int()> throw_nested() {
  return []() -> int {
    try {
      throw std::invalid_argument("inner cause");
    } catch (...) {
      std::throw_with_nested(std::runtime_error("outer"));
    }
  };
}

ferry::function<std::size_t(std::vector<ferry::shared_buffer>)> count_buffers() {
  return [](std::vector<ferry::shared_buffer> v) { return v.size(); };
}

}  // namespace test_tasks

namespace test_tasks {

extern "C" char** environ;

namespace {
// What the worker's sockets are ("socket:[inode]"), space-separated.
std::string socket_targets() {
  std::string out;
  for (const int fd : pool_sockets()) {
    char target[64] = {};
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    if (::readlink(link.c_str(), target, sizeof target - 1) <= 0) throw std::runtime_error("readlink");
    out += (out.empty() ? "" : " ") + std::string(target);
  }
  return out;
}
}  // namespace

ferry::function<int(std::string)> exec_program() {
  return [](std::string program) {
    ::execl(program.c_str(), program.c_str(), "1000", static_cast<char*>(nullptr));
    throw std::runtime_error("exec of " + program + " failed");
    return 0;
  };
}

ferry::function<std::string()> shell_descriptors() {
  return [] {
    std::FILE* p = ::popen("sh -c 'for f in /proc/$$/fd/*; do readlink $f; done'", "r");
    if (p == nullptr) throw std::runtime_error("popen");
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    ::pclose(p);
    return out + socket_targets();
  };
}

ferry::function<int(int)> interrupted_then_pid() {
  return [](int ms) {
    ::raise(SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return static_cast<int>(::getpid());
  };
}

ferry::function<std::string()> working_directory() {
  return [] { return std::filesystem::current_path().string(); };
}

ferry::function<std::vector<int>()> blocked_signals() {
  return [] {
    sigset_t now;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &now);
    std::vector<int> blocked;
    for (int sig = 1; sig < NSIG; ++sig)
      if (::sigismember(&now, sig) == 1) blocked.push_back(sig);
    return blocked;
  };
}

ferry::function<std::string()> read_stdin() {
  return [] {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1) return std::string("<nothing>");
    char buf[256];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    return n <= 0 ? std::string("<end>") : std::string(buf, static_cast<std::size_t>(n));
  };
}

ferry::function<int()> interrupted_shell() {
  return [] {
    char arg0[] = "/bin/sh";
    char arg1[] = "-c";
    char arg2[] = "kill -INT $$; sleep 10";
    char* argv[] = {arg0, arg1, arg2, nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, arg0, nullptr, nullptr, argv, environ) != 0) throw std::runtime_error("posix_spawn of sh");
    int status = 0;
    for (int waited = 0; ::waitpid(pid, &status, WNOHANG) == 0; ++waited) {
      if (waited == 1000) {  // 10 s: the shell ignored its SIGINT
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  };
}

ferry::function<std::string()> spawn_lingering() {
  return [] {
    char arg0[] = "/bin/sleep";
    char arg1[] = "30";
    char* argv[] = {arg0, arg1, nullptr};
    pid_t pid = 0;
    if (::posix_spawn(&pid, arg0, nullptr, nullptr, argv, environ) != 0)
      throw std::runtime_error("posix_spawn of /bin/sleep");
    return std::to_string(pid) + " " + socket_targets();
  };
}

ferry::function<int(std::string)> sabotage() {
  return [](std::string how) {
    namespace protocol = ferry::detail::protocol;
    // Done to both sockets: the pool reads only the results' one, and what
    // goes into the other stays unread.
    const std::vector<int> fds = pool_sockets();
    if (how == "shutdown") {
      for (const int fd : fds) ::shutdown(fd, SHUT_RDWR);
      return 0;
    }
    if (how == "garbage") {
      const std::string junk(200, '\x5a');
      for (const int fd : fds) write_all(fd, junk.data(), junk.size());
    } else if (how == "forged" || how == "partial_then_die") {
      // A result for task id 1 with a made-up tag and sequence number.
      const std::string body(9, '\0');  // "all items", count 0
      protocol::header h{protocol::magic, protocol::kind::result, 0, 0, 1, body.size(), 0, {}};
      std::string message(reinterpret_cast<const char*>(&h), sizeof h);
      message += body;
      if (how == "partial_then_die") message.resize(30);
      for (const int fd : fds) write_all(fd, message.data(), message.size());
      if (how == "partial_then_die") ::raise(SIGKILL);
    } else if (how == "die") {
      ::raise(SIGKILL);
    } else {
      throw std::invalid_argument("unknown sabotage: " + how);
    }
    std::this_thread::sleep_for(std::chrono::seconds(30));  // the pool kills us first
    return 1;
  };
}

ferry::function<std::string(std::size_t)> make_string_without_shared_memory() {
  return [](std::size_t n) {
    // A write past RLIMIT_FSIZE fails with EFBIG instead of killing us.
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit none{0, RLIM_INFINITY};
    ::setrlimit(RLIMIT_FSIZE, &none);
    return std::string(n, 'x');
  };
}

ferry::function<std::uint64_t(ferry::shared_buffer, int)> fill_buffer() {
  return [](ferry::shared_buffer b, int value) {
    std::uint64_t sum = 0;
    for (std::byte& x : b.bytes()) {
      sum += static_cast<std::uint8_t>(x);
      x = static_cast<std::byte>(value);
    }
    return sum;
  };
}

ferry::function<ferry::shared_buffer(ferry::shared_buffer)> echo_buffer() {
  return [](ferry::shared_buffer b) { return b; };
}

ferry::function<std::vector<ferry::shared_buffer>(std::size_t, std::size_t)> make_buffers() {
  return [](std::size_t count, std::size_t size) {
    std::vector<ferry::shared_buffer> out;
    for (std::size_t i = 0; i < count; ++i) {
      ferry::shared_buffer b(size);
      std::memset(b.data(), static_cast<int>(i + 1), size);
      out.push_back(std::move(b));
    }
    return out;
  };
}

ferry::function<int(ferry::shared_buffer)> fill_then_crash() {
  return [](ferry::shared_buffer b) -> int {
    std::memset(b.data(), 0xAB, b.size());
    std::abort();
  };
}

namespace {

long fib_by_nested_tasks(int n) {
  if (n < 2) return n;
  ferry::nested_pool pool = ferry::this_task::pool();
  auto a = pool.submit(nested_fib(), n - 1);
  auto b = pool.submit(nested_fib(), n - 2);
  return a.get() + b.get();
}

}  // namespace

ferry::function<long(int)> nested_fib() {
  return [](int n) { return fib_by_nested_tasks(n); };
}

ferry::function<std::string(std::string)> nested_catch() {
  return [](std::string kind) -> std::string {
    auto f = ferry::this_task::pool().submit(throw_std(), kind);
    try {
      f.get();
      return "nothing thrown";
    } catch (const std::exception& e) {
      return std::string("caught ") + e.what();
    }
  };
}

ferry::function<std::string(int)> nested_registered_catch() {
  return [](int line) -> std::string {
    ferry::register_exception<parse_error>();
    ferry::function<int(int)> parse = [](int n) -> int { throw parse_error("line " + std::to_string(n)); };
    auto f = ferry::this_task::pool().submit(parse, line);
    try {
      f.get();
      return "nothing thrown";
    } catch (const parse_error& e) {
      return std::string("parse_error: ") + e.what();
    } catch (const std::exception& e) {
      return std::string("another exception: ") + e.what();
    }
  };
}

ferry::function<int(std::string)> nested_rethrow() {
  return [](std::string kind) { return ferry::this_task::pool().submit(throw_std(), kind).get(); };
}

ferry::function<long(int)> nested_sum_of_squares() {
  return [](int n) {
    std::vector<int> inputs;
    for (int i = 1; i <= n; ++i) inputs.push_back(i);
    long sum = 0;
    for (long r : ferry::this_task::pool().map([](int x) { return static_cast<long>(x) * x; }, inputs, 3)) sum += r;
    return sum;
  };
}

ferry::function<long(int)> nested_zipped_products() {
  return [](int n) {
    std::vector<int> up;
    std::list<int> down;
    for (int i = 1; i <= n; ++i) {
      up.push_back(i);
      down.push_front(i);
    }
    long sum = 0;
    for (long r : ferry::this_task::pool().map([](int x, int y) { return static_cast<long>(x) * y; }, up, down, 3))
      sum += r;
    return sum;
  };
}

ferry::function<int(std::string, int)> wait_on_sleeper() {
  return [](std::string pid_file, int ms) {
    auto f = ferry::this_task::pool().submit(sleep_ms(), ms);
    {
      std::ofstream out(pid_file + ".tmp");
      out << ::getpid() << '\n';
    }
    std::rename((pid_file + ".tmp").c_str(), pid_file.c_str());
    return f.get();
  };
}

ferry::function<std::string()> nested_from_another_thread() {
  return []() -> std::string {
    ferry::nested_pool pool = ferry::this_task::pool();
    std::string what = "nothing thrown";
    std::thread([&] {
      try {
        pool.submit(add(), 1, 2);
      } catch (const ferry::error& e) {
        what = e.what();
      }
    }).join();
    return what;
  };
}

refusing::refusing(int) { throw std::invalid_argument("refusing"); }

ferry::actor<counter> make_counter(ferry::detail::pool_front& pool, int start, unsigned max_restarts) {
  return pool.make_actor<counter>(ferry::actor_options{.max_restarts = max_restarts}, start);
}

ferry::future<int> counter_add(const ferry::actor<counter>& c, int k) {
  return c.call([](counter& x, int by) { return x.n += by; }, k);
}

ferry::future<int> counter_slow_add(const ferry::actor<counter>& c, int ms) {
  return c.call(
      [](counter& x, int sleep) {
        std::this_thread::sleep_for(std::chrono::milliseconds(sleep));
        return ++x.n;
      },
      ms);
}

ferry::future<int> counter_pid(const ferry::actor<counter>& c) {
  return c.call([](counter&) { return static_cast<int>(::getpid()); });
}

ferry::future<std::string> counter_host(const ferry::actor<counter>& c) {
  return c.call([](counter&) {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return std::string(name);
  });
}

ferry::future<void> counter_crash(const ferry::actor<counter>& c) {
  return c.call([](counter&) { ::kill(::getpid(), SIGKILL); });
}

ferry::future<int> counter_fail(const ferry::actor<counter>& c) {
  return c.call([](counter&) -> int { throw std::runtime_error("counter refused"); });
}

namespace {

// What two exceptions differ in, or "" when they are the same.
std::string difference(const std::exception_ptr& here, const std::exception_ptr& there) {
  const auto describe = [](const std::exception_ptr& p) {
    try {
      std::rethrow_exception(p);
    } catch (const std::filesystem::filesystem_error& e) {
      return std::string(typeid(e).name()) + " | " + e.what() + " | " + e.code().category().name() + " " +
             std::to_string(e.code().value()) + " | " + e.path1().native() + " | " + e.path2().native();
    } catch (const std::system_error& e) {
      // libstdc++'s streams throw a subclass of ios_base::failure the
      // pool cannot name; what the caller catches is ios_base::failure.
      const bool stream = dynamic_cast<const std::ios_base::failure*>(&e) != nullptr;
      return std::string(stream ? "ios_base::failure" : typeid(e).name()) + " | " + e.what() + " | " +
             e.code().category().name() + " " + std::to_string(e.code().value());
    } catch (const std::bad_variant_access& e) {
      // std::get's own text ("std::get: wrong index for variant") goes
      // through a constructor only libstdc++ may call: the type arrives.
      return std::string(typeid(e).name());
    } catch (const std::exception& e) {
      return std::string(typeid(e).name()) + " | " + e.what();
    } catch (...) {
      return std::string("not a std::exception");
    }
  };
  const std::string a = describe(here), b = describe(there);
  return a == b ? "" : "here: " + a + "; from the pool: " + b;
}

}  // namespace

std::vector<std::string> standard_error_differences(ferry::detail::pool_front& pool) {
  namespace fs = std::filesystem;
  const std::vector<ferry::function<int()>> throwing{
      [] () -> int { throw std::system_error(ENOENT, std::generic_category(), "opening data.csv"); },
      [] () -> int { throw std::system_error(std::error_code(EACCES, std::system_category())); },
      [] { return static_cast<int>(fs::file_size("/nonexistent-ferry/data.csv")); },
      [] {
        fs::rename("/nonexistent-ferry/a", "/nonexistent-ferry/b");
        return 0;
      },
      [] () -> int { throw fs::filesystem_error("checking", std::make_error_code(std::errc::io_error)); },
      [] {
        std::ifstream in;
        in.exceptions(std::ios::failbit);
        in.open("/nonexistent-ferry/data.csv");
        return 0;
      },
      [] { return std::optional<int>().value(); },
      [] { return std::get<int>(std::variant<int, std::string>("text")); },
  };
  std::vector<std::string> out;
  for (const auto& f : throwing) {
    std::exception_ptr here, there;
    try {
      f();
    } catch (...) {
      here = std::current_exception();
    }
    try {
      pool.submit(f).get();
    } catch (...) {
      there = std::current_exception();
    }
    if (!here || !there) {
      out.push_back("did not throw " + std::string(here ? "in the pool" : "here"));
      continue;
    }
    out.push_back(difference(here, there));
  }
  out.push_back(std::to_string(throwing.size()) + " compared");
  return out;
}

namespace {

struct late_parse_error : parse_error {
  using parse_error::parse_error;
};

// What get() threw, as "<type caught>: <what>".
template <class F>
std::string outcome_of(F&& get) {
  try {
    get();
    return "no exception";
  } catch (const parse_error& e) {
    return typeid(e) == typeid(parse_error) ? "test_tasks::parse_error: " + std::string(e.what())
                                            : "a subclass of parse_error";
  } catch (const ferry::task_error& e) {
    return "ferry::task_error " + e.type_name() + ": " + e.message();
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
}

}  // namespace

std::vector<std::string> registered_exception_outcomes(ferry::detail::pool_front& pool) {
  ferry::function<int(int)> parse = [](int line) -> int { throw parse_error("line " + std::to_string(line)); };
  ferry::function<int(int)> late = [](int line) -> int { throw late_parse_error("line " + std::to_string(line)); };
  std::vector<std::string> out;
  out.push_back(outcome_of([&] { pool.submit(parse, 3).get(); }));
  ferry::register_exception<parse_error>();
  out.push_back(outcome_of([&] { pool.submit(parse, 4).get(); }));
  out.push_back(outcome_of([&] { pool.submit(late, 5).get(); }));
  return out;
}

std::vector<std::string> member_submits(ferry::detail::pool_front& pool) {
  const tagged_point a{1, 2, "a"}, b{3, 4, "b"};
  std::vector<std::string> out;
  out.push_back(std::to_string(pool.submit<&tagged_point::dot>(a, b).get()));
  out.push_back(std::to_string(pool.submit<&tagged_point::x>(tagged_point{7, 8, ""}).get()));
  out.push_back(pool.submit<&tagged_point::label>(tagged_point{0, 0, "p"}).get());
  out.push_back(std::to_string(pool.submit<&tagged_point::dot>(ferry::task_options{.name = "dot"}, a, b).get()));
  const std::vector<tagged_point> points{{1, 2, "a"}, {3, 4, "b"}, {0, 0, "c"}};
  std::string labels;
  for (const std::string& l : pool.map<&tagged_point::label>(points)) labels += l;
  out.push_back(labels);
  const std::vector<tagged_point> others{{5, 6, ""}, {7, 8, ""}};
  std::string dots;
  for (int d : pool.map<&tagged_point::dot>(std::vector<tagged_point>(points.begin(), points.begin() + 2), others))
    dots += (dots.empty() ? "" : " ") + std::to_string(d);
  out.push_back(dots);
  std::vector<int> xs(2);
  for (auto r : pool.map_unordered<&tagged_point::x>(std::vector<tagged_point>(points.begin(), points.begin() + 2), 1))
    xs[r.index] = r.value;
  out.push_back(std::to_string(xs[0]) + " " + std::to_string(xs[1]));
  std::string ys;
  for (int y : pool.map_ordered<&tagged_point::y>(std::vector<tagged_point>(points.begin(), points.begin() + 2),
                                                  ferry::map_options{.chunksize = 2}))
    ys += (ys.empty() ? "" : " ") + std::to_string(y);
  out.push_back(ys);
  return out;
}

std::string counter_member_calls(const ferry::actor<counter>& c, int k) {
  auto added = c.call<&counter::add>(k);
  auto renamed = c.call<&counter::rename>("ledger");
  auto label = c.call<&counter::label>();
  auto n = c.call<&counter::n>();
  auto step = c.call<&counted::step>();
  renamed.get();
  return std::to_string(added.get()) + " " + label.get() + " " + std::to_string(n.get()) + " " +
         std::to_string(step.get());
}

noting::~noting() { std::ofstream(path) << "destroyed"; }

ferry::actor<noting> make_noting(ferry::detail::pool_front& pool, const std::string& path) {
  return pool.make_actor<noting>(path);
}

ferry::future<int> noting_touch(const ferry::actor<noting>& n) {
  return n.call([](noting&) { return 1; });
}

ferry::actor<refusing> make_refusing(ferry::detail::pool_front& pool) { return pool.make_actor<refusing>(7); }

ferry::future<int> refusing_poke(const ferry::actor<refusing>& r) {
  return r.call([](refusing&) { return 1; });
}

}  // namespace test_tasks
