// The README's first command runs this demo. It grows with the engine: for now it shows the
// building blocks every commit uses (ids that encode time, canonical JSON and its digest).
#include <cstdio>

#include "base/clock.h"
#include "base/hash.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/random.h"

int main(int argc, char** argv) {
  using namespace omnigraph;
  const char* root = argc > 1 ? argv[1] : "/tmp/omnigraph-demo";
  Random random = Random::FromEntropy();
  UlidGenerator ulids(*SystemClock::Default(), random);
  Json record = {{"format", 1},
                 {"seq", 0},
                 {"commit_id", "main.0." + RandomCrockford(random, 10)},
                 {"graph_id", ulids.NextString()}};
  std::string bytes = CanonicalJson(record);
  std::printf("graph root: %s\nrecord: %s\nsha256: %s\n", root, bytes.c_str(),
              Sha256Hex(bytes).c_str());
  return 0;
}
