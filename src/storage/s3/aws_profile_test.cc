// S3 configuration as the reference reads it: the shared credentials and config files (the INI
// reader, profiles, precedence over and under the environment), AWS_ALLOW_HTTP, and the errors
// that name the variable, the profile, the file and the line. Part of s3_unit_test.
#include "storage/s3/aws_profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "storage/s3/s3_config.h"
#include "storage/s3/s3_errors.h"
#include "storage/test_util.h"

namespace omnigraph::storage::s3 {
namespace {

using Env = std::map<std::string, std::string>;

Result<S3Config> FromMap(const Env& env) {
  return S3Config::FromLookup([&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

// The message of a failed result, or a note that it succeeded (so a wrong success fails loudly).
template <typename T>
std::string Message(const Result<T>& r) {
  return r.ok() ? std::string("<succeeded>") : r.status().message();
}

bool Has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// A HOME with .aws/credentials and .aws/config holding the given texts (none when empty).
class AwsHome {
 public:
  AwsHome(std::string_view credentials, std::string_view config) {
    Write(".aws/credentials", credentials);
    Write(".aws/config", config);
  }
  const std::string& path() const { return dir_.path(); }
  std::string credentials() const { return path() + "/.aws/credentials"; }
  std::string config() const { return path() + "/.aws/config"; }
  std::string Write(const std::string& name, std::string_view text) const {
    std::string file = path() + "/" + name;
    if (text.empty()) return file;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file) << text;
    return file;
  }

 private:
  TempDir dir_;
};

constexpr char kCredentials[] =
    "# the usual file\n"
    "[default]\n"
    "aws_access_key_id = DEFAULTKEY\n"
    "aws_secret_access_key = default/secret+x\n"
    "\n"
    "[dev]\n"
    "aws_access_key_id=DEVKEY ; a comment\n"
    "aws_secret_access_key = dev#secret\n"
    "aws_session_token = devtoken\n";

constexpr char kConfig[] =
    "[default]\n"
    "region = eu-west-1\n"
    "[profile dev]\n"
    "region = ap-south-1\n"
    "endpoint_url = https://storage.example.com\n"
    "[profile   svc ]\n"
    "aws_access_key_id = SVCKEY\n"
    "aws_secret_access_key = svcsecret\n"
    "endpoint_url = https://global.example.com\n"
    "services = local\n"
    "[services local]\n"
    "s3 =\n"
    "  endpoint_url = http://127.0.0.1:9000\n"
    "  addressing_style = path\n";

TEST(AwsIniTest, ReadsSectionsPropertiesCommentsAndSubProperties) {
  Result<AwsIniFile> ini = ParseAwsIni(kConfig, "/c");
  ASSERT_TRUE(ini.ok()) << ini.status().ToString();
  ASSERT_EQ(ini->sections.count("profile svc"), 1u);
  EXPECT_EQ(ini->sections.at("profile dev").properties.at("region").value, "ap-south-1");
  EXPECT_EQ(ini->sections.at("profile dev").properties.at("region").line, 4);
  const AwsIniProperty& s3 = ini->sections.at("services local").properties.at("s3");
  EXPECT_EQ(s3.value, "");
  EXPECT_EQ(s3.sub_properties.at("endpoint_url"), "http://127.0.0.1:9000");
  EXPECT_EQ(s3.sub_properties.at("addressing_style"), "path");

  Result<AwsIniFile> creds = ParseAwsIni(kCredentials, "/k");
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  // A comment needs whitespace before it; a '#' inside a value stays.
  EXPECT_EQ(creds->sections.at("dev").properties.at("aws_access_key_id").value, "DEVKEY");
  EXPECT_EQ(creds->sections.at("dev").properties.at("aws_secret_access_key").value, "dev#secret");

  // A continuation line joins a non-empty value; a repeated section merges, the last value wins;
  // CRLF line ends are fine.
  Result<AwsIniFile> more =
      ParseAwsIni("[a]\r\nx = 1\r\n  more\r\ny = 2\n[a]\ny = 3 # later\n[b] ; note\n", "/m");
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_EQ(more->sections.at("a").properties.at("x").value, "1\nmore");
  EXPECT_EQ(more->sections.at("a").properties.at("y").value, "3");
  EXPECT_EQ(more->sections.at("b").properties.size(), 0u);
}

TEST(AwsIniTest, MalformedInputNamesTheFileAndLine) {
  const std::map<std::string, std::string> cases = {
      {"x = 1\n", "/f line 1: a property before any section header"},
      {"[default]\nregion\n", "/f line 2: expected 'name = value', found 'region'"},
      {"[default]\n= v\n", "/f line 2: a property without a name"},
      {"[default\n", "/f line 1: a section header without ']'"},
      {"[]\n", "/f line 1: a section header without a name"},
      {"[default] x\n", "/f line 1: unexpected text 'x' after the section header"},
      {"[default]\n\n  indented = 1\n", "/f line 3: an indented line with no property above it"},
      {"  lead = 1\n", "/f line 1: an indented line with no property above it"},
      {"[services s]\ns3 =\n  endpoint_url\n",
       "/f line 3: expected an indented 'name = value' under the empty property"},
      {"[services s]\ns3 =\n  = x\n", "/f line 3: a sub-property without a name"},
  };
  for (const auto& [text, want] : cases) {
    Result<AwsIniFile> ini = ParseAwsIni(text, "/f");
    ASSERT_FALSE(ini.ok()) << text;
    EXPECT_EQ(ini.status().kind(), Kind::kConfiguration) << text;
    EXPECT_TRUE(Has(ini.status().message(), want)) << text << " → " << ini.status().message();
  }
}

TEST(AwsProfileTest, CredentialsAndRegionComeFromTheDefaultProfileUnderHome) {
  AwsHome home(kCredentials, kConfig);
  Result<S3Config> c = FromMap({{"HOME", home.path()}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "DEFAULTKEY");
  EXPECT_EQ(c->secret_access_key, "default/secret+x");
  EXPECT_EQ(c->session_token, "");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->endpoint, "https://s3.eu-west-1.amazonaws.com");
  EXPECT_FALSE(c->path_style);
  EXPECT_EQ(c->credentials_source, "profile 'default' in " + home.credentials());
}

TEST(AwsProfileTest, AwsProfileSelectsAProfileFromBothFiles) {
  AwsHome home(kCredentials, kConfig);
  Result<S3Config> dev = FromMap({{"HOME", home.path()}, {"AWS_PROFILE", "dev"}});
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->access_key_id, "DEVKEY");
  EXPECT_EQ(dev->secret_access_key, "dev#secret");
  EXPECT_EQ(dev->session_token, "devtoken");
  EXPECT_EQ(dev->region, "ap-south-1");
  EXPECT_EQ(dev->endpoint, "https://storage.example.com");
  EXPECT_TRUE(Has(dev->endpoint_source, "endpoint_url of profile 'dev' in " + home.config()))
      << dev->endpoint_source;
  EXPECT_TRUE(dev->path_style);

  // Credentials from the config file alone, and the services section's s3 endpoint over the
  // profile's global endpoint_url; it is http://, so only with AWS_ALLOW_HTTP.
  Env svc = {{"HOME", home.path()}, {"AWS_PROFILE", "svc"}};
  EXPECT_TRUE(Has(Message(FromMap(svc)),
                  "endpoint_url of s3 in [services local] of " + home.config() +
                      " line 12 'http://127.0.0.1:9000' is plain HTTP; set AWS_ALLOW_HTTP=true"))
      << Message(FromMap(svc));
  svc["AWS_ALLOW_HTTP"] = "true";
  Result<S3Config> s = FromMap(svc);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->access_key_id, "SVCKEY");
  EXPECT_EQ(s->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(s->region, "us-east-1");
  EXPECT_EQ(s->credentials_source, "profile 'svc' in " + home.config());
}

TEST(AwsProfileTest, TheCredentialsFileWinsOverTheConfigFileForOneProfile) {
  AwsHome home("[p]\naws_access_key_id = FROMCREDS\nregion = us-west-2\n",
               "[profile p]\naws_access_key_id = FROMCONFIG\naws_secret_access_key = s\n"
               "region = eu-north-1\n");
  Result<S3Config> c = FromMap({{"HOME", home.path()}, {"AWS_PROFILE", "p"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "FROMCREDS");
  EXPECT_EQ(c->secret_access_key, "s");
  EXPECT_EQ(c->region, "us-west-2");
  // [profile default] wins over [default] in the config file; a bare [NAME] there is not a
  // profile, nor is [profile NAME] in the credentials file.
  AwsHome both("[profile q]\naws_access_key_id = X\naws_secret_access_key = Y\n",
               "[default]\nregion = eu-west-1\n[profile default]\nregion = eu-west-3\n"
               "[q]\naws_access_key_id = Z\n");
  EXPECT_EQ(
      FromMap({{"HOME", both.path()}, {"AWS_ACCESS_KEY_ID", "k"}, {"AWS_SECRET_ACCESS_KEY", "s"}})
          ->region,
      "eu-west-3");
  Result<S3Config> q = FromMap({{"HOME", both.path()}, {"AWS_PROFILE", "q"}});
  EXPECT_TRUE(Has(Message(q), "AWS_PROFILE names profile 'q', which is in neither")) << Message(q);
}

TEST(AwsProfileTest, EnvironmentVariablesWinOverTheFiles) {
  AwsHome home(kCredentials, kConfig);
  Result<S3Config> c = FromMap({{"HOME", home.path()},
                                {"AWS_PROFILE", "dev"},
                                {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                {"AWS_SECRET_ACCESS_KEY", "envsecret"},
                                {"AWS_REGION", "us-east-2"},
                                {"AWS_ENDPOINT_URL", "https://env.example.com"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "ENVKEY");
  EXPECT_EQ(c->secret_access_key, "envsecret");
  // The profile's session token belongs to the profile's keys, never to the environment's.
  EXPECT_EQ(c->session_token, "");
  EXPECT_EQ(c->credentials_source, "");
  EXPECT_EQ(c->region, "us-east-2");
  EXPECT_EQ(c->endpoint, "https://env.example.com");
  EXPECT_EQ(c->endpoint_source, "AWS_ENDPOINT_URL");
  // AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL; AWS_DEFAULT_REGION over the profile's region.
  Result<S3Config> d = FromMap({{"HOME", home.path()},
                                {"AWS_PROFILE", "dev"},
                                {"AWS_DEFAULT_REGION", "ca-central-1"},
                                {"AWS_ENDPOINT_URL", "https://env.example.com"},
                                {"AWS_ENDPOINT_URL_S3", "https://s3only.example.com"}});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->access_key_id, "DEVKEY");
  EXPECT_EQ(d->region, "ca-central-1");
  EXPECT_EQ(d->endpoint, "https://s3only.example.com");
  EXPECT_EQ(d->endpoint_source, "AWS_ENDPOINT_URL_S3");
}

TEST(AwsProfileTest, FileVariablesAndTildeChooseTheFiles) {
  AwsHome home("", "");
  std::string creds = home.Write("elsewhere/creds",
                                 "[ci]\naws_access_key_id = CI\n"
                                 "aws_secret_access_key = cis\n");
  std::string config = home.Write("elsewhere/conf", "[profile ci]\nregion = sa-east-1\n");
  Result<S3Config> c = FromMap({{"HOME", home.path()},
                                {"AWS_PROFILE", "ci"},
                                {"AWS_SHARED_CREDENTIALS_FILE", creds},
                                {"AWS_CONFIG_FILE", "~/elsewhere/conf"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "CI");
  EXPECT_EQ(c->region, "sa-east-1");
  // Without HOME and the variables no file is read, and the error still names the variable.
  Result<S3Config> none = FromMap({});
  EXPECT_EQ(none.status().kind(), Kind::kConfiguration);
  EXPECT_TRUE(Has(Message(none),
                  "AWS_ACCESS_KEY_ID is not set, and there is no profile "
                  "'default' (no file (AWS_SHARED_CREDENTIALS_FILE and HOME are "
                  "unset) and no file (AWS_CONFIG_FILE and HOME are unset))"))
      << Message(none);
}

TEST(AwsProfileTest, ErrorsNameTheProfileTheFilesAndTheMissingKey) {
  AwsHome home(kCredentials, kConfig);
  Result<S3Config> missing = FromMap({{"HOME", home.path()}, {"AWS_PROFILE", "nope"}});
  EXPECT_EQ(missing.status().kind(), Kind::kConfiguration);
  EXPECT_TRUE(Has(Message(missing), "AWS_PROFILE names profile 'nope', which is in neither " +
                                        home.credentials() + " and " + home.config()))
      << Message(missing);
  // Even when the environment has credentials: a named profile that is not there is a typo.
  EXPECT_FALSE(FromMap({{"HOME", home.path()},
                        {"AWS_PROFILE", "nope"},
                        {"AWS_ACCESS_KEY_ID", "k"},
                        {"AWS_SECRET_ACCESS_KEY", "s"}})
                   .ok());

  AwsHome absent("", "");
  Result<S3Config> no_files = FromMap({{"HOME", absent.path()}});
  EXPECT_TRUE(Has(Message(no_files),
                  "AWS_ACCESS_KEY_ID is not set, and there is no profile "
                  "'default' (" +
                      absent.credentials() + " (absent) and " + absent.config() + " (absent))"))
      << Message(no_files);

  AwsHome half(
      "[default]\naws_access_key_id = K\n[role]\nrole_arn = arn:aws:iam::1:role/r\n"
      "[bare]\n",
      "");
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", half.path()}})),
                  "aws_access_key_id of profile 'default' in " + half.credentials() +
                      " line 2 has no aws_secret_access_key beside it"))
      << Message(FromMap({{"HOME", half.path()}}));
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", half.path()}, {"AWS_PROFILE", "role"}})),
                  "gets them by role_arn, which OmniGraph does not read"));
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", half.path()}, {"AWS_PROFILE", "bare"}})),
                  "profile 'bare' (" + half.credentials() + " and " + half.config() +
                      " (absent)) has no aws_access_key_id"));

  AwsHome services("",
                   "[default]\naws_access_key_id = K\naws_secret_access_key = S\n"
                   "services = gone\n");
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", services.path()}})),
                  "services of profile 'default' in " + services.config() +
                      " line 4 names 'gone', but " + services.config() +
                      " has no [services gone] section"));

