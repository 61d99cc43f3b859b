// Test helpers for storage: temporary directories that clean up after themselves.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::storage {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What one forked child wrote to its output pipe, and how it ended (a waitpid status).
struct ChildResult {
  std::string output;
  int wait_status = 0;
  bool exited_zero() const;
};

// Forks `count` children that start together: each blocks on a shared pipe until every child
// exists, then runs body(index, out_fd) and exits with its return value. Returns each child's
// output and status, in index order. The children must not start threads.
std::vector<ChildResult> RunChildrenTogether(int count,
                                             const std::function<int(int index, int out_fd)>& body);

// Writes all of `data` to `fd`; false on error.
bool WriteToFd(int fd, std::string_view data);

}  // namespace omnigraph::storage
