// Fuzz harness: the policy YAML readers (docs/design/fuzzing.md): a bundle parsed for each
// binding, then a test file, each a typed refusal naming the file or a value.
#include "policy/policy.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  const policy::Binding bindings[] = {policy::Binding::Unbound(), policy::Binding::Cluster(),
                                      policy::Binding::Graphs({"spike"})};
  for (const policy::Binding& binding : bindings) {
    Result<policy::Policy> p = policy::Policy::Parse(in, "p.policy.yaml", binding);
    fuzz::ExpectNamed(p, "");
    if (p.ok()) (void)p->Actors();
  }
  fuzz::ExpectNamed(policy::ParseTests(in, "p.tests.yaml"), "");
  return 0;
}