  AwsHome region("",
                 "[default]\naws_access_key_id = K\naws_secret_access_key = S\n"
                 "region = eu west\n");
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", region.path()}})),
                  "region of profile 'default' in " + region.config() +
                      " line 4 'eu west' is not a region name"));

  AwsHome malformed("[default]\naws_access_key_id\n", "");
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", malformed.path()},
                                   {"AWS_ACCESS_KEY_ID", "k"},
                                   {"AWS_SECRET_ACCESS_KEY", "s"}})),
                  malformed.credentials() + " line 2: expected 'name = value'"));
  // A path that is a directory cannot be read: named, with the variable.
  Result<S3Config> dir = FromMap({{"AWS_CONFIG_FILE", home.path()}});
  EXPECT_TRUE(Has(Message(dir), "config file (AWS_CONFIG_FILE) " + home.path())) << Message(dir);
}

TEST(AwsProfileTest, HalfSetEnvironmentCredentialsNameTheMissingVariable) {
  AwsHome home(kCredentials, kConfig);
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", home.path()}, {"AWS_ACCESS_KEY_ID", "k"}})),
                  "AWS_SECRET_ACCESS_KEY is not set"));
  EXPECT_TRUE(Has(Message(FromMap({{"HOME", home.path()}, {"AWS_SECRET_ACCESS_KEY", "s"}})),
                  "AWS_ACCESS_KEY_ID is not set"));
  Result<S3Config> token = FromMap(
      {{"AWS_ACCESS_KEY_ID", "k"}, {"AWS_SECRET_ACCESS_KEY", "s"}, {"AWS_SESSION_TOKEN", "t"}});
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->session_token, "t");
}

