"""Tasks 5.9 and 5.10: shapes without data. Torch's side is its own meta device (for conv2d, its
CPU kernel on zeros: the meta kernel skips a check); errors are compared by kind only (meta
kernels word them differently from the real ones)."""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case, property_case
from autograder.weeks.week5.common import W, data, each, fresh_ns, kind_only


def _shapes(fn: Any, calls: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    return {name: kind_only(lambda args=args: list(fn(*args))) for name, args in calls.items()}


@case(W, points=2, tasks="5.9")
def task_5_9_broadcast_shapes(lib: Any) -> Any:
    """``broadcast_shapes``: equal shapes, a missing leading dim, 1s on either side, three
    shapes, a scalar, no shapes at all (torch.broadcast_shapes() is torch.Size([])), zero-size
    dims, and sizes that cannot broadcast (RuntimeError)."""
    return _shapes(
        lib.broadcast_shapes,
        {
            "equal": ([2, 3], [2, 3]),
            "leading dim": ([3], [2, 3]),
            "ones": ([2, 1, 4], [1, 3, 1]),
            "three": ([5, 1, 1], [1, 4, 1], [3]),
            "scalar": ([], [2, 2]),
            "no shapes": (),
            "one shape": ([2, 1],),
            "zero size": ([0, 3], [1, 3]),
            "zero with one": ([2, 1], [2, 0]),
            "cannot": ([2, 3], [3, 2]),
        },
    )


@case(W, points=2, tasks="5.9")
def task_5_9_matmul_shape(lib: Any) -> Any:
    """``matmul_shape``: vector.vector, matrix@vector, vector@matrix, matrix@matrix, batched
    with broadcasting batch dims, and refusals with RuntimeError: inner sizes that differ, and
    a 0-d argument (aten/src/ATen/native/LinearAlgebra.cpp, _matmul_impl: "both arguments to
    matmul need to be at least 1D")."""
    return _shapes(
        lib.matmul_shape,
        {
            "dot": ([3], [3]),
            "matrix @ vector": ([2, 3], [3]),
            "vector @ matrix": ([3], [3, 4]),
            "matrix @ matrix": ([2, 3], [3, 4]),
            "batched": ([5, 2, 3], [3, 4]),
            "batch broadcast": ([5, 1, 2, 3], [7, 3, 4]),
            "vector @ batch": ([3], [6, 3, 4]),
            "inner mismatch": ([2, 3], [4, 5]),
            "batch mismatch": ([2, 2, 3], [3, 3, 4]),
            "0-d @ vector": ([], [3]),
            "matrix @ 0-d": ([2, 3], []),
        },
    )


@case(W, points=2, tasks="5.9")
def task_5_9_sum_shape(lib: Any) -> Any:
    """``sum_shape``: one dim (dim 0 too: only None or [] means every dim), negative, several,
    keepdim, every dim (None), a 0-d tensor (which takes dim 0 and -1, as maybe_wrap_dim lets a
    scalar), a dim out of range (IndexError) and a dim given twice (RuntimeError: aten/src/ATen/
    WrapDimUtilsMulti.h, dim_list_to_bitset)."""
    return _shapes(
        lib.sum_shape,
        {
            "dim 1": ([2, 3, 4], 1, False),
            "dim -1 keepdim": ([2, 3, 4], -1, True),
            "dims (0, 2)": ([2, 3, 4], [0, 2], False),
            "dims (0, -1) keepdim": ([2, 3, 4], [0, -1], True),
            "all": ([2, 3, 4], None, False),
            "all keepdim": ([2, 3], None, True),
            "dim 0": ([2, 3], 0, False),
            "dims [0]": ([2, 3], [0], True),
            "dims []": ([2, 3], [], False),
            "0-d, dim 0": ([], 0, False),
            "0-d, dim -1 keepdim": ([], -1, True),
            "out of range": ([2, 3], 2, False),
            "0-d, dim 1": ([], 1, False),
            "dim given twice": ([2, 3], [0, -2], False),
        },
    )


@case(W, points=2, tasks="5.9")
def task_5_9_conv2d_shape(lib: Any) -> Any:
    """``conv2d_shape``: the output size rule with stride, padding, dilation, uneven pairs and
    groups; RuntimeError for channels that do not match, out channels that groups do not divide
    (aten/src/ATen/native/Convolution.cpp, check_shape_forward: torch's side runs the CPU
    kernel on zeros, since the meta kernel skips that check) and a kernel larger than the
    padded input (an output size below 1)."""
    return _shapes(
        lib.conv2d_shape,
        {
            "3x3": ([1, 3, 8, 8], [4, 3, 3, 3]),
            "stride 2": ([2, 3, 9, 9], [4, 3, 3, 3], 2),
            "padding 1": ([1, 3, 8, 8], [4, 3, 3, 3], 1, 1),
            "dilation 2": ([1, 3, 10, 10], [4, 3, 3, 3], 1, 0, 2),
            "uneven": ([1, 3, 10, 7], [4, 3, 3, 2], (2, 1), (1, 0)),
            "groups": ([1, 4, 6, 6], [8, 2, 3, 3], 1, 0, 1, 2),
            "channels": ([1, 3, 8, 8], [4, 2, 3, 3]),
            "out channels not divisible by groups": ([1, 4, 8, 8], [3, 2, 3, 3], 1, 0, 1, 2),
            "kernel larger than the input": ([1, 1, 2, 2], [1, 1, 3, 3]),
            "kernel as large as the input": ([1, 1, 3, 3], [1, 1, 3, 3]),
        },
    )


@case(W, points=1, tasks="5.9")
def task_5_9_view_shape(lib: Any) -> Any:
    """``view_shape``: a full shape, one -1 inferred, zero elements, and refusals (a size that
    does not divide, two -1s, the wrong count, and a -1 beside a 0, which could be any size:
    aten/src/ATen/InferSize.h, infer_size_impl)."""
    return _shapes(
        lib.view_shape,
        {
            "full": ([2, 3], [3, 2]),
            "infer": ([2, 3, 4], [-1, 4]),
            "infer middle": ([2, 3, 4], [2, -1, 2]),
            "zero": ([0, 3], [3, 0]),
            "does not divide": ([2, 3], [-1, 4]),
            "two -1": ([2, 3], [-1, -1]),
            "wrong count": ([2, 3], [7]),
            "-1 beside a 0": ([0, 3], [-1, 0]),
            "-1 beside a 0, 6 elements": ([2, 3], [-1, 0]),
        },
    )


def _shape_pairs() -> Any:
    from hypothesis import strategies as st

    dims = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3)
    return st.tuples(dims, dims, st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))


