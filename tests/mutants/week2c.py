"""Week 2c mutants: realistic learner bugs in reference_impl/cpp_ops.cpp, by task. Each is
built like a submission (once per distinct source). ``python -m autograder.mutation week2c``."""

from __future__ import annotations

from autograder.mutation import Mutant

CPP = "cpp_ops.cpp"


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week2c", task, name, old, new, why, CPP)


WEEK2C_MUTANTS: list[Mutant] = [
    # --- Task 2.9: the CPU kernel -------------------------------------------------------------
    _m(
        "2.9",
        "bias ignored",
        "  return has(b) ? at::add(out, *b) : out;",
        "  return out;",
        "forgot the optional argument",
    ),
    _m(
        "2.9",
        "w not transposed",
        "  at::Tensor out = at::matmul(x, w.t());",
        "  at::Tensor out = at::matmul(x, w.reshape({w.size(1), w.size(0)}));",
        "a reshape where a transpose belongs: right shape, wrong numbers",
    ),
    # --- Task 2.10: the Autograd kernel's backward ---------------------------------------------
    _m(
        "2.10",
        "no bias gradient",
        '  at::Tensor db = ctx->saved_data["has_bias"].toBool() ? at::sum(rows, 0) : at::Tensor();',
        "  at::Tensor db = at::Tensor();",
        "b gets no gradient",
    ),
    _m(
        "2.10",
        "dw from the first batch only",
        "  at::Tensor dw = at::matmul(rows.t(), x.reshape({-1, x.size(-1)}));",
        "  at::Tensor dw = at::matmul(g.select(0, 0).reshape({-1, g.size(-1)}).t(),\n"
        "                             x.select(0, 0).reshape({-1, x.size(-1)}));",
        "the batch dimensions are not summed over",
    ),
    # --- Task 2.11: the Meta kernel -----------------------------------------------------------
    _m(
        "2.11",
        "meta keeps in_features",
        "  shape.push_back(w.size(0));",
        "  shape.push_back(w.size(1));",
        "w is [out, in]: the wrong dimension",
    ),
    _m(
        "2.11",
        "meta drops the batch",
        "  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 1);",
        "  std::vector<int64_t> shape(x.sizes().end() - 2, x.sizes().end() - 1);",
        "only the last row dimension kept",
    ),
    # --- Task 2.12: the logging fallback ------------------------------------------------------
    _m(
        "2.12",
        "fallback logs names only",
        '    line += " ";\n',
        '    continue;\n    line += " ";\n',
        "no shapes",
    ),
    _m(
        "2.12",
        "fallback skips the stack's first argument",
        "  for (size_t i = stack->size() - n; i < stack->size(); ++i) {",
        "  for (size_t i = stack->size() - n + 1; i < stack->size(); ++i) {",
        "an off-by-one on the stack",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
