"""Tasks 3.5 and 3.6: ``autograd.Function`` and ``gradcheck``; checkpointing and
saved-tensor hooks. The Functions below are written once and defined with ``lib``'s own
``autograd.Function``, so torch runs them through its engine and the learner's through theirs.
"""

from __future__ import annotations

import warnings
from typing import Any

from autograder.cases import case
from autograder.observe import raised
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


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.6"))
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


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.6"))
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


def _two_outputs(lib: Any, log: list[Any]) -> Any:
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            log.append(["needs_input_grad", list(ctx.needs_input_grad)])
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            log.append(["gb", gb.tolist()])
            return ga * 2

    return Split


def _identity(lib: Any) -> Any:
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    return Identity


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4", "3.5"))
def task_3_5_what_a_function_returns(lib: Any) -> Any:
    """A non-differentiable output still has its slot in the node: backward gets zeros for it.
    ``needs_input_grad`` is each input's requires_grad, even under no_grad (where no node is
    recorded). An input returned as is comes back as a new tensor, a view marked as made by a
    custom Function: writing it in place raises."""
    log: list[Any] = []
    split, identity = _two_outputs(lib, log), _identity(lib)

    def run() -> Any:
        x = leaf(lib, (3,), 115)
        a, b = split.apply(x)
        (a.sum() + b.sum()).backward()
        with lib.no_grad():
            c, _ = split.apply(x)
        return {"a": flags(a), "b": flags(b), "c": flags(c), "log": log, "x.grad": tensor(x.grad)}

    def returned_as_is() -> Any:
        x = leaf(lib, (3,), 116)
        y = identity.apply(x)
        return {"same object": y is x, "y": flags(y)}

    def written() -> Any:
        y = identity.apply(leaf(lib, (3,), 117))
        y.mul_(2)
        return flags(y)

    return {
        "outputs": error(run),
        "an input returned": error(returned_as_is),
        "written": failure(written),
    }


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.6"))
def task_3_6_what_pack_hooks_see(lib: Any) -> Any:
    """Pack hooks run in torch's order: for ``a * b`` ``other`` (b) first, for ``m1 @ m2``
    ``mat2`` first; a Python number is never packed. In backward every saved tensor of a node
    is unpacked before it computes, in the same order, once."""

    def run() -> Any:
        log: list[Any] = []

        def pack(t: Any) -> Any:
            log.append(["pack", t.tolist()])
            return t

        def unpack(t: Any) -> Any:
            log.append(["unpack", t.tolist()])
            return t

        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        m1 = lib.tensor([[1.0, 2.0]], dtype=lib.float64, requires_grad=True)
        m2 = lib.tensor([[5.0], [6.0]], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = a * b
            log.append("a * b done")
            z = a * 2
            log.append("a * 2 done")
            w = (m1 @ m2).sum()
            q = a / b
        log.append("backward")
        (y.sum() + z.sum() + w + q.sum()).backward()
        return log

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5", "3.6"))
def task_3_6_checkpoint_per_backward_pass(lib: Any) -> Any:
    """Non-reentrant checkpoint recomputes once per backward pass: two backwards through it
    (``retain_graph=True``) run the function twice more. The reentrant one cannot serve
    ``autograd.grad`` (its inner backward would fill ``.grad`` instead) and raises."""
    calls: list[str] = []

    def block(t: Any) -> Any:
        calls.append("run")
        return (t * t).sin()

    def twice() -> Any:
        x = leaf(lib, (3,), 124)
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return {"calls": list(calls), "x.grad": tensor(x.grad)}

    def reentrant_grad() -> Any:
        x = leaf(lib, (3,), 125)
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=True)
        return tensor(lib.autograd.grad(y.sum(), [x])[0])

    return {"twice": error(twice), "reentrant and grad()": failure(reentrant_grad)}


def _returns(lib: Any, grads: Any) -> Any:
    """A Function of ``(k, x)`` (a number, then a tensor): ``x * k`` whose backward returns
    ``grads(g)``."""

    class Returns(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, k: float, x: Any) -> Any:
            return x * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return grads(g)

    return Returns


