"""Tasks 5.7 and 5.8: the device's own kernels, the fallback for every other op, and a model
trained on the device (forward, backward and SGD give the CPU's numbers)."""

from __future__ import annotations

import warnings
from typing import Any

import torch

from autograder.cases import case, property_case
from autograder.weeks.week5.common import (
    W,
    base_name,
    data,
    device,
    each,
    fell_back,
    kind_only,
    mlp,
    result,
    values,
)


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7"))
def task_5_7_factories(lib: Any) -> Any:
    """``torch.full`` and ``ones`` on the device (``empty`` then ``fill_``), for float, integer
    and bool dtypes, and ``fill_`` on a view. (``zeros`` calls ``zero_``, which has no device
    kernel here: it falls back, Task 5.8.)"""
    dev = device(lib)

    def fill_view() -> Any:
        x = torch.full((3, 4), 0.0, device=dev)
        x[:, 1].fill_(5)
        return result(x, dev)

    return each(
        {
            "full 2.5": lambda: result(torch.full((2, 3), 2.5, device=dev), dev),
            "ones int64": lambda: result(torch.ones(4, dtype=torch.int64, device=dev), dev),
            "full bool": lambda: result(torch.full((2,), True, device=dev), dev),
            "fill_ a column": fill_view,
        }
    )


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7"))
def task_5_7_add_and_mul(lib: Any) -> Any:
    """``add`` and ``mul`` on the device: same shapes, broadcasting, a Python number (which
    arrives as a CPU scalar tensor), ``alpha``, int with float (promotion), a transposed input."""
    dev = device(lib)
    x, y, row = data(2, 3).to(dev), data(2, 3, start=3).to(dev), data(3, start=1).to(dev)
    i = torch.arange(6).reshape(2, 3).to(dev)
    return each(
        {
            "x + y": lambda: result(x + y, dev),
            "x + row": lambda: result(x + row, dev),
            "x + 1": lambda: result(x + 1, dev),
            "add alpha=2": lambda: result(torch.add(x, y, alpha=2), dev),
            "int + float": lambda: result(i + x, dev),
            "int + int": lambda: result(i + i, dev),
            "x * y": lambda: result(x * y, dev),
            "x * row": lambda: result(x * row, dev),
            "x * 0.5": lambda: result(x * 0.5, dev),
            "int * 3": lambda: result(i * 3, dev),
            "x.t() * y.t()": lambda: result(x.t() * y.t(), dev),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.7"))
def task_5_7_sum(lib: Any) -> Any:
    """``sum`` on the device: everything, one dim, a negative dim, several dims, keepdim,
    integer and bool tensors (an int64 result, whatever the integer type: aten/src/ATen/native/
    ReduceOpsUtils.h, get_dtype_from_self promotes integral types to long) and a dtype
    argument."""
    dev = device(lib)
    x = data(2, 3, 4).to(dev)
    i = torch.arange(12).reshape(3, 4).to(dev)
    i32 = torch.arange(6, dtype=torch.int32).reshape(2, 3).to(dev)
    flags = torch.tensor([True, False, True]).to(dev)
    return each(
        {
            "sum()": lambda: result(x.sum(), dev),
            "sum(1)": lambda: result(x.sum(1), dev),
            "sum(-1)": lambda: result(x.sum(-1), dev),
            "sum((0, 2))": lambda: result(x.sum((0, 2)), dev),
            "sum(1, keepdim)": lambda: result(x.sum(1, keepdim=True), dev),
            "int sum(0)": lambda: result(i.sum(0), dev),
            "int32 sum()": lambda: result(i32.sum(), dev),
            "int32 sum(1)": lambda: result(i32.sum(1), dev),
            "bool sum()": lambda: result(flags.sum(), dev),
            "sum(dtype=float64)": lambda: result(x.sum(dtype=torch.float64), dev),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7"))
def task_5_7_mm_and_relu(lib: Any) -> Any:
    """``mm`` (also with a transposed argument, and refusing shapes that do not fit with the
    CPU's RuntimeError and numbers) and ``relu``: infinities and NaN as the CPU's (relu is
    clamp_min(x, 0): aten/src/ATen/native/Activation.cpp), and its input left as it was."""
    dev = device(lib)
    a, b = data(3, 4).to(dev), data(4, 2, start=1).to(dev)
    inf = float("inf")

    def input_after_relu() -> Any:
        x = torch.tensor([-1.0, 2.0, -0.5]).to(dev)
        x.relu()
        return result(x, dev)

    return each(
        {
            "a @ b": lambda: result(a @ b, dev),
            "mm(a, a.t())": lambda: result(torch.mm(a, a.t()), dev),
            "b.t() @ a.t()": lambda: result(b.t() @ a.t(), dev),
            "mismatch": lambda: result(torch.mm(a, a), dev),
            "relu": lambda: result(torch.relu(a), dev),
            "relu of a view": lambda: result(a.t().relu(), dev),
            "relu of -inf, inf, nan": lambda: result(
                torch.tensor([-inf, inf, float("nan"), -0.0]).to(dev).relu(), dev
            ),
            "relu's input after it": input_after_relu,
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7"))
def task_5_7_own_kernels_do_not_fall_back(lib: Any) -> Any:
    """The device's own kernels run on the device: a program of add, mul, sum, mm, relu and
    views sends nothing to the fallback; the results stay on the device."""
    dev = device(lib)
    x, w = data(2, 3).to(dev), data(3, 4).to(dev)
    kept: list[Any] = []

    def program() -> None:
        kept.append(((x * 2 + 1) @ w).relu().sum(0).view(2, 2))

    return {"fell back": fell_back(lib, program), "result": result(kept[0], dev)}


FALLBACK_PROGRAMS = {
    "sub": lambda x, y: torch.sub(x, y),
    "exp": lambda x, y: x.exp(),
    "neg": lambda x, y: -x,
    "where": lambda x, y: torch.where(x > 0, x, y),
    "cat": lambda x, y: torch.cat([x, y]),
    "index": lambda x, y: x[torch.tensor([1, 0])],
    "max": lambda x, y: x.max(),
    "cumsum": lambda x, y: x.cumsum(1),
}


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.8"))
def task_5_8_fallback_computes(lib: Any) -> Any:
    """Ops without a device kernel run through the fallback and give the CPU's values, on the
    device: sub, exp, neg, comparison and where, cat, indexing, max, cumsum."""
    dev = device(lib)
    out = {}
    for name, program in FALLBACK_PROGRAMS.items():

        def one(program: Any = program) -> Any:
            x, y = data(2, 3).to(dev), data(2, 3, start=2).to(dev)
            return result(program(x, y), dev)

        out[name] = each({"": one})[""]
    return out


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.8"))
def task_5_8_fallback_logs_each_op(lib: Any) -> Any:
    """The fallback notes every op it takes: for each program, the ops that reached it are
    those torch dispatches for it that have no device kernel (and are not composed of others)."""
    dev = device(lib)
    out = {}
    for name, program in FALLBACK_PROGRAMS.items():

        def one(program: Any = program) -> Any:
            x, y = data(2, 3).to(dev), data(2, 3, start=2).to(dev)
            return fell_back(lib, lambda: program(x, y))

        out[name] = each({"": one})[""]
    return out


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.8"))
def task_5_8_fallback_logs_every_call(lib: Any) -> Any:
    """The fallback's log is every call it took, in order, an op called twice logged twice (as
    torch's own dispatch logging, LoggingTensorMode, sees each call), and each op named as the
    dispatcher names it, with its namespace: "aten::sub" (c10::OperatorName)."""
    dev = device(lib)
    x, y = data(2, 3).to(dev), data(2, 3, start=2).to(dev)
    programs = {
        "x - y twice": lambda: (x - y, x - y),
        "exp, neg, exp": lambda: (x.exp(), -x, x.exp()),
    }

    def namespaces() -> list[str]:
        ops = lib.fallback_ops(lambda: (x - y, x.exp()))
        return sorted({op.split("::")[0] if "::" in op else "(none)" for op in ops})

    out: dict[str, Any] = {
        name: each({"": lambda p=p: [base_name(op) for op in lib.fallback_ops(p)]})[""]
        for name, p in programs.items()
    }
    out["namespaces"] = each({"": namespaces})[""]
    return out


@case(W, points=1, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.8"))
def task_5_8_fallback_runs_view_ops(lib: Any) -> Any:
    """A view op with no device kernel (``unfold`` has CPU and Meta kernels only) still reaches
    the fallback and gives the CPU's shape and values: cpu_fallback warns that it cannot make a
    view there and hands back a copy (aten/src/ATen/native/CPUFallback.cpp), so neither strides
    nor sharing are compared, only that it works."""
    dev = device(lib)
    x = data(5).to(dev)
    kept: list[Any] = []

    def program() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "appears to be a view operator" (CPUFallback.cpp)
            kept.append(x.unfold(0, 2, 1))

    return each(
        {
            "fell back": lambda: fell_back(lib, program),
            "values": lambda: values(kept[0].cpu()),
            "on the device": lambda: kept[0].device.type == dev,
        }
    )


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.8"))
def task_5_8_in_place_ops_copy_back(lib: Any) -> Any:
    """An in-place op or an ``out=`` op that falls back must copy its result back into the
    device tensor (``cpu_fallback`` does, when the kernel writes through the CPU copy): the
    tensor itself, a view of it, and its base through the view."""
    dev = device(lib)

    def in_place() -> Any:
        x = data(2, 3).to(dev)
        x.sub_(data(2, 3, start=1).to(dev))
        return result(x, dev)

    def through_view() -> Any:
        x = data(2, 3).to(dev)
        x[1].exp_()
        return result(x, dev)

    def out_arg() -> Any:
        x, out = data(2, 3).to(dev), torch.empty(2, 3, device=dev)
        torch.neg(x, out=out)
        return result(out, dev)

    return each({"x.sub_(y)": in_place, "x[1].exp_()": through_view, "neg(out=)": out_arg})


def _train(dev: str, seed: int, steps: int, lr: float, momentum: float = 0.0) -> Any:
    net = mlp(seed).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    x, target = data(5, 4).to(dev) * 0.3, data(5, 3, start=1).to(dev) * 0.2
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((net(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    grads = [result(p.grad, dev) for p in net.parameters()]
    params = [result(p, dev) for p in net.parameters()]
    return {"losses": losses, "grads": grads, "params": params}


@case(W, points=4, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"))
def task_5_8_mlp_trains_on_the_device(lib: Any) -> Any:
    """A small MLP (Linear, ReLU, Linear) on the device: three SGD steps give the CPU's losses,
    and the last gradients and weights, on the device."""
    return _train(device(lib), seed=1, steps=3, lr=0.1)


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"))
def task_5_8_autograd_on_the_device(lib: Any) -> Any:
    """``backward`` on the device (the engine needs the guard and the hooks): gradients of a
    product, a broadcast sum and a matmul land on the device with the CPU's values."""
    dev = device(lib)

    def run() -> Any:
        a = data(2, 3).to(dev).requires_grad_()
        b = data(3, start=1).to(dev).requires_grad_()
        w = data(3, 2, start=2).to(dev).requires_grad_()
        ((a * b + a) @ w).relu().sum().backward()
        return [result(t.grad, dev) for t in (a, b, w)]

    return each({"grads": run})


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"))
def task_5_8_training_leaks_nothing(lib: Any) -> Any:
    """After a training step nothing stays allocated but what the model keeps: its weights and
    gradients (one block each); a step whose model is dropped leaves nothing."""
    dev = device(lib)

    def step(keep: bool) -> Any:
        net = mlp(2).to(dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        loss = net(data(3, 4).to(dev)).pow(2).sum()
        loss.backward()
        opt.step()
        return [list(net.parameters()), [p.grad for p in net.parameters()]] if keep else None

    return each(
        {
            "keeping the model": lambda: lib.memory_held(lambda: step(True)),
            "dropping it": lambda: lib.memory_held(lambda: step(False)),
        }
    )


def _shape_pairs() -> Any:
    from hypothesis import strategies as st

    dims = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3)
    return st.tuples(dims, dims, st.sampled_from(["add", "mul", "transposed add"]))


@property_case(
    W, _shape_pairs, n=20, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7"),
    label=lambda ex: f"{ex[2]} of {ex[0]} and {ex[1]}",
)  # fmt: skip
def task_5_7_random_broadcasting(lib: Any, example: Any) -> Any:
    """Random pairs of shapes through ``add`` and ``mul`` on the device (and ``add`` of two
    transposed inputs): the CPU's shape, strides, dtype and values, or the CPU's refusal."""
    a_shape, b_shape, op = example
    dev = device(lib)
    a, b = data(*a_shape).to(dev), data(*b_shape, start=1).to(dev)
    ops = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "transposed add": lambda: a.mT + b.mT if a.dim() >= 2 and b.dim() >= 2 else a + b,
    }
    return kind_only(lambda: result(ops[op](), dev))
