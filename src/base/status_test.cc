#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace omnigraph {
namespace {

TEST(StatusTest, DefaultIsOkAndHasEmptyFields) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.kind(), Kind::kOk);
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.object(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CodeCarriesItsDefaultKind) {
  Status s(Code::kReadSetChanged, "head moved", "_graph/main/x.commit");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), Kind::kConflict);
  EXPECT_EQ(s.code(), Code::kReadSetChanged);
  EXPECT_EQ(s.message(), "head moved");
  EXPECT_EQ(s.object(), "_graph/main/x.commit");
  EXPECT_EQ(s.ToString(), "conflict/read_set_changed: head moved [_graph/main/x.commit]");
  EXPECT_EQ(Status(Code::kPublicationInDoubt, "x").kind(), Kind::kUnknown);
  EXPECT_EQ(Status(Code::kBranchNotFound, "x").kind(), Kind::kNotFound);
  EXPECT_EQ(Status(Code::kCorruption, "x").kind(), Kind::kPermanent);
}

TEST(StatusTest, ExplicitKindOverridesTheDefault) {
  Status s(Kind::kTransient, Code::kUnknown, "retry me");
  EXPECT_EQ(s.kind(), Kind::kTransient);
  EXPECT_EQ(s.code(), Code::kUnknown);
}

TEST(StatusTest, CopiesAreIndependentAndEqual) {
  Status a = Corruption("bad", "obj");
  Status b = a;
  EXPECT_EQ(a, b);
  Status c = b.WithContext("reading checkpoint");
  EXPECT_EQ(c.message(), "reading checkpoint: bad");
  EXPECT_EQ(b.message(), "bad");
  EXPECT_FALSE(b == c);
}

TEST(StatusTest, WithObjectKeepsAnExistingObject) {
  EXPECT_EQ(NotFound("x").WithObject("a").object(), "a");
  EXPECT_EQ(NotFound("x", "b").WithObject("a").object(), "b");
  EXPECT_TRUE(Status::Ok().WithObject("a").ok());
}

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument(std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  OMNIGRAPH_ASSIGN_OR_RETURN(int half, Half(x));
  OMNIGRAPH_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  OMNIGRAPH_RETURN_IF_ERROR(Half(x));
  return Status::Ok();
}

TEST(StatusTest, MessagesAndObjectsAreAlwaysValidUtf8) {
  Status s(Code::kNotFound, "branch 'caf\xe9' not found", "names/\xff");
  EXPECT_EQ(s.message(), "branch 'caf\\xe9' not found");
  EXPECT_EQ(s.object(), "names/\\xff");
  EXPECT_EQ(Status(Code::kNotFound, "caf\xc3\xa9").message(), "caf\xc3\xa9");
  EXPECT_EQ(s.WithContext("in \xe9").message(), "in \\xe9: branch 'caf\\xe9' not found");
  EXPECT_EQ(NotFound("x").WithObject("o\xe9").object(), "o\\xe9");
}

TEST(ResultTest, HoldsValueOrStatus) {
  Result<int> r = Half(8);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 4);
  EXPECT_TRUE(r.status().ok());
  Result<int> bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "3 is odd");
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(ResultTest, AssignOrReturnPropagatesTheFirstFailure) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
}

TEST(ResultTest, ReturnIfErrorAcceptsResultsAndStatuses) {
  EXPECT_TRUE(CheckEven(2).ok());
  EXPECT_EQ(CheckEven(1).message(), "1 is odd");
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

TEST(ResultTest, OkStatusIsNotAValidFailure) {
  Result<int> r = Status::Ok();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
}

TEST(ResultDeathTest, ValueOfAFailureAborts) {
  Result<int> r = InvalidArgument("nope");
  EXPECT_DEATH((void)r.value(), "OMNIGRAPH_CHECK failed");
}

}  // namespace
}  // namespace omnigraph
