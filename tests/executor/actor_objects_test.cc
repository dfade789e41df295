// Copyright ferry authors.
//
// src/executor/worker/actor_objects.cc: the table of a process's actor
// objects, by actor id: an object found only as the type it was made as,
// a constructor's failure given to every call, an unknown id named, and
// an object destroyed when its actor is dropped.
#include <executor/internal/actor_parts.h>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <executor/errors.h>
#include "../error_message.h"

namespace {

// Ids of this file's own, far from any pool's.
constexpr std::uint64_t base = 0xac70'0000'0000;

// What `call` threw, as ferry::error's message (tests/error_message.h).
std::string message_of(const std::function<void()>& call) {
  return ferry_test::message_of<ferry::error>(ferry_test::thrown_by(call));
}

TEST(ActorObjects, AnObjectIsFoundByItsIdAsTheTypeItWasMadeAs) {
  auto counter = std::make_shared<int>(41);
  ferry::detail::put_actor_object(base + 1, counter, typeid(int));
  int* found = static_cast<int*>(ferry::detail::find_actor_object(base + 1, typeid(int)));
  ASSERT_EQ(found, counter.get());
  ++*found;
  EXPECT_EQ(*counter, 42);
  ferry::detail::drop_actor_object(base + 1);
}

TEST(ActorObjects, AskingForAnotherTypeNamesBoth) {
  ferry::detail::put_actor_object(base + 2, std::make_shared<std::string>("state"), typeid(std::string));
  const std::string what = message_of([] { ferry::detail::find_actor_object(base + 2, typeid(double)); });
  EXPECT_NE(what.find("holds a std::"), std::string::npos) << what;
  EXPECT_NE(what.find("not a double"), std::string::npos) << what;
  ferry::detail::drop_actor_object(base + 2);
}

TEST(ActorObjects, AnUnknownIdIsAnErrorThatSaysWhereToLook) {
  const std::string what = message_of([] { ferry::detail::find_actor_object(base + 3, typeid(int)); });
  EXPECT_NE(what.find("actor " + std::to_string(base + 3) + " has no object in this worker"), std::string::npos)
      << what;
}

TEST(ActorObjects, AnIdMadeTwiceIsRefusedAndTheFirstObjectKept) {
  auto first = std::make_shared<int>(1);
  ferry::detail::put_actor_object(base + 4, first, typeid(int));
  EXPECT_THROW(ferry::detail::put_actor_object(base + 4, std::make_shared<int>(2), typeid(int)), ferry::error);
  EXPECT_EQ(ferry::detail::find_actor_object(base + 4, typeid(int)), first.get());
  ferry::detail::drop_actor_object(base + 4);
}

TEST(ActorObjects, AConstructorsFailureIsThrownToEveryCall) {
  ferry::detail::put_actor_failure(base + 5, std::make_exception_ptr(std::invalid_argument("no such file")));
  for (int call = 0; call < 2; ++call)
    EXPECT_THROW(ferry::detail::find_actor_object(base + 5, typeid(int)), std::invalid_argument);
  ferry::detail::drop_actor_object(base + 5);
  EXPECT_THROW(ferry::detail::find_actor_object(base + 5, typeid(int)), ferry::error);
}

TEST(ActorObjects, DroppingAnActorDestroysItsObjectOnceAndAgainIsHarmless) {
  auto object = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = object;
  ferry::detail::put_actor_object(base + 6, std::move(object), typeid(int));
  EXPECT_FALSE(watch.expired());
  ferry::detail::drop_actor_object(base + 6);
  EXPECT_TRUE(watch.expired());
  ferry::detail::drop_actor_object(base + 6);
  EXPECT_THROW(ferry::detail::find_actor_object(base + 6, typeid(int)), ferry::error);
}

}  // namespace
