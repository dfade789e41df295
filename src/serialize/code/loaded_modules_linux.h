// Copyright ferry authors. Internal: the Linux calls that list this process's
// loaded modules (dl_iterate_phdr) and name its executable (/proc/self/exe).
//
// Thread-safety: every call here may be made from any thread. glibc does not
// reset the lock dl_iterate_phdr holds when another thread forks meanwhile,
// so each walk is made under a mutex that fork_guard.h takes around fork().
#ifndef FERRY_SRC_SERIALIZE_CODE_LOADED_MODULES_LINUX_H_
#define FERRY_SRC_SERIALIZE_CODE_LOADED_MODULES_LINUX_H_

#include <cstdint>
#include <functional>
#include <string>

namespace ferry::detail {

// One loaded object as the dynamic loader reports it.
struct loaded_object {
  std::uintptr_t base = 0;     // dlpi_addr: 0 for a non-PIE executable
  std::string path;            // the executable's is resolved through /proc/self/exe
  std::string build_id;        // raw bytes of its GNU build-id note in memory; may be empty
  bool main_program = false;   // the first object: this process's executable
};

// A view of one object during a walk, cheap to ask before building a
// loaded_object (most objects are ruled out by their build-id alone).
class object_view {
 public:
  virtual ~object_view() = default;
  virtual std::string build_id() const = 0;
  virtual bool contains(std::uintptr_t address) const = 0;  // in one of its PT_LOAD segments
  virtual loaded_object describe() const = 0;
};

// Calls fn for each loaded object, the executable first, until it returns
// true; returns whether one did.
bool for_each_loaded_object(const std::function<bool(const object_view&)>& fn);

// Changes whenever an object is loaded or unloaded (dl_iterate_phdr's
// dlpi_adds and dlpi_subs counters).
std::uint64_t load_generation();

// The file of this process's executable (the target of /proc/self/exe):
// dladdr reports it as typed on the command line, which another process
// cannot use.
const std::string& executable_path();

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CODE_LOADED_MODULES_LINUX_H_
