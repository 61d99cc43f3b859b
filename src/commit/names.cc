#include "commit/names.h"

#include "base/hash.h"
#include "base/ids.h"
#include "base/utf8.h"

namespace omnigraph::commit {

namespace {

// v in decimal, zero-padded to 20 digits (UINT64_MAX has 20). Digit by digit rather than by
// snprintf, whose formatting machinery a cold process would otherwise page in for every record
// name it makes (decision 251).
std::string Pad20(uint64_t v) {
  std::string digits(20, '0');
  for (size_t i = digits.size(); v != 0; v /= 10) digits[--i] = static_cast<char>('0' + v % 10);
  return digits;
}

Result<uint64_t> ParsePadded(std::string_view digits, std::string_view what) {
  if (digits.size() != 20) return InvalidArgument("malformed " + std::string(what));
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return InvalidArgument("malformed " + std::string(what));
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return InvalidArgument("malformed " + std::string(what));
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

std::string RecordPrefix(std::string_view key) { return "_graph/" + std::string(key) + "/"; }

std::string RecordName(std::string_view key, uint64_t seq) {
  return RecordPrefix(key) + Pad20(UINT64_MAX - seq) + ".commit";
}

std::string CheckpointPrefix(std::string_view key) {
  return "_graph/" + std::string(key) + "/checkpoints/";
}

std::string CheckpointName(std::string_view key, uint64_t seq) {
  return CheckpointPrefix(key) + Pad20(seq) + ".json";
}

std::string HintName(std::string_view key) { return "_graph/" + std::string(key) + "/latest.json"; }

std::string StreamMetadataName(std::string_view key) {
  return std::string(kStreamsPrefix) + std::string(key) + ".json";
}

std::string NameGenerationPrefix(std::string_view branch) {
  return "_graph/names/" + Sha256Hex(branch) + "/";
}

std::string NameGenerationName(std::string_view branch, uint64_t gen) {
  return NameGenerationPrefix(branch) + Pad20(gen) + ".json";
}

std::string SchemaArchiveName(std::string_view content_hash_hex) {
  return "__history/schemas/" + std::string(content_hash_hex) + ".schema";
}

Result<uint64_t> SeqFromRecordFile(std::string_view file) {
  constexpr std::string_view kSuffix = ".commit";
  if (file.size() != 20 + kSuffix.size() || file.substr(20) != kSuffix) {
    return InvalidArgument("malformed record name '" + std::string(file) + "'");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(uint64_t inverted, ParsePadded(file.substr(0, 20), "record name"));
  return UINT64_MAX - inverted;
}

Result<uint64_t> GenerationFromFile(std::string_view file) {
  if (file.size() != 25 || file.substr(20) != ".json") {
    return InvalidArgument("malformed name generation '" + std::string(file) + "'");
  }
  return ParsePadded(file.substr(0, 20), "name generation");
}

std::string CommitId::ToString() const { return key + "." + std::to_string(seq) + "." + nonce; }

Result<CommitId> CommitId::Parse(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("malformed commit id '" + std::string(text) + "': " + std::string(why) +
                           " (expected {stream}.{seq}.{nonce})");
  };
  size_t last = text.rfind('.');
  if (last == std::string_view::npos || last == 0) return bad("missing '.'");
  size_t mid = text.rfind('.', last - 1);
  if (mid == std::string_view::npos) return bad("missing '.'");
  CommitId id;
  id.key = std::string(text.substr(0, mid));
  std::string_view seq = text.substr(mid + 1, last - mid - 1);
  id.nonce = std::string(text.substr(last + 1));
  if (!ValidateStreamKey(id.key).ok()) return bad("unknown stream key");
  if (seq.empty() || seq.size() > 20 || (seq.size() > 1 && seq[0] == '0')) return bad("bad seq");
  uint64_t v = 0;
  for (char c : seq) {
    if (c < '0' || c > '9') return bad("bad seq");
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return bad("seq out of range");
    v = v * 10 + d;
  }
  id.seq = v;
  if (id.nonce.size() != kCommitNonceLength ||
      id.nonce.find_first_not_of(kCrockfordAlphabet) != std::string::npos) {
    return bad("bad nonce");
  }
  return id;
}

CommitId CommitId::Mint(std::string_view key, uint64_t seq, Random& random) {
  return CommitId{std::string(key), seq, RandomCrockford(random, kCommitNonceLength)};
}

Status ValidateStreamKey(std::string_view key) {
  if (key == kMainKey) return Status::Ok();
  if (key.size() == Ulid::kTextLength && Ulid::Parse(key).ok() &&
      key.find_first_not_of(kCrockfordAlphabet) == std::string_view::npos) {
    return Status::Ok();
  }
  return InvalidArgument("invalid stream key '" + std::string(key) + "'");
}

Status ValidateActor(const std::optional<std::string>& actor) {
  return actor ? CheckUtf8(*actor, "actor") : Status::Ok();
}

Status ValidateBranchName(std::string_view name) {
  if (name.empty()) return InvalidArgument("branch name must not be empty");
  if (name.size() > kBranchNameBytesMax) {
    return InvalidArgument("branch name is " + std::to_string(name.size()) +
                           " bytes, more than the limit of " + std::to_string(kBranchNameBytesMax));
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckUtf8(name, "branch name"));
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("branch name contains a control character");
    }
  }
  if (name.front() == ' ' || name.back() == ' ') {
    return InvalidArgument("branch name '" + std::string(name) +
                           "' has a leading or trailing space");
  }
  // OmniGraph keeps this name for its schema-apply lock (with any leading '/'), so a graph moved
  // between the two never holds a user branch by that name.
  std::string_view bare = name;
  while (bare.starts_with('/')) bare.remove_prefix(1);
  if (bare == kReservedBranchName) {
    return InvalidArgument("branch name '" + std::string(name) +
                           "' is reserved (OmniGraph's internal system ref " +
                           std::string(kReservedBranchName) + "); choose another name");
  }
  return Status::Ok();
}

}  // namespace omnigraph::commit
