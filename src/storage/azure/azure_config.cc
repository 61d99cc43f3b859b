#include "storage/azure/azure_config.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace omnigraph::storage::azure {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<std::string> NonEmpty(
    const std::function<std::optional<std::string>(std::string_view)>& lookup,
    std::string_view name) {
  std::optional<std::string> v = lookup(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

std::optional<std::vector<unsigned char>> Base64Decode(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::vector<unsigned char> out(text.size() / 4 * 3);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string Base64Encode(const unsigned char* data, size_t size) {
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ParseConnectionString(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> fields;
  while (!text.empty()) {
    size_t semi = text.find(';');
    std::string_view field = text.substr(0, semi);
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    fields.emplace_back(std::string(field.substr(0, eq)), std::string(field.substr(eq + 1)));
  }
  return fields;
}

Result<AzureConfig> AzureConfig::FromEnvironment() {
  return FromLookup([](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

Result<AzureConfig> AzureConfig::FromLookup(
    const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  AzureConfig config;
  std::string protocol = "https";
  std::string suffix = "core.windows.net";
  if (std::optional<std::string> cs = NonEmpty(lookup, "AZURE_STORAGE_CONNECTION_STRING")) {
    for (auto& [name, value] : ParseConnectionString(*cs)) {
      if (name == "AccountName") config.account = value;
      if (name == "AccountKey") config.key = value;
      if (name == "DefaultEndpointsProtocol") protocol = value;
      if (name == "EndpointSuffix") suffix = value;
      if (name == "BlobEndpoint") {
        config.endpoint = value;
        config.endpoint_source = "BlobEndpoint in AZURE_STORAGE_CONNECTION_STRING";
      }
    }
  }
  if (std::optional<std::string> v = NonEmpty(lookup, "AZURE_STORAGE_ACCOUNT")) config.account = *v;
  if (std::optional<std::string> v = NonEmpty(lookup, "AZURE_STORAGE_KEY")) config.key = *v;
  if (std::optional<std::string> v = NonEmpty(lookup, "AZURE_BLOB_ENDPOINT")) {
    config.endpoint = *v;
    config.endpoint_source = "AZURE_BLOB_ENDPOINT";
  }
  if (config.account.empty()) {
    return Status(Code::kConfiguration,
                  "no Azure storage account: set AZURE_STORAGE_ACCOUNT (and AZURE_STORAGE_KEY) or "
                  "AZURE_STORAGE_CONNECTION_STRING");
  }
  if (config.key.empty()) {
    return Status(Code::kConfiguration,
                  "no key for the Azure storage account '" + config.account +
                      "': set AZURE_STORAGE_KEY or AccountKey in AZURE_STORAGE_CONNECTION_STRING");
  }
  if (!Base64Decode(config.key)) {
    return Status(Code::kConfiguration, "the Azure storage key (AZURE_STORAGE_KEY) is not base64");
  }
  if (config.endpoint.empty()) {
    config.endpoint = protocol + "://" + config.account + ".blob." + suffix;
    config.endpoint_source = "the default endpoint of account " + config.account;
  }
  while (!config.endpoint.empty() && config.endpoint.back() == '/') config.endpoint.pop_back();
  if (!config.endpoint.starts_with("http://") && !config.endpoint.starts_with("https://")) {
    return Status(Code::kConfiguration, "the Azure blob endpoint '" + config.endpoint + "' (" +
                                            config.endpoint_source +
                                            ") must start with http:// or https://");
  }
  return config;
}

std::string StringToSign(const SignedRequest& r, std::string_view account) {
  std::string s = r.method + "\n";
  s += "\n";  // Content-Encoding
  s += "\n";  // Content-Language
  s += (r.content_length == 0 ? std::string() : std::to_string(r.content_length)) + "\n";
  s += "\n";  // Content-MD5
  s += r.content_type + "\n";
  s += "\n";  // Date (x-ms-date is signed instead)
  s += "\n";  // If-Modified-Since
  s += r.if_match + "\n";
  s += r.if_none_match + "\n";
  s += "\n";  // If-Unmodified-Since
  s += r.range + "\n";
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : r.ms_headers) headers.emplace_back(Lower(name), value);
  std::sort(headers.begin(), headers.end());
  for (const auto& [name, value] : headers) s += name + ":" + value + "\n";
  s += "/" + std::string(account) + r.path;
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : r.query) query.emplace_back(Lower(name), value);
  std::sort(query.begin(), query.end());
  for (size_t i = 0; i < query.size(); ++i) {
    // Repeated parameters sign once, with their values joined by ','.
    if (i > 0 && query[i].first == query[i - 1].first) {
      s += "," + query[i].second;
    } else {
      s += "\n" + query[i].first + ":" + query[i].second;
    }
  }
  return s;
}

Result<std::string> SharedKeySignature(std::string_view key_base64,
                                       std::string_view string_to_sign) {
  std::optional<std::vector<unsigned char>> key = Base64Decode(key_base64);
  if (!key) {
    return Status(Code::kConfiguration, "the Azure storage key (AZURE_STORAGE_KEY) is not base64");
  }
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_size = 0;
  if (HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()),
           reinterpret_cast<const unsigned char*>(string_to_sign.data()), string_to_sign.size(),
           mac, &mac_size) == nullptr) {
    return Status(Code::kPermanent, "HMAC-SHA256 failed");
  }
  return Base64Encode(mac, mac_size);
}

}  // namespace omnigraph::storage::azure
