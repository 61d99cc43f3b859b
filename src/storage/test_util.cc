#include "storage/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "base/status.h"

namespace omnigraph::storage {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/omnigraph-test-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  OMNIGRAPH_CHECK_MSG(made != nullptr, "mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool ChildResult::exited_zero() const {
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

bool WriteToFd(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::vector<ChildResult> RunChildrenTogether(
    int count, const std::function<int(int index, int out_fd)>& body) {
  int go[2];
  OMNIGRAPH_CHECK(::pipe(go) == 0);
  std::vector<pid_t> pids;
  std::vector<int> outs;
  for (int i = 0; i < count; ++i) {
    int out[2];
    OMNIGRAPH_CHECK(::pipe(out) == 0);
    pid_t pid = ::fork();
    OMNIGRAPH_CHECK(pid >= 0);
    if (pid == 0) {
      ::close(out[0]);
      ::close(go[1]);
      char c;
      // Start barrier: the read returns EOF once the parent closes its end.
      if (::read(go[0], &c, 1) != 0) ::_exit(100);
      ::_exit(body(i, out[1]));
    }
    ::close(out[1]);
    pids.push_back(pid);
    outs.push_back(out[0]);
  }
  ::close(go[0]);
  ::close(go[1]);  // Releases every child at once.
  std::vector<ChildResult> results(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(outs[i], buf, sizeof(buf))) > 0) {
      results[i].output.append(buf, static_cast<size_t>(n));
    }
    ::close(outs[i]);
    OMNIGRAPH_CHECK(::waitpid(pids[i], &results[i].wait_status, 0) == pids[i]);
  }
  return results;
}

}  // namespace omnigraph::storage
