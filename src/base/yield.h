// Yielder: a seam for a deterministic scheduler (the simulator, docs/design/simulation.md).
//
// A thread that waits for another thread's progress (group commit's queue) calls its Yielder,
// when one is installed, between checks of what it waits for, instead of blocking on a condition
// variable, so that a scheduler running one thread at a time can run the thread it waits for.
// Without one installed (production) nothing changes. The installed Yielder is per thread.
#pragma once

namespace omnigraph {

class Yielder {
 public:
  virtual ~Yielder() = default;
  // Gives up the calling thread's turn; returns when the scheduler gives it back.
  virtual void Yield() = 0;
};

// The calling thread's Yielder; null (block as usual) unless a scheduler installed one.
Yielder* ThreadYielder();
// Installs `yielder` for the calling thread (null removes it).
void SetThreadYielder(Yielder* yielder);

}  // namespace omnigraph
