// Copyright ferry authors.
//
// Actors (ferry::actor): an object living in one worker, called in order
// from several threads, and made again after its worker dies.
// docs/api/executor.md quotes the regions between "[snippet:NAME]" and
// "[end]"; the test suite runs this program and compares its output with
// actors.expected.
#include <csignal>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <executor/executor.h>

// [snippet:account]
// Lives in a worker: never serialized, and no registration.
class account {
 public:
  explicit account(std::string owner) : owner_(std::move(owner)) {}
  long deposit(long amount) { return balance_ += amount; }
  std::string statement() const { return owner_ + ": " + std::to_string(balance_); }

 private:
  std::string owner_;
  long balance_ = 0;
};
// [end]

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);

  // [snippet:actors]
  ferry::process_pool pool({.max_workers = 2});
  ferry::actor<account> acct = pool.make_actor<account>(std::string("ada"));

  // Four threads deposit at once: the calls run one at a time, each counted once.
  std::vector<std::thread> clerks;
  for (int i = 0; i < 4; ++i)
    clerks.emplace_back([&] {
      for (int k = 0; k < 100; ++k) acct.call([](account& a, long v) { return a.deposit(v); }, 1L);
    });
  for (auto& t : clerks) t.join();
  std::cout << acct.call([](account& a) { return a.statement(); }).get() << "\n";  // ada: 400

  // A member, named as a template argument, is called as the lambdas above are.
  acct.call<&account::deposit>(50L);
  std::cout << acct.call<&account::statement>().get() << "\n";  // ada: 450
  // [end]

  // [snippet:restart]
  // Made again from its constructor's arguments if its worker dies.
  auto kept = pool.make_actor<account>(ferry::actor_options{.max_restarts = 1}, std::string("bob"));
  kept.call([](account& a) { return a.deposit(10); }).get();
  auto crash = kept.call([](account&) { ::kill(::getpid(), SIGKILL); });
  try {
    crash.get();
  } catch (const ferry::worker_died_error&) {
    std::cout << "worker died\n";
  }
  std::cout << kept.call([](account& a) { return a.statement(); }).get() << "\n";  // bob: 0
  // [end]
}
