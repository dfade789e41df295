// Copyright ferry authors.
//
// Watching a pool: events, workers' output, a crash report, a timeline.
// docs/api/executor.md quotes the regions between "[snippet:NAME]" and
// "[end]"; the test suite runs this program and compares its output with
// observe.expected.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <executor/executor.h>

// [snippet:observer]
// Counts what the pool tells; called from several threads, so atomic.
struct counter : ferry::pool_observer {
  std::atomic<int> finished{0}, workers{0};
  void on_task(const ferry::task_event& e) override {
    if (e.what == ferry::task_event::kind::finished) ++finished;
  }
  void on_worker(const ferry::worker_event& e) override {
    if (e.what == ferry::worker_event::kind::started) ++workers;
  }
};
// [end]

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  {
    // [snippet:events]
    auto seen = std::make_shared<counter>();
    ferry::pool_options options;
    options.max_workers = 2;
    options.observer = seen;
    ferry::process_pool pool(options);
    pool.map([](int x) { return x + 1; }, std::vector<int>{1, 2, 3}, 1);
    pool.shutdown();  // every event has been told once it returns
    std::cout << seen->finished << " tasks finished\n";  // 3 tasks finished
    // [end]
  }

  {
    // [snippet:output]
    std::mutex mu;
    std::vector<std::string> said;
    ferry::pool_options options;
    options.max_workers = 1;
    options.on_output = [&](const ferry::output_line& line) {
      std::lock_guard lock(mu);
      said.push_back((line.stream == 1 ? "out: " : "err: ") + std::string(line.text));
    };
    ferry::process_pool pool(options);
    pool.submit([] {
      std::cout << "hello" << std::endl;
      std::cerr << "careful" << std::endl;
    }).get();
    for (const std::string& s : said) std::cout << s << "\n";  // out: hello, then err: careful
    // [end]
  }

  {
    ferry::process_pool pool({.max_workers = 1});
    // [snippet:crash]
    auto bad = pool.submit([] { return std::raise(SIGSEGV); });  // as a bad pointer would
    try {
      bad.get();
    } catch (const ferry::worker_died_error& e) {
      // e.what() ends with the first frames of the task's stack.
      if (e.crash())
        std::cout << "signal " << e.crash()->signal << ", " << (e.crash()->frames.empty() ? "no" : "a")
                  << " stack\n";  // signal 11, a stack
    }
    // [end]
  }

  {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ferry_observe_example";
    std::filesystem::create_directories(dir);
    // [snippet:trace]
    ferry::pool_options options;
    options.trace = dir / "run.json";  // and run.html beside it
    {
      ferry::process_pool pool(options);
      pool.map([](int x) { return x * x; }, std::vector<int>{1, 2, 3, 4});
    }  // written when the pool has shut down
    std::cout << (std::filesystem::exists(dir / "run.html") ? "timeline written" : "no timeline") << "\n";
    // [end]
    std::filesystem::remove_all(dir);
  }
  return 0;
}
