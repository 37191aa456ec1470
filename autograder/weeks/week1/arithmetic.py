"""Week 1 cases. Task 1.11: elementwise + - * with broadcasting, promotion and output layout."""

from __future__ import annotations

from autograder import attempt, case, shares_storage
from autograder.observe import dtype_name
from autograder.weeks.week1.common import (
    W,
    _values_only,
    value,
)

# --- Task 1.11: elementwise arithmetic with broadcasting ------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.8", "1.10", "1.11"))
def broadcasting_arithmetic(lib):
    """+ - * broadcast their operands; the result is a fresh contiguous tensor."""
    col = lib.arange(3).view(3, 1)
    row = lib.arange(4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "col + row": attempt(lambda: col + row),
        "col - row": attempt(lambda: col - row),
        "row - col": attempt(lambda: row - col),
        "col * row": attempt(lambda: col * row),
        "y * row": attempt(lambda: y * row),
        "y + col": attempt(lambda: y + col),
        "y - tensor(1)": attempt(lambda: y - lib.tensor(1)),
        "arange(2).view(2, 1, 1) * col": attempt(lambda: lib.arange(2).view(2, 1, 1) * col),
        "shares storage with col": attempt(lambda: shares_storage(col + row, col)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.9", "1.10", "1.11"))
def arithmetic_on_views(lib):
    """Elementwise ops read each operand through its own strides (values; the layout of the
    result is arithmetic_result_layout's business)."""
    x = lib.arange(12).view(3, 4)
    e = lib.arange(3).view(3, 1).expand(3, 4)
    return {
        "x.t() + x.t()": _values_only(lambda: x.t() + x.t()),
        "x.t() * arange(3)": _values_only(lambda: x.t() * lib.arange(3)),
        "x[:, ::2] - x[:, 1::2]": _values_only(lambda: x[:, ::2] - x[:, 1::2]),
        "x[1:] * x[:-1]": _values_only(lambda: x[1:] * x[:-1]),
        "e + x": _values_only(lambda: e + x),
        "x.unfold(1, 2, 1) * 10": _values_only(lambda: x.unfold(1, 2, 1) * 10),
        "x[2, 1] + x[:, 0]": _values_only(lambda: x[2, 1] + x[:, 0]),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.10", "1.11"))
def arithmetic_result_layout(lib):
    """The result is dense but follows the inputs' memory order (TensorIterator): a transposed
    input gives a transposed result; broadcast (stride-0) operands do not vote."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    t = lib.arange(6.0).view(2, 3).t()
    return {
        "arange(6.).view(2, 3).t() + 1": attempt(lambda: t + 1),
        "x.t() * x.t()": attempt(lambda: x.t() * x.t()),
        "y.permute(2, 0, 1) + 1": attempt(lambda: y.permute(2, 0, 1) + 1),
        "x.t() + arange(3)": attempt(lambda: x.t() + lib.arange(3)),
        "x.t().contiguous() + x.t()": attempt(lambda: x.t().contiguous() + x.t()),
        "x[:, ::2].t() * 2": attempt(lambda: x[:, ::2].t() * 2),
        "x[:, ::2] + 1": attempt(lambda: x[:, ::2] + 1),
        "arange(3).view(3, 1) + arange(4)": attempt(
            lambda: lib.arange(3).view(3, 1) + lib.arange(4)
        ),
        "zeros(3, 1).expand(3, 4).t() + 1": attempt(lambda: lib.zeros(3, 1).expand(3, 4).t() + 1),
    }


@case(W, points=2, tasks=("1.1", "1.11"))
def task_1_11_result_type(lib):
    """result_type(a, b): categories first (bool < integer < floating), then size, and a 0-d
    tensor or Python scalar only counts when it is of a higher category."""
    # Operands are built inside each guard, so an unfinished factory fails its own entries
    # and not the whole case.
    operands = {
        "int64": lambda: lib.arange(3),
        "float32": lambda: lib.arange(3, dtype=lib.float32),
        "float64": lambda: lib.arange(3, dtype=lib.float64),
        "bool": lambda: lib.tensor([True, False, True]),
        "tensor(2.5, float64)": lambda: lib.tensor(2.5, dtype=lib.float64),
        "tensor(2.5)": lambda: lib.tensor(2.5),
        "tensor(7)": lambda: lib.tensor(7),
        "tensor(1)": lambda: lib.tensor(1),
        "2.5": lambda: 2.5,
        "2": lambda: 2,
        "3": lambda: 3,
        "True": lambda: True,
    }
    pairs = [
        ("int64", "float32"), ("float32", "float64"), ("bool", "int64"), ("int64", "2.5"),
        ("float32", "2"), ("bool", "True"), ("bool", "3"), ("int64", "True"),
        ("float32", "tensor(2.5, float64)"), ("int64", "tensor(2.5)"), ("bool", "tensor(7)"),
        ("tensor(1)", "tensor(2.5, float64)"), ("2", "2.5"),
    ]  # fmt: skip
    out = {"arange(3).dtype": value(lambda: dtype_name(lib.arange(3)))}
    for x, y in pairs:
        out[f"result_type({x}, {y})"] = value(
            lambda x=x, y=y: dtype_name(lib.result_type(operands[x](), operands[y]()))
        )
    return out


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def type_promotion(lib):
    """int64 with float gives float32; float32 with float64 gives float64; bool is lowest.

    Subtraction refuses bool operands (tensor or Python bool) whatever the other side is.
    """
    i = lib.arange(3)
    f = lib.arange(3, dtype=lib.float32)
    d = lib.arange(3, dtype=lib.float64)
    b = lib.tensor([True, False, True])
    return {
        "int64 + float32": attempt(lambda: i + f),
        "int64 * float64": attempt(lambda: i * d),
        "float32 - float64": attempt(lambda: f - d),
        "int64 * 2.5": attempt(lambda: i * 2.5),
        "int64 + 2": attempt(lambda: i + 2),
        "float32 + 2": attempt(lambda: f + 2),
        "2.5 - int64": attempt(lambda: 2.5 - i),
        "10 - int64": attempt(lambda: 10 - i),
        "3 * float64": attempt(lambda: 3 * d),
        "bool + bool": attempt(lambda: b + b),
        "bool * bool": attempt(lambda: b * b),
        "bool + 1": attempt(lambda: b + 1),
        "bool + True": attempt(lambda: b + True),
        "bool * 1.5": attempt(lambda: b * 1.5),
        "int64 + bool": attempt(lambda: i + b),
        "int64 * True": attempt(lambda: i * True),
        "bool - bool": attempt(lambda: b - b),
        "int64 - bool": attempt(lambda: i - b),
        "float32 - True": attempt(lambda: f - True),
        "True - float32": attempt(lambda: True - f),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def zero_dim_operands_in_promotion(lib):
    """A 0-d tensor only changes the dtype when it is of a higher kind (int < float)."""
    i = lib.arange(3)
    f = lib.arange(3, dtype=lib.float32)
    return {
        "int64 + tensor(1.5, float64)": attempt(lambda: i + lib.tensor(1.5, dtype=lib.float64)),
        "float32 + tensor(1.5, float64)": attempt(lambda: f + lib.tensor(1.5, dtype=lib.float64)),
        "tensor(2) + float32": attempt(lambda: lib.tensor(2) + f),
        "tensor(2.5) * int64": attempt(lambda: lib.tensor(2.5) * i),
        "tensor(2) * bool": attempt(lambda: lib.tensor(2) * lib.tensor([True, False])),
        "tensor(2) - tensor(0.5)": attempt(lambda: lib.tensor(2) - lib.tensor(0.5)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def broadcast_errors_and_empty_results(lib):
    """Mismatched non-1 sizes raise; a size-0 dim broadcasts against 1 to an empty result."""
    return {
        "arange(3) + arange(4)": attempt(lambda: lib.arange(3) + lib.arange(4)),
        "ones(3) + ones(4)": attempt(lambda: lib.ones(3) + lib.ones(4)),
        "ones(2, 3) + ones(3, 2)": attempt(lambda: lib.ones(2, 3) + lib.ones(3, 2)),
        "ones(2, 3) * ones(2)": attempt(lambda: lib.ones(2, 3) * lib.ones(2)),
        "zeros(0, 3) + ones(3)": attempt(lambda: lib.zeros(0, 3) + lib.ones(3)),
        "zeros(0, 1) + ones(4)": attempt(lambda: lib.zeros(0, 1) + lib.ones(4)),
        "ones(2, 1) + ones(0)": attempt(lambda: lib.ones(2, 1) + lib.ones(0)),
        "zeros(0) + ones(3)": attempt(lambda: lib.zeros(0) + lib.ones(3)),
    }
