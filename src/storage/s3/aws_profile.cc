#include "storage/s3/aws_profile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace omnigraph::storage::s3 {

namespace {

Status ConfigError(std::string message) { return Status(Code::kConfiguration, std::move(message)); }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// The line without a trailing comment: '#' or ';' at the start or after whitespace (the Rust
// SDK's rule for property lines, so "secret#part" keeps its '#').
std::string_view StripComment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if ((line[i] == '#' || line[i] == ';') && (i == 0 || IsSpace(line[i - 1]))) {
      return line.substr(0, i);
    }
  }
  return line;
}

// "profile   dev " → "profile dev": one space between a section's kind and its name.
std::string NormalizeSectionName(std::string_view name) {
  name = Trim(name);
  size_t space = 0;
  while (space < name.size() && !IsSpace(name[space])) ++space;
  if (space == name.size()) return std::string(name);
  return std::string(name.substr(0, space)) + " " + std::string(Trim(name.substr(space)));
}

class IniParser {
 public:
  explicit IniParser(std::string_view path) { file_.path = std::string(path); }

  Result<AwsIniFile> Parse(std::string_view text) {
    int line_number = 0;
    while (!text.empty()) {
      size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
      ++line_number;
      line_ = line_number;
      OMNIGRAPH_RETURN_IF_ERROR(Line(line));
    }
    return std::move(file_);
  }

 private:
  Status Error(std::string_view what) const {
    return ConfigError(file_.path + " line " + std::to_string(line_) + ": " + std::string(what));
  }

  Status Line(std::string_view line) {
    std::string_view content = Trim(line);
    if (content.empty() || content.front() == '#' || content.front() == ';') return Status::Ok();
    if (IsSpace(line.front())) return Continuation(Trim(StripComment(content)));
    if (line.front() == '[') return Header(line);
    return Property(Trim(StripComment(line)));
  }

  Status Header(std::string_view line) {
    size_t close = line.find(']');
    if (close == std::string_view::npos) return Error("a section header without ']'");
    std::string_view rest = Trim(line.substr(close + 1));
    if (!rest.empty() && rest.front() != '#' && rest.front() != ';') {
      return Error("unexpected text '" + std::string(rest) + "' after the section header");
    }
    std::string name = NormalizeSectionName(line.substr(1, close - 1));
    if (name.empty()) return Error("a section header without a name");
    auto [it, inserted] = file_.sections.try_emplace(name);
    if (inserted) it->second.line = line_;
    section_ = &it->second;
    property_ = nullptr;
    return Status::Ok();
  }

  Status Property(std::string_view line) {
    if (section_ == nullptr) {
      return Error(
          "a property before any section header (a '[default]' or '[profile NAME]' "
          "line must come first)");
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Error("expected 'name = value', found '" + std::string(line) + "'");
    }
    std::string_view name = Trim(line.substr(0, eq));
    if (name.empty()) return Error("a property without a name");
    property_ = &section_->properties[std::string(name)];
    *property_ = AwsIniProperty{std::string(Trim(line.substr(eq + 1))), line_, {}};
    return Status::Ok();
  }

  Status Continuation(std::string_view content) {
    if (property_ == nullptr) {
      return Error("an indented line with no property above it to continue");
    }
    if (!property_->value.empty() && property_->sub_properties.empty()) {
      property_->value += "\n" + std::string(content);
      return Status::Ok();
    }
    size_t eq = content.find('=');
    if (eq == std::string_view::npos) {
      return Error("expected an indented 'name = value' under the empty property, found '" +
                   std::string(content) + "'");
    }
    std::string_view name = Trim(content.substr(0, eq));
    if (name.empty()) return Error("a sub-property without a name");
    property_->sub_properties[std::string(name)] = std::string(Trim(content.substr(eq + 1)));
    return Status::Ok();
  }

  AwsIniFile file_;
  AwsIniSection* section_ = nullptr;
  AwsIniProperty* property_ = nullptr;
  int line_ = 0;
};

// The file's bytes, or nullopt when it does not exist.
Result<std::optional<std::string>> ReadSmallFile(const std::string& path, std::string_view what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return ConfigError("cannot open the " + std::string(what) + " " + path + ": " +
                       std::strerror(errno));
  }
  std::string data;
  char buffer[8192];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return ConfigError("cannot read the " + std::string(what) + " " + path + ": " +
                         std::strerror(err));
    }
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
    if (static_cast<int64_t>(data.size()) > kAwsFileBytesMax) {
      ::close(fd);
      return ConfigError("the " + std::string(what) + " " + path + " is larger than " +
                         std::to_string(kAwsFileBytesMax) + " bytes");
    }
  }
  ::close(fd);
  return std::optional<std::string>(std::move(data));
}

