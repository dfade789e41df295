// Copyright ferry authors. The table of a process's actor objects
// (executor/internal/actor_parts.h): in a worker, the objects of the
// actors bound to it; with start_method::in_process, those of the pool's
// in-process workers, which share the one process.
#include <executor/internal/actor_parts.h>

#include <map>
#include <string>

#include <executor/errors.h>
#include "internal/mutex.h"
#include "serialize/code/demangle.h"

namespace ferry::detail {
namespace {

struct actor_object {
  std::shared_ptr<void> object;
  const std::type_info* type = nullptr;
  std::exception_ptr failure;  // its constructor's, instead of an object
};

struct actor_table {
  mutex mu;
  std::map<std::uint64_t, actor_object> objects ABSL_GUARDED_BY(mu);
};

actor_table& table() {
  // Never destroyed: a worker's exit must not run the objects' destructors
  // after the library's other statics are gone.
  static auto* t = new actor_table;
  return *t;
}

}  // namespace

void put_actor_object(std::uint64_t id, std::shared_ptr<void> object, const std::type_info& type) {
  actor_table& t = table();
  mutex_lock lock(t.mu);
  if (!t.objects.try_emplace(id, actor_object{std::move(object), &type, nullptr}).second)
    throw error("ferry: actor " + std::to_string(id) + " was made twice in this worker");
}

void put_actor_failure(std::uint64_t id, std::exception_ptr error) {
  actor_table& t = table();
  mutex_lock lock(t.mu);
  t.objects.try_emplace(id, actor_object{nullptr, nullptr, std::move(error)});
}

void* find_actor_object(std::uint64_t id, const std::type_info& type) {
  actor_table& t = table();
  mutex_lock lock(t.mu);
  const auto it = t.objects.find(id);
  if (it == t.objects.end())
    throw error("ferry: actor " + std::to_string(id) +
                " has no object in this worker (was it made on another pool?)");
  if (it->second.failure) std::rethrow_exception(it->second.failure);
  if (*it->second.type != type)
    throw error("ferry: actor " + std::to_string(id) + " holds a " + demangle(it->second.type->name()) +
                ", not a " + demangle(type.name()));
  return it->second.object.get();
}

void drop_actor_object(std::uint64_t id) {
  std::shared_ptr<void> gone;  // destroyed after the lock is let go
  actor_table& t = table();
  mutex_lock lock(t.mu);
  const auto it = t.objects.find(id);
  if (it == t.objects.end()) return;
  gone = std::move(it->second.object);
  t.objects.erase(it);
}

}  // namespace ferry::detail
