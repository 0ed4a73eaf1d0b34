#include <sched.h>

#include <catch2/catch.hpp>

#include "runtime/execute/usable_cores.h"

using ge::runtime::QuotaCoresFromCfs;
using ge::runtime::QuotaCoresFromCpuMax;
using ge::runtime::UsableCores;

TEST_CASE("cgroup CPU quotas read as cores; unlimited or malformed ones as none", "[runtime][threads]") {
  CHECK(QuotaCoresFromCpuMax("150000 100000\n") == Approx(1.5));
  CHECK(QuotaCoresFromCpuMax("200000 100000") == Approx(2.0));
  CHECK_FALSE(QuotaCoresFromCpuMax("max 100000\n"));
  CHECK_FALSE(QuotaCoresFromCpuMax(""));
  CHECK_FALSE(QuotaCoresFromCpuMax("100000"));
  CHECK_FALSE(QuotaCoresFromCpuMax("abc 100000"));
  CHECK(QuotaCoresFromCfs("50000\n", "100000\n") == Approx(0.5));
  CHECK_FALSE(QuotaCoresFromCfs("-1", "100000"));
  CHECK_FALSE(QuotaCoresFromCfs("", ""));
  CHECK_FALSE(QuotaCoresFromCfs("100000", "0"));
}

TEST_CASE("the usable cores are at least one and at most the affinity mask's", "[runtime][threads]") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  CHECK(UsableCores() >= 1);
  CHECK(UsableCores() <= CPU_COUNT(&set));
}