TEST(S3AllowHttpTest, PlainHttpNeedsAwsAllowHttp) {
  Env env = {{"AWS_ACCESS_KEY_ID", "k"},
             {"AWS_SECRET_ACCESS_KEY", "s"},
             {"AWS_ENDPOINT_URL_S3", "http://127.0.0.1:7480"}};
  Result<S3Config> refused = FromMap(env);
  EXPECT_EQ(refused.status().kind(), Kind::kConfiguration);
  EXPECT_TRUE(Has(Message(refused),
                  "AWS_ENDPOINT_URL_S3 'http://127.0.0.1:7480' is plain HTTP; "
                  "set AWS_ALLOW_HTTP=true to allow it"))
      << Message(refused);
  for (const char* no : {"false", "0", "no", "off", "N"}) {
    env["AWS_ALLOW_HTTP"] = no;
    EXPECT_TRUE(Has(Message(FromMap(env)), "set AWS_ALLOW_HTTP=true")) << no;
  }
  for (const char* yes : {"true", "TRUE", "1", "yes", "on", "y"}) {
    env["AWS_ALLOW_HTTP"] = yes;
    Result<S3Config> allowed = FromMap(env);
    ASSERT_TRUE(allowed.ok()) << yes << ": " << allowed.status().ToString();
    EXPECT_EQ(allowed->endpoint, "http://127.0.0.1:7480");
  }
  env["AWS_ALLOW_HTTP"] = "sure";
  EXPECT_TRUE(Has(Message(FromMap(env)), "AWS_ALLOW_HTTP is 'sure'; expected true or false"));
  // https needs nothing, and AWS_ALLOW_HTTP=false does not refuse it.
  env["AWS_ALLOW_HTTP"] = "false";
  env["AWS_ENDPOINT_URL_S3"] = "https://127.0.0.1:7480";
  EXPECT_TRUE(FromMap(env).ok());
  env.erase("AWS_ALLOW_HTTP");
  EXPECT_TRUE(FromMap(env).ok());
  env.erase("AWS_ENDPOINT_URL_S3");
  env["AWS_ENDPOINT_URL"] = "http://rgw:80";
  EXPECT_TRUE(Has(Message(FromMap(env)), "AWS_ENDPOINT_URL 'http://rgw:80' is plain HTTP"));
}

TEST(S3AllowHttpTest, RefusalsNameTheProfileWhenCredentialsCameFromIt) {
  const ErrorContext env{"o", "b", "http://h:1", "AWS_ENDPOINT_URL", ""};
  const ErrorContext file{"o", "b", "http://h:1", "AWS_ENDPOINT_URL",
                          "profile 'dev' in /home/u/.aws/credentials"};
  HttpResponse r;
  r.status = 403;
  r.body = "<Error><Code>InvalidAccessKeyId</Code></Error>";
  EXPECT_TRUE(Has(MapFailure(r, RequestKind::kRead, env).message(), "AWS_ACCESS_KEY_ID"));
  EXPECT_TRUE(Has(MapFailure(r, RequestKind::kRead, file).message(),
                  "aws_access_key_id of profile 'dev' in /home/u/.aws/credentials"));
  r.body = "<Error><Code>SignatureDoesNotMatch</Code></Error>";
  EXPECT_TRUE(Has(MapFailure(r, RequestKind::kRead, file).message(),
                  "aws_secret_access_key of profile 'dev'"));
}

}  // namespace
}  // namespace omnigraph::storage::s3
