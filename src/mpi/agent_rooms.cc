// Copyright ferry authors.
#include "mpi/agent_rooms.h"

namespace ferry::detail::mpi {
namespace {

std::int64_t room(std::size_t limit, std::size_t in_flight) {
  return static_cast<std::int64_t>(limit) - static_cast<std::int64_t>(in_flight);
}

}  // namespace

agent_rooms::agent_rooms(std::size_t count) : agents_(count) {
  for (std::size_t i = 0; i < count; ++i) list(i);
}

void agent_rooms::unlist(std::size_t agent) {
  const counts& c = agents_[agent];
  if (c.lost) return;
  by_window_.erase({room(c.window, c.in_flight), agent});
  by_floor_.erase({room(c.floor, c.in_flight), agent});
}

void agent_rooms::list(std::size_t agent) {
  const counts& c = agents_[agent];
  if (c.lost) return;
  by_window_.insert({room(c.window, c.in_flight), agent});
  by_floor_.insert({room(c.floor, c.in_flight), agent});
}

void agent_rooms::set_limits(std::size_t agent, std::size_t floor, std::size_t window) {
  // Sampled every millisecond for every agent, mostly unchanged.
  if (agents_[agent].floor == floor && agents_[agent].window == window) return;
  unlist(agent);
  agents_[agent].floor = floor;
  agents_[agent].window = window;
  list(agent);
}

void agent_rooms::set_lost(std::size_t agent) {
  unlist(agent);
  agents_[agent].lost = true;
}

void agent_rooms::add(std::size_t agent) {
  unlist(agent);
  ++agents_[agent].in_flight;
  ++total_;
  list(agent);
}

void agent_rooms::remove(std::size_t agent, std::size_t n) {
  if (n == 0) return;
  unlist(agent);
  agents_[agent].in_flight -= n;
  total_ -= n;
  list(agent);
}

std::optional<std::size_t> agent_rooms::choose(bool small) const {
  const ordered& o = small ? by_window_ : by_floor_;
  if (o.empty() || o.begin()->first <= 0) return std::nullopt;
  return o.begin()->second;
}

}  // namespace ferry::detail::mpi
