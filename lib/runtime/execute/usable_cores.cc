#include "runtime/execute/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>

namespace ge::runtime {
namespace {

std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  std::getline(file, text);
  return text;
}

// This process's cgroup path for a controller ("" for cgroup v2's unified
// hierarchy), from /proc/self/cgroup lines "ID:CONTROLLERS:PATH".
std::optional<std::string> CgroupPath(std::string_view controller) {
  std::ifstream file("/proc/self/cgroup");
  std::string line;
  while (std::getline(file, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::stringstream controllers(line.substr(first + 1, second - first - 1));
    std::string name;
    bool match = controller.empty() && second == first + 1;
    while (!controller.empty() && std::getline(controllers, name, ',')) match = match || name == controller;
    if (match) return line.substr(second + 1);
  }
  return std::nullopt;
}

// The smallest quota of the cgroup and its ancestors: a parent's limit binds too.
std::optional<double> CgroupQuotaCores() {
  std::optional<double> smallest;
  auto take = [&](std::optional<double> quota) {
    if (quota && (!smallest || *quota < *smallest)) smallest = quota;
  };
  auto walk_up = [&](std::string path, const auto& read) {
    while (true) {
      read(path);
      if (path.empty() || path == "/") return;
      path = path.substr(0, path.rfind('/'));
    }
  };
  if (const std::optional<std::string> unified = CgroupPath("")) {
    walk_up(*unified, [&](const std::string& path) {
      take(QuotaCoresFromCpuMax(ReadSmallFile("/sys/fs/cgroup" + path + "/cpu.max")));
    });
  }
  if (const std::optional<std::string> v1 = CgroupPath("cpu")) {
    for (const char* mount : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      walk_up(*v1, [&](const std::string& path) {
        const std::string dir = mount + path;
        take(QuotaCoresFromCfs(ReadSmallFile(dir + "/cpu.cfs_quota_us"), ReadSmallFile(dir + "/cpu.cfs_period_us")));
      });
    }
  }
  return smallest;
}

int AffinityCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return omp_get_num_procs();
  return std::max(1, CPU_COUNT(&set));
}

}  // namespace

std::optional<double> QuotaCoresFromCpuMax(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::optional<double> quota = ParseNumber(cpu_max.substr(0, space));  // "max" does not parse: unlimited
  const std::optional<double> period = ParseNumber(cpu_max.substr(space + 1));
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return *quota / *period;
}

std::optional<double> QuotaCoresFromCfs(std::string_view quota_us, std::string_view period_us) {
  const std::optional<double> quota = ParseNumber(quota_us), period = ParseNumber(period_us);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return *quota / *period;
}

int UsableCores() {
  static const int cores = [] {
    int usable = AffinityCores();
    if (const std::optional<double> quota = CgroupQuotaCores()) {
      usable = std::min(usable, std::max(1, static_cast<int>(std::ceil(*quota))));
    }
    return usable;
  }();
  return cores;
}

}  // namespace ge::runtime
