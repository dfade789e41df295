// Copyright ferry authors. pool_core's routing of actors' tasks
// (executor/actor.h): an actor's tasks leave the queue for its home, in
// the order made; its constructor call binds it to a worker, and its calls
// go to that worker alone, one running and a few small ones queued behind
// (as pipelining does); its drop, the last, ends the home. A worker that
// ends takes its actors with it: each is made again on another worker
// while restarts are left, and the calls it had not started run there;
// else they fail.
#include <algorithm>

#include <executor/errors.h>
#include "executor/pool/pool_core.h"

namespace ferry::detail {

void pool_core::take_actor_task(pool_task t, dispatch_pass& pass) {
  const auto [it, made] = actors_.try_emplace(t.actor.id);
  actor_home& home = it->second;
  if (made) home.restarts_left = t.actor.max_restarts;
  home.calls.push_back(std::move(t));
  if (send_actor_calls(home, pass)) actors_.erase(it);
}

void pool_core::send_all_actor_calls(dispatch_pass& pass) {
  if (actors_.empty()) return;
  bool cancelled = false;
  {
    mutex_lock lock(intake_.mu);
    cancelled = intake_.cancelled();
  }
  if (cancelled) fail_actor_calls(cancelled_by_shutdown(), false);
  for (auto it = actors_.begin(); it != actors_.end();)
    it = !it->second.calls.empty() && send_actor_calls(it->second, pass) ? actors_.erase(it) : std::next(it);
}

bool pool_core::send_actor_calls(actor_home& home, dispatch_pass& pass) {
  while (!home.calls.empty()) {
    pool_task& front = home.calls.front();
    const bool drop = front.actor.what == actor_route::part::drop;
    if (home.death || (drop && home.worker == nullptr)) {
      // Gone, or never made: nothing of it runs. Its drop ends the home.
      pool_task t = std::move(front);
      home.calls.pop_front();
      if (drop) {
        t.state->fail(std::make_exception_ptr(cancelled_error()));
        return true;
      }
      t.state->fail(home.death);
      continue;
    }
    worker_slot* w = home.worker;
    if (w == nullptr && front.actor.what != actor_route::part::make) {
      // Its constructor call never came: it failed before it was queued.
      home.death = actor_never_made();
      continue;
    }
    if (w == nullptr) {
      // Its make: to an idle worker, one holding no actor first, else a
      // worker started for it.
      for (const auto& x : workers_)
        if (x->state() == worker_slot::phase::idle && (w == nullptr || x->hosts_actors() < w->hosts_actors()))
          w = x.get();
      if (w == nullptr) {
        const bool starting = std::any_of(workers_.begin(), workers_.end(), [](const auto& x) {
          return x->state() == worker_slot::phase::starting;
        });
        if (!starting && live_workers() < max_workers_ && retry_.may_start(dispatched_at_)) start_worker();
        return false;
      }
    } else if (w->state() != worker_slot::phase::idle &&
               !may_queue_behind(*w, front, w->pipeline_depth(clock::now()))) {
      return false;  // its worker runs something and cannot queue this behind it
    }
    pool_task t = std::move(front);
    home.calls.pop_front();
    if (!t.started && !t.state->start()) continue;  // cancelled meanwhile
    t.started = true;
    const bool make = t.actor.what == actor_route::part::make;
    if (make) {
      if (home.restarts_left != 0) home.make_body = t.body;
      home.worker = w;
      w->host_actor();
    }
    std::optional<pool_task> back = send_to(*w, std::move(t), pass);
    if (back) {
      // Its channel broke: the worker is ending, and its exit decides.
      home.calls.push_front(std::move(*back));
      if (make) {
        home.worker = nullptr;
        w->release_actor();
      }
      return false;
    }
    if (drop) {
      w->release_actor();
      return true;
    }
  }
  return false;
}

void pool_core::return_to_homes(std::deque<pool_task>& tasks) {
  std::deque<pool_task> others;
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) {
    const auto home = it->actor.what == actor_route::part::none ? actors_.end() : actors_.find(it->actor.id);
    if (home == actors_.end()) {
      others.push_front(std::move(*it));
      continue;
    }
    actor_home& h = home->second;
    if (it->actor.what == actor_route::part::make && h.worker != nullptr) {
      h.worker->release_actor();
      h.worker = nullptr;
    }
    h.calls.push_front(std::move(*it));
  }
  tasks.swap(others);
}

void pool_core::lose_actors(worker_slot& w, const std::exception_ptr& why) {
  for (auto& [id, home] : actors_) {
    if (home.worker != &w) continue;
    home.worker = nullptr;
    w.release_actor();
    // Made again from its constructor call's message, as a task of its
    // own (told to the observer as submitted), ahead of its calls; not
    // once shutdown cancelled what was pending.
    pool_task make;
    make.body = home.make_body;
    make.state = make_future_state();
    make.actor = {id, actor_route::part::make};
    if (home.restarts_left != 0) {
      mutex_lock lock(intake_.mu);
      if (!intake_.cancelled()) {
        make.id = intake_.admit(true);
        tell_task(observer(), task_event::kind::submitted, {.id = make.id, .items = 1});
      }
    }
    if (make.id == 0) {
      home.death = why;
      continue;
    }
    --home.restarts_left;
    home.calls.push_front(std::move(make));
  }
}

void pool_core::fail_actor_calls(const std::exception_ptr& error, bool unbound_only) {
  for (auto& [id, home] : actors_) {
    if (unbound_only && home.worker != nullptr) continue;
    for (pool_task& t : home.calls) t.state->fail(error);
    home.calls.clear();
  }
}

bool pool_core::cancel_actor_call(std::uint64_t id) {
  for (auto& [actor, home] : actors_) {
    const auto it = std::find_if(home.calls.begin(), home.calls.end(), [&](const pool_task& t) { return t.id == id; });
    if (it == home.calls.end()) continue;
    pool_task t = std::move(*it);
    home.calls.erase(it);
    t.state->fail(std::make_exception_ptr(cancelled_error()));
    return true;
  }
  return false;
}

}  // namespace ferry::detail
