"""Tasks 3.5 and 3.6: ``autograd.Function`` and ``gradcheck``; checkpointing and
saved-tensor hooks. The Functions below are written once and defined with ``lib``'s own
``autograd.Function``, so torch runs them through its engine and the learner's through theirs.
"""

from __future__ import annotations

from typing import Any

from autograder.cases import case
from autograder.weeks.week3.common import W, error, failure, flags, leaf, node_name, tensor


def _scaled_mul(lib: Any, log: list[Any]) -> Any:
    """Two tensors and a number in, ``a * b * k`` out; records ``needs_input_grad``."""

    class ScaledMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any, k: float) -> Any:
            ctx.save_for_backward(a, b)
            ctx.k = k
            log.append(("forward needs_input_grad", list(ctx.needs_input_grad)))
            return a * b * k

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            a, b = ctx.saved_tensors
            log.append(("backward needs_input_grad", list(ctx.needs_input_grad)))
            ga = grad * b * ctx.k if ctx.needs_input_grad[0] else None
            gb = grad * a * ctx.k if ctx.needs_input_grad[1] else None
            return ga, gb, None

    return ScaledMul


def _mask_relu(lib: Any) -> Any:
    """The seeds' MyReLU (PyTorch's own tutorial), its backward written with the ops of this
    lab (a float mask: no comparison ops needed)."""

    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x.relu()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (y,) = ctx.saved_tensors
            return grad * (y / (y + 1e-300))  # 1 where y > 0, 0 where y == 0

    return MyReLU


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_my_relu(lib: Any) -> Any:
    """The seeds' MyReLU: values, the node it records (``MyReLUBackward``), and gradients
    through it inside a larger expression."""
    relu = _mask_relu(lib)
    x = leaf(lib, (2, 3), 110)

    def run() -> Any:
        y = relu.apply(x * 2)
        (y * y).sum().backward()
        return {"y": tensor(y), "y flags": flags(y), "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_needs_input_grad_and_none(lib: Any) -> Any:
    """``ctx.needs_input_grad`` says which inputs want a gradient (False for a number and for
    a tensor that needs none); ``backward`` returns None for those."""
    log: list[Any] = []
    op = _scaled_mul(lib, log)

    def run() -> Any:
        a, b = leaf(lib, (3,), 111), lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        y = op.apply(a, b, 0.5)
        y.sum().backward()
        return {"log": log, "a.grad": tensor(a.grad), "node": node_name(y.grad_fn)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.5"))
def task_3_5_function_under_no_grad(lib: Any) -> Any:
    """Applied under ``no_grad``, a Function records no node."""
    relu = _mask_relu(lib)
    x = leaf(lib, (3,), 112)

    def run() -> Any:
        with lib.no_grad():
            y = relu.apply(x)
        return flags(y)

    return error(run)


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_gradcheck(lib: Any) -> Any:
    """``gradcheck`` compares analytic gradients with central differences in float64: True
    for a correct Function and composite, GradcheckError (a RuntimeError) for a wrong one."""

    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x  # should be 2 * x

    ok = _scaled_mul(lib, [])
    a, b = leaf(lib, (3,), 113), leaf(lib, (3,), 114)
    return {
        "a composite": error(
            lambda: lib.autograd.gradcheck(lambda t: (t.exp() * t.sin()).sum(), (a,))
        ),
        "ScaledMul": error(
            lambda: lib.autograd.gradcheck(lambda s, t: ok.apply(s, t, 1.5), (a, b))
        ),
        "a wrong backward": failure(lambda: lib.autograd.gradcheck(Wrong.apply, (a,))),
    }


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.5", "3.6"))
def task_3_6_checkpoint(lib: Any) -> Any:
    """``checkpoint(fn, x, use_reentrant=False)`` saves only the input: ``fn`` runs again in
    backward, the gradients equal the plain ones, and the output's node is ``fn``'s last op."""

    def run() -> Any:
        calls: list[str] = []

        def block(t: Any) -> Any:
            calls.append("fwd")
            return (t.sin() * t).exp()

        x = leaf(lib, (3,), 120)
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        node = node_name(y.grad_fn)
        y.sum().backward()
        x2 = leaf(lib, (3,), 120)
        block(x2).sum().backward()
        return {"calls": calls, "node": node, "x.grad": tensor(x.grad), "plain": tensor(x2.grad)}

    return error(run)


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.6"))
def task_3_6_saved_tensors_hooks(lib: Any) -> Any:
    """``saved_tensors_hooks(pack, unpack)``: pack runs when a node saves a tensor, unpack
    when backward (or a ``_saved_*`` attribute) reads it; for ``(x * x).sum()`` that is
    pack, pack, then unpack, unpack; whatever unpack returns is what backward uses."""

    def run() -> Any:
        log: list[str] = []

        def pack(t: Any) -> Any:
            log.append("pack")
            return t

        def unpack(t: Any) -> Any:
            log.append("unpack")
            return t

        x = leaf(lib, (3,), 121)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).sum()
            z = x.exp()
        log.append("backward")
        y.backward()
        log.append("read")
        log.append(f"read {list(z.grad_fn._saved_result.shape)}")
        return {"log": log, "x.grad": tensor(x.grad)}

    def doubled() -> Any:
        x = leaf(lib, (3,), 122)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            y = (x * x).sum()
        y.backward()
        return tensor(x.grad)

    return {"order": error(run), "unpack gives what backward uses": error(doubled)}


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5", "3.6"))
def task_3_6_checkpoint_saves_less(lib: Any) -> Any:
    """Counted with pack hooks: a checkpointed block saves only its input where the plain
    block saves every intermediate (the memory checkpointing buys)."""

    def count(checkpointed: bool) -> Any:
        packed: list[int] = []
        x = leaf(lib, (4,), 123)

        def block(t: Any) -> Any:
            return (t.tanh() * t).exp().sin()

        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
            if checkpointed:
                y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                y = block(x)
        y.sum().backward()
        return {"saved": len(packed), "x.grad": tensor(x.grad)}

    return {"plain": error(lambda: count(False)), "checkpointed": error(lambda: count(True))}
