#include "storage/azure/azure_test_util.h"

#include <cstdlib>

#include "storage/uri.h"

namespace omnigraph::storage::azure {

namespace {

constexpr char kHowToStart[] =
    "start the Azure test server first: `source scripts/servers.sh && servers_start` (Azurite on "
    "127.0.0.1, always with --disableTelemetry; exports OMNIGRAPH_TEST_AZURE_URI and AZURE_*), or "
    "run `bash scripts/test.sh`, which does it";

}  // namespace

Result<AzureTestTarget> AzureTestTargetFromEnvironment() {
  const char* uri = std::getenv("OMNIGRAPH_TEST_AZURE_URI");
  if (uri == nullptr || *uri == '\0') {
    return Status(Code::kConfiguration,
                  std::string("OMNIGRAPH_TEST_AZURE_URI is not set, so there is no Azure server to "
                              "test against: ") +
                      kHowToStart);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(StoreUri parsed, ParseStoreUri(uri));
  if (parsed.scheme != Scheme::kAzure) {
    return Status(Code::kConfiguration,
                  "OMNIGRAPH_TEST_AZURE_URI must be az://container[/prefix], "
                  "not '" +
                      std::string(uri) + "'");
  }
  Result<AzureConfig> config = AzureConfig::FromEnvironment();
  if (!config.ok()) return config.status().WithContext(kHowToStart);
  return AzureTestTarget{std::move(*config), parsed.location, parsed.prefix};
}

std::string AzureTestServerMissing() {
  Result<AzureTestTarget> target = AzureTestTargetFromEnvironment();
  return target.ok() ? std::string() : target.status().message();
}

Result<std::shared_ptr<AzureStore>> OpenTestStore(std::string_view label) {
  OMNIGRAPH_ASSIGN_OR_RETURN(AzureTestTarget target, AzureTestTargetFromEnvironment());
  OMNIGRAPH_RETURN_IF_ERROR(AzureStore::CreateContainer(target.config, target.container));
  std::string prefix = (target.prefix.empty() ? "" : target.prefix + "/") + std::string(label) +
                       "-" + s3::UniqueSuffix();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<AzureStore> store,
                             AzureStore::Open(target.config, target.container, prefix));
  return std::shared_ptr<AzureStore>(std::move(store));
}

Result<std::shared_ptr<AzureStore>> OpenFreshContainerStore() {
  OMNIGRAPH_ASSIGN_OR_RETURN(AzureTestTarget target, AzureTestTargetFromEnvironment());
  std::string container = "og-test-" + s3::UniqueSuffix();
  OMNIGRAPH_RETURN_IF_ERROR(AzureStore::CreateContainer(target.config, container));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<AzureStore> store,
                             AzureStore::Open(target.config, container, ""));
  return std::shared_ptr<AzureStore>(std::move(store));
}

RealServer AzureServer() {
  return RealServer{"Azure", &AzureTestServerMissing,
                    [](std::string_view label) -> Result<std::shared_ptr<ObjectStore>> {
                      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<AzureStore> store,
                                                 OpenTestStore(label));
                      return std::shared_ptr<ObjectStore>(std::move(store));
                    }};
}

}  // namespace omnigraph::storage::azure
