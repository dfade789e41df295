// Copyright ferry authors. Internal: which agent rank 0 gives the next task
// (agent_rooms.cc).
//
// An agent may hold up to its window of small tasks and its floor of large
// ones (mpi_core.h says how both are set); the next task goes to the agent
// with the most room left, the lowest index on a tie. Kept ordered so that
// a choice, and each change of a count or limit, costs O(log agents): rank
// 0's manager makes one per task, and the tasks a job runs grow with its
// hosts, so a scan over every agent per task would cost rank 0 the square
// of the hosts (docs/performance.md, "Many hosts").
//
// Thread-safety: none; rank 0's turns use it, one thread at a time (mpi_core.h).
#ifndef FERRY_SRC_MPI_AGENT_ROOMS_H_
#define FERRY_SRC_MPI_AGENT_ROOMS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace ferry::detail::mpi {

class agent_rooms {
 public:
  // Agents 0 .. count-1, each with no room until set_limits.
  explicit agent_rooms(std::size_t count);

  void set_limits(std::size_t agent, std::size_t floor, std::size_t window);
  // Never chosen again; its counts still change as its tasks are failed.
  void set_lost(std::size_t agent);
  void add(std::size_t agent);  // one more task in flight
  // Precondition: n <= in_flight(agent).
  void remove(std::size_t agent, std::size_t n = 1);

  std::size_t in_flight(std::size_t agent) const { return agents_[agent].in_flight; }
  std::size_t in_flight() const { return total_; }  // over every agent

  // The agent with the most room for a small task (under its window) or a
  // large one (under its floor); none when every agent is full or lost.
  std::optional<std::size_t> choose(bool small) const;

 private:
  struct counts {
    std::size_t floor = 0;
    std::size_t window = 0;
    std::size_t in_flight = 0;
    bool lost = false;
  };
  // (room, agent), most room first, then the lowest agent.
  struct most_room_first {
    bool operator()(const std::pair<std::int64_t, std::size_t>& a,
                    const std::pair<std::int64_t, std::size_t>& b) const {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    }
  };
  using ordered = std::set<std::pair<std::int64_t, std::size_t>, most_room_first>;

  void unlist(std::size_t agent);
  void list(std::size_t agent);

  std::vector<counts> agents_;
  ordered by_window_;  // the agents not lost, by room under their window
  ordered by_floor_;   // and under their floor
  std::size_t total_ = 0;
};

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_AGENT_ROOMS_H_
