// Copyright ferry authors.
//
// Tasks for the executor tests. They live in a shared library so that
// plugin workers (ferry-worker), which never linked it, can load them.
#ifndef FERRY_TESTS_EXECUTOR_TEST_TASKS_H_
#define FERRY_TESTS_EXECUTOR_TEST_TASKS_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <executor/actor.h>
#include <executor/internal/pool_front.h>
#include <serialize/closure.h>
#include <serialize/function.h>
#include <serialize/shared_buffer.h>

namespace test_tasks {

ferry::function<int(int, int)> add();                           // capture-less lambda
ferry::function<int(int)> scale(int k);                          // ferry::bitwise
ferry::function<std::string(const std::string&)> greet(std::string greeting);  // ferry::closure
ferry::function<double()> sum(std::vector<double> values);       // local aggregate
ferry::function<int(int)> negate_pointer();                      // function pointer
// Plain functions for programs to wrap pointers to in their own code. The
// library itself wraps pointers of triple's signature (negate_pointer) but
// of none of halve's.
int triple(int x);
double halve(double x);
// A closure made by an inline function of this header, which the library
// and the test programs compile alike; the library's own copy is
// header_closure_from_library.
inline ferry::function<int(int)> header_closure(int k) {
  return ferry::closure([](int factor, int x) { return factor * x + 1; }, k);
}
ferry::function<int(int)> header_closure_from_library(int k);
ferry::function<int(int)> offset_by(int k);                      // class with cereal serialize
ferry::function<int(ferry::function<int(int)>)> apply_to_one();  // g(1)
// Types whose cereal functions fail in chosen places: saving in the pool,
// loading in the worker, saving the result in the worker, loading it in
// the pool.
struct fragile {
  int fail_when = 0;  // 1 save in pool, 2 load in worker, 3 save result, 4 load result
  bool in_worker = false;
  template <class Archive>
  void save(Archive& ar) const;
  template <class Archive>
  void load(Archive& ar);
};
ferry::function<fragile(fragile)> pass_fragile();
ferry::function<int(std::string)> exit_with();                   // "exit0", "_exit0", "_exit42"
ferry::function<int(int)> close_descriptors();                    // closes every descriptor above 2
ferry::function<int()> throw_nested();
ferry::function<int(int)> keep_megabytes();                      // allocates and keeps n MiB
ferry::function<void(int)> discard();                            // void result
ferry::function<int(std::string)> throw_std();                   // throws the named std type
ferry::function<int()> throw_custom();                           // test_tasks::custom_error
ferry::function<int()> throw_int();                              // throw 42
ferry::function<int(std::string)> crash();                       // abort, segv, null, exit3
ferry::function<int(std::string)> abort_holding();               // aborts, its argument still mapped
// Writes text on stdout (how 1), stderr (2), stdout then dies by SIGKILL
// (3), stdout without a newline (4); returns its pid.
ferry::function<int(std::string, int)> print();
// Dies by SIGKILL the first time it is called with a path (which it then
// creates), returns 1 after.
ferry::function<int(std::string)> die_once();
ferry::function<int(int)> sleep_ms();                            // sleeps, returns its pid
// Notes when it started (std::chrono::steady_clock, the same clock in every
// process of the machine, in nanoseconds), sleeps that many milliseconds,
// returns the time it noted.
ferry::function<std::int64_t(int)> started_at();
ferry::function<int(int)> abort_after_ms();                       // sleeps, then aborts
// Until asked to stop (ferry::this_task::stop_requested), for at most that
// many milliseconds: 1 if it was asked, 0 if the time ran out.
ferry::function<int(int)> poll_until_stopped();
// The same, told by a std::stop_callback on ferry::this_task::get_stop_token().
ferry::function<int(int)> wait_for_stop_callback();
// started_at's, but it first creates the file `mark` names, so that a test
// knows it is running.
ferry::function<std::int64_t(std::string, int)> mark_then_sleep();
ferry::function<int()> spin_forever();
ferry::function<int()> pid();
// The pid of the worker's parent: the pool's process, or an MPI agent.
ferry::function<int()> parent_pid();
// Counts its runs in the file at `path`: the first `deaths` runs SIGKILL
// their worker, the next `throws` throw std::runtime_error, later ones
// return the run's number (1, 2, ...).
ferry::function<int(std::string, int, int)> fail_first();
ferry::function<std::string(std::string)> getenv();
ferry::function<void()> initializer();                           // sets a flag read by
ferry::function<bool()> initialized();                           // this one
ferry::function<void()> failing_initializer();                   // throws "no database"
ferry::function<void()> aborting_initializer();                  // calls std::abort(), as a failed assert
ferry::function<void()> slow_start_while(std::string path);      // sleeps 2 s while the file exists
ferry::function<std::string(std::string)> echo();
ferry::function<std::size_t(std::string)> length();
ferry::function<std::string(std::size_t)> make_string();          // n times 'x' 
ferry::function<std::string()> nested_pool();                    // tries to make a pool
ferry::function<int(int)> child_exit_status();                   // forks, waits its child
ferry::function<int()> exhaust_memory();                         // aborts under RLIMIT_AS
// Fault injection from inside a worker, on its socket to the pool:
// "garbage" writes bytes that are no message, "forged" a well-formed result
// without the key, "partial_then_die" part of a result header and then
// SIGKILLs itself, "shutdown" shuts the socket down, "die" SIGKILLs itself
// after its work. Each but "shutdown" then sleeps until killed.
ferry::function<int(std::string)> sabotage();
// Programs a task runs must not hold the worker's channel to the pool:
// exec_program replaces the worker with `program 1000` (/bin/sleep, say);
// shell_descriptors runs `sh -c` listing what the shell's descriptors point
// at, then the worker's socket ("socket:[inode]") on the last line;
// spawn_lingering starts `/bin/sleep 30`, leaves it running, and returns
// "pid socket:[inode]" (the grandchild is the caller's to kill).
ferry::function<int(std::string)> exec_program();
ferry::function<std::string()> shell_descriptors();
ferry::function<std::string()> spawn_lingering();
// Ctrl-C at a terminal, as it reaches a worker (SIGINT to its process):
// interrupted_then_pid raises SIGINT in its worker, sleeps `ms`, and
// returns the worker's pid; interrupted_shell runs `sh -c` that sends
// SIGINT to itself and returns the signal that ended the shell (0: none;
// -1 for a shell that ran on for 10 s and was killed).
ferry::function<int(int)> interrupted_then_pid();
// The worker's working directory.
ferry::function<std::string()> working_directory();
// The signals blocked in the worker's thread that runs the task.
ferry::function<std::vector<int>()> blocked_signals();
// What the worker's stdin gives within 5 s: "<end>" at its end, what it
// read, or "<nothing>" if nothing came.
ferry::function<std::string()> read_stdin();
ferry::function<int()> interrupted_shell();
// make_string in a worker that cannot use shared memory (RLIMIT_FSIZE 0).
ferry::function<std::string(std::size_t)> make_string_without_shared_memory();
// Shared buffers (docs/api/shared_buffer.md): fill_buffer sets every byte
// to `value` and returns the sum of the bytes it found; echo_buffer returns
// its argument; make_buffers returns `count` new buffers of `size` bytes,
// each filled with its index + 1; fill_then_crash fills with 0xAB, then
// aborts; count_buffers returns how many it was given.
ferry::function<std::uint64_t(ferry::shared_buffer, int)> fill_buffer();
ferry::function<ferry::shared_buffer(ferry::shared_buffer)> echo_buffer();
ferry::function<std::vector<ferry::shared_buffer>(std::size_t, std::size_t)> make_buffers();
ferry::function<int(ferry::shared_buffer)> fill_then_crash();
ferry::function<std::size_t(std::vector<ferry::shared_buffer>)> count_buffers();

// Tasks that submit tasks (ferry::this_task::pool()): nested_fib(n) is
// fib(n) computed by a nested task per call; nested_catch submits
// throw_std()(kind) and returns "caught " + what() of the std::exception
// its get() threw; nested_rethrow lets it out; nested_sum_of_squares maps
// x * x over 1..n nested; nested_zipped_products zips 1..n with n..1 in a
// nested map and sums x * y; wait_on_sleeper writes its pid to `pid_file`,
// then waits for a nested sleep_ms()(ms); nested_from_another_thread
// submits from a thread of its own and returns what that threw.
ferry::function<long(int)> nested_fib();
ferry::function<std::string(std::string)> nested_catch();
ferry::function<int(std::string)> nested_rethrow();
ferry::function<long(int)> nested_sum_of_squares();
ferry::function<long(int)> nested_zipped_products();
ferry::function<int(std::string, int)> wait_on_sleeper();
ferry::function<std::string()> nested_from_another_thread();

// Actors (executor/actor.h), made and called here so that a plugin
// worker finds their code in this library: a counter starting at `start`;
// add(k) returns its count after adding k; pid() its worker's pid, host()
// its host name;
// crash() kills its worker (SIGKILL); fail() throws std::runtime_error
// "counter refused"; slow_add(ms) sleeps ms, then adds 1. A refusing
// actor's constructor throws std::invalid_argument("refusing"). A counter
// made with make_counter_in_main_program() has its code in the program.
struct counted {
  int step() const { return 1; }  // a member of a base, for call<&counted::step>()
};
struct counter : counted {
  explicit counter(int start) : n(start) {}
  // For calls that name a member (call<&counter::add>(k)).
  int add(int k) { return n += k; }
  const std::string& label() const { return name; }  // by reference
  void rename(std::string to) { name = std::move(to); }
  int n;
  std::string name = "counter";
};
struct refusing {
  explicit refusing(int);
};
// Iterating a std::map gives std::pair<const K, V>, whose key cannot be
// loaded: these map over one and submit its first element, with lambdas of
// this library taking the element as iterating gives it (by const
// reference, by value, and as const auto&), and return "key=value" of
// each, in order.
std::vector<std::string> map_over_std_map(ferry::detail::pool_front& pool, const std::map<std::string, int>& m);
std::vector<std::string> submit_std_map_element(ferry::detail::pool_front& pool, const std::map<std::string, int>& m);

// A string literal, another C string or a std::string_view argument
// travels as the std::string of its text. This submits a literal plainly
// ("hello" to a task taking const std::string&: "hello 5"), a char* with
// task_options and retries, the caller's buffer it pointed into then
// overwritten ("buffer?": the text was copied at the call), a literal
// beside a future ("zzz"), maps over a std::vector<const char*> ("a",
// "bb", "ccc": "1 2 3"), makes an actor from a literal and calls it with
// one ("actor-call"), and submits a std::string_view with task_options,
// what it viewed then overwritten ("viewed!"), with lambdas of this
// library taking std::string, const std::string& or std::string_view;
// returns each result, in that order.
std::vector<std::string> c_string_arguments(ferry::detail::pool_front& pool);
// What get() throws for a task whose argument is a null const char*.
std::exception_ptr null_c_string_argument(ferry::detail::pool_front& pool);

// map over several ranges zips them, as Python's map(f, a, b) does. This
// maps, with lambdas of this library: two vectors of different lengths
// (products "4 10 18": the shortest ends the map); a vector, a std::list of
// strings and a braced-in vector of doubles, chunk size 1 ("1a0.5 2b1.5
// 3c2.5"); map_ordered over an endless std::views::iota beside a vector,
// map_options{.chunksize = 2} ("100 103 106"); map_unordered over a
// single-pass std::views::istream beside a std::vector<const char*>, put
// back in input order ("7x 8y 9z"); with retries, whose chunks keep their
// inputs, a std::vector<const char*> beside a vector ("p1 q2"); a
// ferry::function of two parameters ("9 18 27"); an empty range beside a
// vector ("0 results"); returns each line, in that order.
std::vector<std::string> zipped_maps(ferry::detail::pool_front& pool);

// submit<&S::f>(object, args...) runs a member of an object that travels,
// and map<&S::f>(objects, ...) maps one. This submits, with members of
// tagged_point: dot({1, 2}, {3, 4}) ("11"), the field x of {7, 8} ("7"),
// label() of one tagged "p" (a reference: its copy comes back), and dot
// with task_options ("11"); then maps label() over points tagged "a", "b"
// and "c" ("abc"), dot zipping {1, 2} and {3, 4} with {5, 6} and {7, 8}
// ("17 53"), map_unordered of x with chunk size 1, put back in order
// ("1 3"), and map_ordered of y with map_options ("2 4"); returns each,
// in that order.
struct tagged_point {
  int x = 0;
  int y = 0;
  std::string tag;
  int dot(const tagged_point& o) const { return x * o.x + y * o.y; }
  const std::string& label() const { return tag; }
};
std::vector<std::string> member_submits(ferry::detail::pool_front& pool);

// A program's own exception type, for ferry::register_exception.
struct parse_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// What get() throws for a task throwing parse_error("line " + n), before
// ferry::register_exception<parse_error>() is called in this process and
// after (the call is made here, between the two): each as "<type caught>:
// <what>", e.g. "ferry::task_error test_tasks::parse_error: line 3" then
// "test_tasks::parse_error: line 4". Also a task throwing a subclass of
// parse_error after the call: a task_error still ("ferry::task_error ...").
std::vector<std::string> registered_exception_outcomes(ferry::detail::pool_front& pool);
// A task that calls ferry::register_exception<parse_error>() in its worker,
// where it reads its nested task's result, then submits a nested task
// throwing parse_error("line " + n) and returns what its get() threw:
// "parse_error: line 7" for 7.
ferry::function<std::string(int)> nested_registered_catch();

// The standard exceptions that carry more than a message keep it: each of
// these tasks, with lambdas of this library, throws one: a
// std::system_error with text (generic category) and without (system
// category), a filesystem_error of file_size on a missing file (one path)
// and of rename between two (two paths) and one made with none, a
// std::ios_base::failure from an ifstream (libstdc++'s own subclass),
// std::bad_optional_access and std::bad_variant_access. Each runs here,
// then in the pool; returns each difference between the two exceptions
// (type, what(), code, path1, path2; bad_variant_access's type alone, as
// std::get's text cannot be rebuilt), "" for none, and a last line with
// the count: "8 compared".
std::vector<std::string> standard_error_differences(ferry::detail::pool_front& pool);

// A std::filesystem::path travels as its text, a directory_entry as its
// path. In `dir`, which holds files f1 (10 bytes) and f2 (20 bytes) and a
// directory sub, with lambdas of this library: submits dir / "f1" ("f1",
// its file name); maps over a std::vector of f1 and f2 ("10 20", their
// sizes); maps over std::filesystem::directory_iterator(dir) with a task
// taking a path ("f1 f2 sub", the names, sorted) and one taking the entry
// ("2 regular files", the entry asking the file system in the worker);
// zips paths with ints ("f1:1 f2:2"); returns a path from a task
// ("f2.txt"); returns each line, in that order.
std::vector<std::string> filesystem_arguments(ferry::detail::pool_front& pool, const std::filesystem::path& dir);

ferry::actor<counter> make_counter(ferry::detail::pool_front& pool, int start, unsigned max_restarts = 0);
ferry::future<int> counter_add(const ferry::actor<counter>& c, int k);
ferry::future<int> counter_slow_add(const ferry::actor<counter>& c, int ms);
ferry::future<int> counter_pid(const ferry::actor<counter>& c);
ferry::future<std::string> counter_host(const ferry::actor<counter>& c);  // its worker's host name
ferry::future<void> counter_crash(const ferry::actor<counter>& c);
ferry::future<int> counter_fail(const ferry::actor<counter>& c);
// Calls that name a member, as call<&counter::add>(k) does: add(k), then
// rename("ledger") given a string literal, then label() (a reference: its
// copy comes back), then the field n, then the base's step(); returns
// "<add's count> <label> <n> <step>": "5 ledger 5 1" for a counter at 0
// and k = 5.
std::string counter_member_calls(const ferry::actor<counter>& c, int k);
ferry::actor<refusing> make_refusing(ferry::detail::pool_front& pool);
// An actor whose destructor writes "destroyed" to `path`; touch() returns 1.
struct noting {
  explicit noting(std::string path) : path(std::move(path)) {}
  ~noting();
  noting(const noting&) = delete;
  noting& operator=(const noting&) = delete;
  std::string path;
};
ferry::actor<noting> make_noting(ferry::detail::pool_front& pool, const std::string& path);
ferry::future<int> noting_touch(const ferry::actor<noting>& n);
ferry::future<int> refusing_poke(const ferry::actor<refusing>& r);

}  // namespace test_tasks

#endif  // FERRY_TESTS_EXECUTOR_TEST_TASKS_H_
