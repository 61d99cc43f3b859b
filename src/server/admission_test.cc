// Per-actor admission (server/admission.h) with a clock the test sets: the in-flight count and
// byte bounds per actor, tickets giving slots back from any thread, the rate bucket's burst,
// refill and Retry-After, and the environment's variables.
#include "server/admission.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <vector>

namespace omnigraph::server {
namespace {

bool Admitted(const std::variant<ActorAdmission::Ticket, ActorAdmission::Refusal>& v) {
  return std::holds_alternative<ActorAdmission::Ticket>(v);
}

TEST(AdmissionTest, MutatingRequestsAreBoundedPerActorAndTicketsGiveSlotsBack) {
  ActorAdmission admission(AdmissionLimits{2, 100, 0, 0}, [] { return int64_t{0}; });
  auto a1 = admission.Enter("alice", true, 10);
  auto a2 = admission.Enter("alice", true, 10);
  ASSERT_TRUE(Admitted(a1) && Admitted(a2));
  EXPECT_EQ(admission.InFlight("alice"), 2u);
  const auto over = admission.Enter("alice", true, 10);
  ASSERT_FALSE(Admitted(over));
  EXPECT_EQ(std::get<ActorAdmission::Refusal>(over).retry_after_s, 1);
  EXPECT_NE(std::get<ActorAdmission::Refusal>(over).reason.find("alice"), std::string::npos);
  EXPECT_TRUE(Admitted(admission.Enter("alice", false, 10))) << "reads take no slot";
  EXPECT_TRUE(Admitted(admission.Enter("bob", true, 10))) << "another actor is unaffected";
  a1 = ActorAdmission::Ticket();  // Released.
  EXPECT_EQ(admission.InFlight("alice"), 1u);
  EXPECT_FALSE(Admitted(admission.Enter("alice", true, 91))) << "10 + 91 bytes is over 100";
  EXPECT_TRUE(Admitted(admission.Enter("alice", true, 90)));  // Its ticket is dropped at once.
  EXPECT_EQ(admission.InFlight("alice"), 1u);
}

TEST(AdmissionTest, TicketsReleasedOnManyThreadsLeaveNothingInFlight) {
  ActorAdmission admission(AdmissionLimits{0, 0, 0, 0});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        auto ticket = admission.Enter("alice", true, 1);
        ASSERT_TRUE(Admitted(ticket));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(admission.InFlight("alice"), 0u);
}

TEST(AdmissionTest, TheRateBucketAllowsItsBurstThenRefillsAndSaysWhenToRetry) {
  int64_t now = 1'000'000;
  ActorAdmission admission(AdmissionLimits{0, 0, 2, 3}, [&] { return now; });
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Admitted(admission.Enter("alice", false, 0))) << i;
  auto over = admission.Enter("alice", false, 0);
  ASSERT_FALSE(Admitted(over));
  EXPECT_EQ(std::get<ActorAdmission::Refusal>(over).retry_after_s, 1);
  EXPECT_TRUE(Admitted(admission.Enter("bob", false, 0)));
  now += 500'000;  // Half a second at 2 per second: one more.
  EXPECT_TRUE(Admitted(admission.Enter("alice", false, 0)));
  EXPECT_FALSE(Admitted(admission.Enter("alice", false, 0)));
  now += 60'000'000;  // A quiet minute refills to the burst, not beyond.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Admitted(admission.Enter("alice", false, 0))) << i;
  EXPECT_FALSE(Admitted(admission.Enter("alice", false, 0)));
  // A slow rate says to come back later than a second.
  int64_t slow_now = 0;
  ActorAdmission slow(AdmissionLimits{0, 0, 1, 1}, [&] { return slow_now; });
  EXPECT_TRUE(Admitted(slow.Enter("a", false, 0)));
  slow_now = 100'000;
  auto later = slow.Enter("a", false, 0);
  ASSERT_FALSE(Admitted(later));
  EXPECT_EQ(std::get<ActorAdmission::Refusal>(later).retry_after_s, 1);
}

TEST(AdmissionTest, TheEnvironmentSetsTheLimitsAndABadValueIsNamed) {
  ::setenv("OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX", "3", 1);
  ::setenv("OMNIGRAPH_PER_ACTOR_RATE", "50", 1);
  api::Result<AdmissionLimits> limits = AdmissionLimitsFromEnvironment({});
  ASSERT_TRUE(limits.ok()) << limits.status().ToString();
  EXPECT_EQ(limits->inflight_max, 3u);
  EXPECT_EQ(limits->rate_per_s, 50u);
  EXPECT_EQ(limits->bytes_max, uint64_t{4} << 30);
  ::setenv("OMNIGRAPH_PER_ACTOR_BYTES_MAX", "4GiB", 1);
  api::Result<AdmissionLimits> bad = AdmissionLimitsFromEnvironment({});
  ::unsetenv("OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX");
  ::unsetenv("OMNIGRAPH_PER_ACTOR_RATE");
  ::unsetenv("OMNIGRAPH_PER_ACTOR_BYTES_MAX");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("OMNIGRAPH_PER_ACTOR_BYTES_MAX"), std::string::npos);
  EXPECT_NE(bad.status().message().find("'4GiB'"), std::string::npos);
}

}  // namespace
}  // namespace omnigraph::server