def _pair_label(ex: Any) -> str:
    a, b, n, k, m = ex
    return f"batch {a} x {b}, {n}x{k} @ {k}x{m}"


@property_case(W, _shape_pairs, n=30, points=3, tasks="5.9", label=_pair_label)
def task_5_9_shapes_agree_with_meta(lib: Any, example: Any) -> Any:
    """Random batch shapes: ``broadcast_shapes`` of the batch dims and ``matmul_shape`` of
    batched matrices equal torch's meta results (or both refuse)."""
    a, b, n, k, m = example
    return {
        "broadcast": kind_only(lambda: list(lib.broadcast_shapes(a, b))),
        "matmul": kind_only(lambda: list(lib.matmul_shape([*a, n, k], [*b, k, m]))),
    }


def _meta_and_fake(op: Any, *shapes: list[int]) -> Any:
    from torch._subclasses.fake_tensor import FakeTensorMode

    def on_meta() -> Any:
        out = op(*(torch.empty(s, device="meta") for s in shapes))
        return {"shape": list(out.shape), "device": out.device.type, "dtype": str(out.dtype)}

    def under_fake() -> Any:
        with FakeTensorMode():
            out = op(*(torch.empty(s) for s in shapes))
            return {"shape": list(out.shape), "device": out.device.type}

    return {"meta": kind_only(on_meta), "fake": kind_only(under_fake)}


@case(W, points=3, tasks=("5.3", "5.9", "5.10"))
def task_5_10_custom_op_with_fake_kernel(lib: Any) -> Any:
    """``make_matmul_op``: the custom op computes ``a @ b``; on meta tensors and under
    FakeTensorMode its fake kernel gives torch's shapes; ``torch.compile(backend="eager",
    fullgraph=True)`` traces through it and gives the same values."""
    op = lib.make_matmul_op(f"{fresh_ns('meta')}::matmul")
    a, b, v = data(2, 3), data(3, 4, start=1), data(3, start=2)

    def compiled() -> Any:
        fn = torch.compile(lambda x, y: op(x, y).relu(), backend="eager", fullgraph=True)
        return fn(a, b).tolist()

    return each(
        {
            "values": lambda: op(a, b).tolist(),
            "matrix @ vector": lambda: op(a, v).tolist(),
            "batched on meta": lambda: _meta_and_fake(op, [5, 2, 3], [3, 4]),
            "vector on meta": lambda: _meta_and_fake(op, [3], [3, 4]),
            "matrix @ vector on meta": lambda: _meta_and_fake(op, [2, 3], [3]),
            "batch broadcast on meta": lambda: _meta_and_fake(op, [5, 1, 2, 3], [7, 3, 4]),
            "compiled": compiled,
        }
    )


@case(W, points=3, tasks=("5.1", "5.3", "5.10"))
def task_5_10_cpp_meta_kernel(lib: Any) -> Any:
    """``labdev::linear_relu``'s Meta kernel (C++): on meta tensors and under FakeTensorMode it
    gives ``relu(linear(x, w, b))``'s shape for a matrix and a batch; compiled with
    ``backend="eager"`` the op gives the CPU's values."""
    lib.setup()
    x, w, b = data(2, 3), data(4, 3, start=1) * 0.5, data(4, start=2)

    def compiled() -> Any:
        fn = torch.compile(lambda x, w, b: lib.linear_relu(x, w, b) * 2, backend="eager")
        return fn(x, w, b).tolist()

    return each(
        {
            "values": lambda: lib.linear_relu(x, w, b).tolist(),
            "matrix on meta": lambda: _meta_and_fake(lib.linear_relu, [2, 3], [4, 3], [4]),
            "batch on meta": lambda: _meta_and_fake(lib.linear_relu, [5, 2, 3], [4, 3], [4]),
            "one vector on meta": lambda: _meta_and_fake(lib.linear_relu, [3], [4, 3], [4]),
            "compiled": compiled,
        }
    )
