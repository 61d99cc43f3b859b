#include "base/status.h"

#include <gtest/gtest.h>

#include <iterator>
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

// Every code's number, name and default kind, and every kind's number and name, written out:
// they are a contract (the CLI prints the names, the HTTP API returns them, numbers cross the
// API boundary), so a change to omnigraph/status_codes.h that renumbers, renames or re-kinds an
// entry fails here. A new entry is appended to the list and to these tables.
TEST(StatusCodesTest, EveryCodeKeepsItsNumberNameAndDefaultKind) {
  struct Expected {
    Code code;
    uint16_t number;
    const char* name;
    Kind kind;
  };
  // clang-format off
  const Expected kCodes[] = {
      {Code::kOk, 0, "ok", Kind::kOk},
      {Code::kInvalidArgument, 1, "invalid_argument", Kind::kInvalidArgument},
      {Code::kNotFound, 2, "not_found", Kind::kNotFound},
      {Code::kAlreadyExists, 3, "already_exists", Kind::kAlreadyExists},
      {Code::kPrecondition, 4, "precondition", Kind::kPrecondition},
      {Code::kTransient, 5, "transient", Kind::kTransient},
      {Code::kUnknown, 6, "unknown", Kind::kUnknown},
      {Code::kConfiguration, 7, "configuration", Kind::kConfiguration},
      {Code::kPermanent, 8, "permanent", Kind::kPermanent},
      {Code::kCorruption, 9, "corruption", Kind::kPermanent},
      {Code::kFormatTooNew, 10, "format_too_new", Kind::kPermanent},
      {Code::kTooLarge, 11, "too_large", Kind::kResourceLimit},
      {Code::kUnsupported, 12, "unsupported", Kind::kUnsupported},
      {Code::kInternal, 13, "internal", Kind::kInternal},
      {Code::kCancelled, 14, "cancelled", Kind::kInternal},
      {Code::kReadSetChanged, 15, "read_set_changed", Kind::kConflict},
      {Code::kRetriesExhausted, 16, "retries_exhausted", Kind::kConflict},
      {Code::kPublicationInDoubt, 17, "publication_in_doubt", Kind::kUnknown},
      {Code::kBranchNotFound, 18, "branch_not_found", Kind::kNotFound},
      {Code::kBranchExists, 19, "branch_exists", Kind::kAlreadyExists},
      {Code::kCommitNotFound, 20, "commit_not_found", Kind::kNotFound},
      {Code::kAlreadyInitialized, 21, "already_initialized", Kind::kAlreadyExists},
      {Code::kInitializationIncomplete, 22, "initialization_incomplete", Kind::kPermanent},
      {Code::kKeyConflict, 23, "key_conflict", Kind::kConflict},
      {Code::kPreconditionFailed, 24, "precondition_failed", Kind::kPrecondition},
      {Code::kMergeConflicts, 25, "merge_conflicts", Kind::kConflict},
      {Code::kResourceLimit, 26, "resource_limit", Kind::kResourceLimit},
      {Code::kUnknownStamp, 27, "unknown_stamp", Kind::kConfiguration},
      {Code::kVersionsReclaimed, 28, "versions_reclaimed", Kind::kPermanent},
      {Code::kParentlessCommit, 29, "parentless_commit", Kind::kUnsupported},
      {Code::kSchemaBoundary, 30, "schema_boundary", Kind::kUnsupported},
      {Code::kIdempotencyConflict, 31, "idempotency_conflict", Kind::kConflict},
      {Code::kChangeCursorRejected, 32, "change_cursor_rejected", Kind::kPrecondition},
      {Code::kChangeFeedGap, 33, "change_feed_gap", Kind::kPermanent},
  };
  // clang-format on
  for (const Expected& e : kCodes) {
    EXPECT_EQ(static_cast<uint16_t>(e.code), e.number) << e.name;
    EXPECT_EQ(CodeName(e.code), e.name) << e.number;
    EXPECT_EQ(KindOf(e.code), e.kind) << e.name;
  }
  // Nothing past the table: the next number is not a code.
  const uint16_t next = static_cast<uint16_t>(std::size(kCodes));
  EXPECT_EQ(CodeName(static_cast<Code>(next)), "invalid_code");
  EXPECT_EQ(static_cast<uint16_t>(Code::kChangeFeedGap) + 1, next);
}

TEST(StatusCodesTest, EveryKindKeepsItsNumberAndName) {
  struct Expected {
    Kind kind;
    uint8_t number;
    const char* name;
  };
  const Expected kKinds[] = {
      {Kind::kOk, 0, "ok"},
      {Kind::kInvalidArgument, 1, "invalid_argument"},
      {Kind::kNotFound, 2, "not_found"},
      {Kind::kAlreadyExists, 3, "already_exists"},
      {Kind::kPrecondition, 4, "precondition"},
      {Kind::kConflict, 5, "conflict"},
      {Kind::kTransient, 6, "transient"},
      {Kind::kUnknown, 7, "unknown"},
      {Kind::kConfiguration, 8, "configuration"},
      {Kind::kPermanent, 9, "permanent"},
      {Kind::kResourceLimit, 10, "resource_limit"},
      {Kind::kUnsupported, 11, "unsupported"},
      {Kind::kInternal, 12, "internal"},
  };
  for (const Expected& e : kKinds) {
    EXPECT_EQ(static_cast<uint8_t>(e.kind), e.number) << e.name;
    EXPECT_EQ(KindName(e.kind), e.name) << int{e.number};
  }
  EXPECT_EQ(KindName(static_cast<Kind>(std::size(kKinds))), "invalid_kind");
}

TEST(StatusTest, CarriesADiagnosticAsFields) {
  const Status plain = InvalidArgument("1:62: T33: no such property", "query:q");
  EXPECT_EQ(plain.diagnostic(), nullptr);
  const DiagnosticDetail detail{"T33", 1, 62, "declare the property"};
  const Status s = plain.WithDiagnostic(detail);
  ASSERT_NE(s.diagnostic(), nullptr);
  EXPECT_EQ(*s.diagnostic(), detail);
  // The text is unchanged (the message says it already); copies and context keep the fields.
  EXPECT_EQ(s.ToString(), plain.ToString());
  EXPECT_FALSE(s == plain);
  const Status copy = s;
  EXPECT_EQ(copy, s);
  ASSERT_NE(s.WithContext("preparing").diagnostic(), nullptr);
  EXPECT_EQ(s.WithContext("preparing").diagnostic()->code, "T33");
  EXPECT_EQ(plain.diagnostic(), nullptr);  // The original is untouched.
  EXPECT_EQ(Status::Ok().WithDiagnostic(detail).diagnostic(), nullptr);
  // An OK status stays a null pointer: a diagnostic costs nothing until a failure has one.
  EXPECT_EQ(sizeof(Status), sizeof(void*));
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
