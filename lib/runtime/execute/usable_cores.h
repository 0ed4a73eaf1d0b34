// How many cores this process may use: the CPUs of its affinity mask
// (taskset, cpusets), further limited by a cgroup CPU quota (docker --cpus,
// Kubernetes CPU limits), rounded up. The default intra-op thread count
// (ge.exec.intraOpThreads 0): more threads than that would only take turns.
#pragma once

#include <optional>
#include <string_view>

namespace ge::runtime {

// Read once per process (kernels are sized by the team they are built for,
// so the default must not grow later). At least 1.
int UsableCores();

// The quota in cores of a cgroup v2 cpu.max ("max 100000", "150000 100000"),
// or of cgroup v1's cpu.cfs_quota_us / cpu.cfs_period_us (-1: none);
// nullopt when unlimited or unreadable.
std::optional<double> QuotaCoresFromCpuMax(std::string_view cpu_max);
std::optional<double> QuotaCoresFromCfs(std::string_view quota_us, std::string_view period_us);

}  // namespace ge::runtime