def _said(fn: Any, phrase: str) -> Any:
    """What ``fn()`` gave or raised, and whether an error's message says ``phrase``."""
    try:
        return {"outcome": fn(), "says": False}
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return {"outcome": raised(exc), "says": phrase in str(exc)}


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_one_gradient_per_input(lib: Any) -> Any:
    """``backward`` returns one gradient per argument of ``forward``, in the arguments'
    positions (None in a number's place): ``Fn.apply(3.0, x)`` takes ``x``'s gradient from
    slot 1. Extra gradients are dropped when they are all None; any other count raises
    "returned an incorrect number of gradients (expected 2, got 3)"
    (torch/csrc/autograd/python_function.cpp: PyNode::apply)."""

    def run(grads: Any) -> Any:
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        _returns(lib, grads).apply(3.0, x).sum().backward()
        return tensor(x.grad)

    cases = {
        "(None, g * 2)": lambda g: (None, g * 2),
        "(None, g * 2, None, None)": lambda g: (None, g * 2, None, None),
        "(None, g * 2, g)": lambda g: (None, g * 2, g),
        "(g * 2,)": lambda g: (g * 2,),
        "g * 2": lambda g: g * 2,
    }
    return {
        name: _said(lambda grads=grads: run(grads), "incorrect number of gradients")
        for name, grads in cases.items()
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_set_materialize_grads(lib: Any) -> Any:
    """An output backward did not reach has no gradient: ``backward`` gets zeros shaped like it,
    or None after ``ctx.set_materialize_grads(False)`` (torch/csrc/autograd/
    custom_function.cpp: AutogradContext / python_function.cpp: materialize_grads)."""

    def run(materialize: bool) -> Any:
        seen: list[Any] = []

        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx: Any, ga: Any, gb: Any) -> Any:
                seen.append({"ga": tensor(ga), "gb": tensor(gb)})
                return ga * 2 if gb is None else ga * 2 + gb * 3

        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        a, _ = Pair.apply(x)
        a.sum().backward()
        return {"backward saw": seen, "x.grad": tensor(x.grad)}

    return {"materialized (default)": error(lambda: run(True)), "not": error(lambda: run(False))}


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_5_gradcheck_every_output(lib: Any) -> Any:
    """``gradcheck`` checks the Jacobian of every output with respect to every input, and a
    mismatch raises ``GradcheckError`` (a RuntimeError subclass of that name) naming the output
    and the input (torch/autograd/gradcheck.py: _check_analytical_numerical_equal)."""

    class SecondWrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2, x * x

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            (x,) = ctx.saved_tensors
            return ga * 2 + gb * x  # the second should be gb * 2 * x

    def run() -> Any:
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        try:
            return {"outcome": lib.autograd.gradcheck(SecondWrong.apply, (x,)), "class": None}
        except Exception as exc:  # noqa: BLE001 - every error is data here
            return {"outcome": raised(exc), "class": type(exc).__name__}

    return run()


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5", "3.6"))
def task_3_6_reentrant_checkpoint(lib: Any) -> Any:
    """``checkpoint(fn, x, use_reentrant=True)`` runs ``fn`` under no_grad and records one
    ``CheckpointFunctionBackward``; its backward reruns ``fn`` on detached copies of the inputs
    that require grad again (``detach_variable``), so ``x`` gets the same gradient as without
    checkpointing (torch/utils/checkpoint.py: CheckpointFunction)."""

    def run() -> Any:
        calls: list[str] = []

        def block(t: Any) -> Any:
            calls.append("run")
            return (t * t).sin()

        x = leaf(lib, (3,), 126)
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=True)
        node = node_name(y.grad_fn)
        y.sum().backward()
        x2 = leaf(lib, (3,), 126)
        block(x2).sum().backward()
        return {"node": node, "calls": calls, "x.grad": tensor(x.grad), "plain": tensor(x2.grad)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.5", "3.6"))
def task_3_6_checkpoint_default_is_reentrant(lib: Any) -> Any:
    """Without ``use_reentrant``, torch 2.13 warns that it should be passed, then takes the
    reentrant variant: the output's node is ``CheckpointFunctionBackward``
    (torch/utils/checkpoint.py: checkpoint)."""

    def run() -> Any:
        x = leaf(lib, (3,), 127)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.utils.checkpoint.checkpoint(lambda t: (t * t).sin(), x)
        y.sum().backward()
        return {
            "node": node_name(y.grad_fn),
            "warned about use_reentrant": any("use_reentrant" in str(w.message) for w in caught),
            "x.grad": tensor(x.grad),
        }

    return error(run)
