// The per-thread Yielder (base/yield.h).
#include "base/yield.h"

namespace omnigraph {

namespace {
thread_local Yielder* tls_yielder = nullptr;
}  // namespace

Yielder* ThreadYielder() { return tls_yielder; }
void SetThreadYielder(Yielder* yielder) { tls_yielder = yielder; }

}  // namespace omnigraph
