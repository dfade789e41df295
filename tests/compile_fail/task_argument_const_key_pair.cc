// Copyright ferry authors.
//
// Must not compile: a task whose parameter is a std::map's element type,
// std::pair<const K, V>, as its ferry::function says: the key, const,
// cannot be loaded in the worker. (A lambda given such elements receives
// them as std::pair<K, V>, and compiles.)
#include <map>
#include <string>
#include <utility>

#include <executor/executor.h>

int main() {
  ferry::process_pool pool;
  const ferry::function<int(std::pair<const std::string, int>)> f = [](std::pair<const std::string, int> kv) {
    return kv.second;
  };
  const std::map<std::string, int> m{{"a", 1}};
  return pool.submit(f, *m.begin()).get();
}
