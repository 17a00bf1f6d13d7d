// Bugs the fuzzer found that ctorch has not fixed yet (none is open now). Each has a DISABLED_ regression test in
// regressions_test.cpp; until it is fixed the generators steer around it, so that the bounded CI run
// stays green and keeps finding new things. `ctorch_api_fuzz --include-known` turns them all back on
// (to check a fix: then enable the regression test and delete the entry here).
#pragma once


namespace ctorch::fuzz {

enum class Known {
  // None open. (IntegerReductionOverflow, integer sum/prod overflow as signed overflow in SumOp, was
  // fixed: FuzzRegression.IntegerSumAndProdWrapAround; Note [Integer reductions wrap].)
};


/// True when the generators must avoid `bug` (it is still open and --include-known was not given).
bool avoid(Known bug);
/// Set by --include-known.
void include_known_bugs(bool on);

}  // namespace ctorch::fuzz
