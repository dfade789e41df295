// Copyright ferry authors.
#include "mpi/agent_rooms.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

namespace ferry::detail::mpi {
namespace {

TEST(AgentRooms, TheAgentWithTheMostRoomIsChosenAndTheLowestOnATie) {
  agent_rooms rooms(3);
  rooms.set_limits(0, 2, 4);
  rooms.set_limits(1, 2, 4);
  rooms.set_limits(2, 2, 8);
  EXPECT_EQ(rooms.choose(true), 2u);   // window 8
  EXPECT_EQ(rooms.choose(false), 0u);  // floors equal: the lowest
  rooms.add(0);
  EXPECT_EQ(rooms.choose(false), 1u);
  EXPECT_EQ(rooms.in_flight(), 1u);
  EXPECT_EQ(rooms.in_flight(0), 1u);
}

TEST(AgentRooms, LargeTasksStopAtTheFloorAndSmallOnesAtTheWindow) {
  agent_rooms rooms(1);
  rooms.set_limits(0, 1, 3);
  rooms.add(0);
  EXPECT_EQ(rooms.choose(false), std::nullopt);
  EXPECT_EQ(rooms.choose(true), 0u);
  rooms.add(0);
  rooms.add(0);
  EXPECT_EQ(rooms.choose(true), std::nullopt);
  rooms.set_limits(0, 1, 2);  // a window that shrank below what is in flight
  EXPECT_EQ(rooms.choose(true), std::nullopt);
  rooms.remove(0, 3);
  EXPECT_EQ(rooms.choose(true), 0u);
  EXPECT_EQ(rooms.in_flight(), 0u);
}

TEST(AgentRooms, ALostAgentIsNeverChosenButItsTasksStillCount) {
  agent_rooms rooms(2);
  rooms.set_limits(0, 4, 4);
  rooms.set_limits(1, 1, 1);
  rooms.add(0);
  rooms.set_lost(0);
  EXPECT_EQ(rooms.choose(true), 1u);
  EXPECT_EQ(rooms.in_flight(), 1u);
  rooms.remove(0);
  rooms.set_limits(0, 8, 8);  // a late window sample of a lost agent
  rooms.add(1);
  EXPECT_EQ(rooms.choose(true), std::nullopt);
  EXPECT_EQ(rooms.in_flight(), 1u);
}

TEST(AgentRooms, NoAgentHasRoomBeforeItsLimitsAreSet) {
  agent_rooms rooms(2);
  EXPECT_EQ(rooms.choose(true), std::nullopt);
  EXPECT_EQ(agent_rooms(0).choose(false), std::nullopt);
}

// The choice a scan over every agent makes, as rank 0 made it before.
std::optional<std::size_t> scan(const std::vector<std::size_t>& floor, const std::vector<std::size_t>& window,
                                const std::vector<std::size_t>& in_flight, const std::vector<bool>& lost,
                                bool small) {
  std::optional<std::size_t> best;
  std::size_t best_room = 0;
  for (std::size_t i = 0; i < floor.size(); ++i) {
    const std::size_t limit = small ? window[i] : floor[i];
    if (lost[i] || in_flight[i] >= limit) continue;
    if (limit - in_flight[i] > best_room) {
      best = i;
      best_room = limit - in_flight[i];
    }
  }
  return best;
}

TEST(AgentRooms, TenThousandRandomChangesChooseAsAScanOverEveryAgentWould) {
  constexpr std::size_t agents = 37;
  agent_rooms rooms(agents);
  std::vector<std::size_t> floor(agents), window(agents), in_flight(agents);
  std::vector<bool> lost(agents);
  std::mt19937 random(20261203);
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  for (int step = 0; step < 10000; ++step) {
    const std::size_t a = pick(agents);
    switch (pick(10)) {
      case 0: {
        floor[a] = pick(4);
        window[a] = floor[a] + pick(8);
        rooms.set_limits(a, floor[a], window[a]);
        break;
      }
      case 1:
        if (pick(50) == 0) {
          lost[a] = true;
          rooms.set_lost(a);
        }
        break;
      case 2:
      case 3:
        if (in_flight[a] > 0) {
          const std::size_t n = 1 + pick(in_flight[a]);
          in_flight[a] -= n;
          rooms.remove(a, n);
        }
        break;
      default: {
        const bool small = pick(2) == 0;
        const std::optional<std::size_t> chosen = rooms.choose(small);
        ASSERT_EQ(chosen, scan(floor, window, in_flight, lost, small)) << "step " << step;
        if (chosen) {
          ++in_flight[*chosen];
          rooms.add(*chosen);
        }
      }
    }
    std::size_t total = 0;
    for (std::size_t n : in_flight) total += n;
    ASSERT_EQ(rooms.in_flight(), total) << "step " << step;
  }
}

}  // namespace
}  // namespace ferry::detail::mpi
