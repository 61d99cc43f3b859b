// The AWS shared config and credentials files (~/.aws/config, ~/.aws/credentials), read the way
// the AWS SDKs read them, for S3Config (docs/design/s3.md "Shared config and credentials files"):
// a small reader of their INI dialect and the merge of one profile out of both files.
//
// Which files and which profile, from the lookup (the environment):
//   AWS_SHARED_CREDENTIALS_FILE   default $HOME/.aws/credentials; sections [NAME]
//   AWS_CONFIG_FILE               default $HOME/.aws/config; sections [profile NAME] and [default]
//   AWS_PROFILE                   default "default"
// A property of the profile in the credentials file wins over the same property in the config
// file. Values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace omnigraph::storage::s3 {

// The environment as S3Config reads it: a variable's value, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

// A file larger than this is refused rather than read (real ones are a few hundred bytes).
inline constexpr int64_t kAwsFileBytesMax = 1 << 20;

struct AwsIniProperty {
  std::string value;
  int line = 0;
  // The indented "name = value" lines under a property whose own value is empty, as in a
  // services section: "s3 =\n  endpoint_url = http://…".
  std::map<std::string, std::string> sub_properties;
};

struct AwsIniSection {
  int line = 0;
  std::map<std::string, AwsIniProperty> properties;
};

// A parsed file: sections by the text between the brackets, trimmed, with one space between a
// kind and a name ("profile dev"). A section given twice merges; a property given twice keeps
// its last value.
struct AwsIniFile {
  std::string path;
  std::map<std::string, AwsIniSection> sections;
};

// Parses `text`, the contents of the file `path` (used in messages). Comments are lines starting
// with '#' or ';', and the rest of a line after a '#' or ';' that follows whitespace. An indented
// line continues the property above it (a sub-property when that property's value is empty).
// Configuration naming the path and line for: a section header without ']' or with text after
// it, an empty section name, a property before any section, a line without '=', a property or
// sub-property without a name, an indented line with no property above it.
Result<AwsIniFile> ParseAwsIni(std::string_view text, std::string_view path);

// One property of the chosen profile and where it came from, for messages:
// "aws_access_key_id of profile 'dev' in /root/.aws/credentials line 3".
struct AwsSetting {
  std::string value;
  std::string where;
  // The file it came from (empty for an environment variable).
  std::string file;
};

struct AwsProfile {
  // AWS_PROFILE, or "default".
  std::string name;
  // True when AWS_PROFILE named it.
  bool named = false;
  // True when either file has a section for it.
  bool found = false;
  // The files looked in, for messages: "/root/.aws/credentials and /root/.aws/config (absent)".
  std::string files;
  // The profile's properties, the credentials file's over the config file's.
  std::map<std::string, AwsSetting> settings;
  // endpoint_url of the s3 entry in the [services NAME] section the profile names, if any.
  std::optional<AwsSetting> s3_endpoint_url;

  // The property `key`, if the profile has it with a non-empty value.
  std::optional<AwsSetting> Get(std::string_view key) const;
};

// Reads the two files `lookup` names (AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else
// under $HOME/.aws; a leading "~/" is $HOME) and returns profile AWS_PROFILE (default "default").
// A file that does not exist reads as empty; with neither HOME nor the variables, no file is
// read. Configuration naming the file for one that cannot be read or is over kAwsFileBytesMax,
// naming file and line for one that does not parse, naming the profile and both files when
// AWS_PROFILE names a profile neither has, and naming the services section when the profile's
// `services` names one the config file lacks.
Result<AwsProfile> LoadAwsProfile(const EnvLookup& lookup);

}  // namespace omnigraph::storage::s3
