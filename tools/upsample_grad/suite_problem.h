// A suite case (bench_suite.h) as a Problem for the runner, and its deterministic source data:
// what `upsample-grad bench` and bench/target_ab time.
#ifndef TOOLS_UPSAMPLE_GRAD_SUITE_PROBLEM_H_
#define TOOLS_UPSAMPLE_GRAD_SUITE_PROBLEM_H_

#include <cstddef>
#include <vector>

#include "acl_runner.h"
#include "bench_suite.h"

namespace upsample_grad {

// The case's operator and sizes, contiguous in NCHW or over channels-last memory as its layout
// says; scales never given.
Problem SuiteProblem(const SuiteCase& suite_case);

// Deterministic values in [-1, 1) in the problem's dtype (the source's storage), so that runs
// are comparable.
std::vector<std::byte> SuiteSource(const Problem& problem);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_SUITE_PROBLEM_H_