std::optional<std::string> NonEmpty(const EnvLookup& lookup, std::string_view name) {
  std::optional<std::string> value = lookup(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

// The path of one file: its variable, else $HOME/.aws/<file>; "~/" expanded. Empty: no file.
std::string FilePath(const EnvLookup& lookup, std::string_view variable,
                     std::string_view default_name) {
  std::optional<std::string> home = NonEmpty(lookup, "HOME");
  std::optional<std::string> path = NonEmpty(lookup, variable);
  if (!path) return home ? *home + "/.aws/" + std::string(default_name) : std::string();
  if (home && (*path == "~" || path->starts_with("~/"))) return *home + path->substr(1);
  return *path;
}

struct LoadedFile {
  std::string path;
  bool present = false;
  AwsIniFile ini;
};

Result<LoadedFile> LoadFile(const EnvLookup& lookup, std::string_view variable,
                            std::string_view default_name, std::string_view what) {
  LoadedFile file;
  file.path = FilePath(lookup, variable, default_name);
  if (file.path.empty()) return file;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> text, ReadSmallFile(file.path, what));
  if (!text) return file;
  file.present = true;
  OMNIGRAPH_ASSIGN_OR_RETURN(file.ini, ParseAwsIni(*text, file.path));
  return file;
}

std::string Describe(const LoadedFile& file, std::string_view variable) {
  if (file.path.empty()) return "no file (" + std::string(variable) + " and HOME are unset)";
  return file.path + (file.present ? "" : " (absent)");
}

// The profile's section in the config file: [profile NAME], or for "default" [profile default]
// and else [default] (the SDKs prefer the former when both exist).
const AwsIniSection* ConfigSection(const AwsIniFile& config, const std::string& name) {
  auto it = config.sections.find("profile " + name);
  if (it == config.sections.end() && name == "default") it = config.sections.find("default");
  return it == config.sections.end() ? nullptr : &it->second;
}

void Merge(const AwsIniSection* section, const AwsProfile& profile, const std::string& path,
           std::map<std::string, AwsSetting>* settings) {
  if (section == nullptr) return;
  for (const auto& [key, property] : section->properties) {
    (*settings)[key] = AwsSetting{property.value,
                                  key + " of profile '" + profile.name + "' in " + path + " line " +
                                      std::to_string(property.line),
                                  path};
  }
}

Status ReadServices(const AwsIniFile& config, AwsProfile* profile) {
  std::optional<AwsSetting> services = profile->Get("services");
  if (!services) return Status::Ok();
  auto section = config.sections.find("services " + services->value);
  if (section == config.sections.end()) {
    return ConfigError(services->where + " names '" + services->value + "', but " + config.path +
                       " has no [services " + services->value + "] section");
  }
  auto s3 = section->second.properties.find("s3");
  if (s3 == section->second.properties.end()) return Status::Ok();
  auto endpoint = s3->second.sub_properties.find("endpoint_url");
  if (endpoint == s3->second.sub_properties.end() || endpoint->second.empty()) return Status::Ok();
  profile->s3_endpoint_url =
      AwsSetting{endpoint->second,
                 "endpoint_url of s3 in [services " + services->value + "] of " + config.path +
                     " line " + std::to_string(s3->second.line),
                 config.path};
  return Status::Ok();
}

}  // namespace

Result<AwsIniFile> ParseAwsIni(std::string_view text, std::string_view path) {
  return IniParser(path).Parse(text);
}

std::optional<AwsSetting> AwsProfile::Get(std::string_view key) const {
  auto it = settings.find(std::string(key));
  if (it == settings.end() || it->second.value.empty()) return std::nullopt;
  return it->second;
}

Result<AwsProfile> LoadAwsProfile(const EnvLookup& lookup) {
  OMNIGRAPH_ASSIGN_OR_RETURN(LoadedFile credentials,
                             LoadFile(lookup, "AWS_SHARED_CREDENTIALS_FILE", "credentials",
                                      "shared credentials file (AWS_SHARED_CREDENTIALS_FILE)"));
  OMNIGRAPH_ASSIGN_OR_RETURN(LoadedFile config, LoadFile(lookup, "AWS_CONFIG_FILE", "config",
                                                         "config file (AWS_CONFIG_FILE)"));
  AwsProfile profile;
  std::optional<std::string> named = NonEmpty(lookup, "AWS_PROFILE");
  profile.named = named.has_value();
  profile.name = named.value_or("default");
  profile.files = Describe(credentials, "AWS_SHARED_CREDENTIALS_FILE") + " and " +
                  Describe(config, "AWS_CONFIG_FILE");
  const AwsIniSection* from_config = ConfigSection(config.ini, profile.name);
  auto it = credentials.ini.sections.find(profile.name);
  const AwsIniSection* from_credentials =
      it == credentials.ini.sections.end() ? nullptr : &it->second;
  profile.found = from_config != nullptr || from_credentials != nullptr;
  if (profile.named && !profile.found) {
    return ConfigError("AWS_PROFILE names profile '" + profile.name + "', which is in neither " +
                       profile.files + " (the credentials file wants [" + profile.name +
                       "], the config file [profile " + profile.name + "])");
  }
  Merge(from_config, profile, config.path, &profile.settings);
  Merge(from_credentials, profile, credentials.path, &profile.settings);
  OMNIGRAPH_RETURN_IF_ERROR(ReadServices(config.ini, &profile));
  return profile;
}

}  // namespace omnigraph::storage::s3
