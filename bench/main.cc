#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "bench/bench.h"

namespace omnigraph::bench {

namespace {
struct Command {
  const char* help;
  BenchMain main;
};
std::map<std::string, Command>& Commands() {
  static auto* commands = new std::map<std::string, Command>();
  return *commands;
}
}  // namespace

Registrar::Registrar(const char* name, const char* help, BenchMain main) {
  Commands()[name] = Command{help, main};
}

Flags::Flags(const std::vector<std::string>& args, const std::vector<std::string>& known) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      error_ = "unexpected argument '" + a + "'";
      return;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[++i];
    }
    bool ok = false;
    for (const std::string& k : known) ok = ok || k == name;
    if (!ok) {
      error_ = "unknown flag --" + name;
      return;
    }
    values_[name] = value;
  }
}

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int64_t Flags::GetInt(const std::string& name, int64_t fallback) const {
  auto it = values_.find(name);
  return it == values_.end() || it->second.empty() ? fallback : std::stoll(it->second);
}

std::vector<int64_t> Flags::GetIntList(const std::string& name,
                                       std::vector<int64_t> fallback) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return fallback;
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= it->second.size()) {
    size_t comma = it->second.find(',', start);
    if (comma == std::string::npos) comma = it->second.size();
    out.push_back(std::stoll(it->second.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

double Percentile(std::vector<double>& samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t index = static_cast<size_t>(p / 100.0 * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(index, samples.size() - 1)];
}

}  // namespace omnigraph::bench

int main(int argc, char** argv) {
  using omnigraph::bench::Commands;
  if (argc < 2 || Commands().count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: omnigraph-bench <command> [flags]\ncommands:\n");
    for (const auto& [name, command] : Commands()) {
      std::fprintf(stderr, "  %-8s %s\n", name.c_str(), command.help);
    }
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return Commands()[argv[1]].main(args);
}
