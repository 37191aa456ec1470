"""Task 3.3: the engine. How ``backward`` walks the graph, in torch's order.

torch's engine (torch/csrc/autograd/engine.cpp) first counts, for every node, how many
gradients it will receive (``compute_dependencies``); a node is ready once all have arrived
(summed in its input buffer); among ready nodes the one created LAST runs first (the ready
queue is a heap on ``sequence_nr``: ``ReadyQueue::CompareNodeTaskTime`` in engine.h). The
order is observed here through node pre-hooks, which run just before each node.
"""

from __future__ import annotations

from typing import Any

from autograder.cases import case
from autograder.weeks.week3.common import (
    W,
    const,
    error,
    failure,
    flags,
    grads,
    leaf,
    node_name,
    tensor,
)


def _order(nodes: dict[str, Any]) -> list[str]:
    """Pre-hooks on the named nodes; returns the list they append to, in running order."""
    log: list[str] = []
    for label, node in nodes.items():
        node.register_prehook(lambda grad_outputs, label=label: log.append(label))
    return log


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_diamond_runs_latest_first(lib: Any) -> Any:
    """``h = x * 3; l = h.exp(); r = h.cos(); out = l + r``: the engine runs ``cos``'s node
    before ``exp``'s (created later, so higher sequence_nr), and ``h``'s only after both
    have sent it their gradients. Swap the order the two are made in and ``exp`` runs first."""

    def run(cos_first: bool) -> Any:
        x = leaf(lib, (3,), 70)
        h = x * 3
        if cos_first:
            r = h.cos()
            l_ = h.exp()
        else:
            l_ = h.exp()
            r = h.cos()
        out = (l_ + r).sum()
        log = _order(
            {
                "sum": out.grad_fn,
                "add": out.grad_fn.next_functions[0][0],
                "exp": l_.grad_fn,
                "cos": r.grad_fn,
                "mul": h.grad_fn,
                "x": h.grad_fn.next_functions[0][0],
            }
        )
        out.backward()
        return {"order": log, "x.grad": tensor(x.grad)}

    return {"exp made first": error(lambda: run(False)), "cos made first": error(lambda: run(True))}


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_multi_output_and_reuse(lib: Any) -> Any:
    """A tensor used three times gets three gradients, summed in its node's input buffer
    before the node runs once; the run order of the three users follows creation, latest
    first."""

    def run() -> Any:
        x = leaf(lib, (2,), 71)
        y = x.tanh()
        a, b, c = y * 2, y.sin(), y * y
        out = (a + b + c).sum()
        log = _order({"a": a.grad_fn, "b": b.grad_fn, "c": c.grad_fn, "tanh": y.grad_fn})
        out.backward()
        return {"order": log, "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_sequence_numbers(lib: Any) -> Any:
    """``_sequence_nr()`` grows with each node made (compared as differences: the absolute
    numbers depend on what ran before); ``AccumulateGrad``'s is the largest 64-bit number,
    and a leaf's ``AccumulateGrad`` is one node, the same object every time."""
    x = leaf(lib, (2,), 72)

    def run() -> Any:
        a = x * 2
        b = a.exp()
        c = b + a
        acc = a.grad_fn.next_functions[0][0]
        again = (x + 1).grad_fn.next_functions[0][0]
        return {
            "b - a": b.grad_fn._sequence_nr() - a.grad_fn._sequence_nr(),
            "c - b": c.grad_fn._sequence_nr() - b.grad_fn._sequence_nr(),
            "AccumulateGrad": acc._sequence_nr(),
            "same node": acc is again,
            "its variable is x": acc.variable is x,
            "name": node_name(acc),
        }

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_gradients_accumulate(lib: Any) -> Any:
    """Two backward passes add into ``.grad``; ``.grad = None`` starts again."""

    def run() -> Any:
        x = leaf(lib, (3,), 73)
        (x * x).sum().backward()
        first = tensor(x.grad)
        (x * 3).sum().backward()
        second = tensor(x.grad)
        x.grad = None
        x.exp().sum().backward()
        return {"first": first, "second": second, "after reset": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_backward_of_a_non_scalar(lib: Any) -> Any:
    """A non-scalar output needs ``gradient=``; without it torch raises RuntimeError. "Scalar"
    means one element, not 0-dim: a (1,) or (1, 1) output gets an implicit gradient of ones
    (torch/autograd/__init__.py: _make_grads checks ``out.numel() != 1``)."""
    x = leaf(lib, (2, 2), 74)

    def with_gradient() -> Any:
        y = x * x
        y.backward(lib.tensor([[1.0, 0.5], [0.0, 2.0]], dtype=lib.float64))
        return tensor(x.grad)

    def one_element(shape: tuple[int, ...]) -> Any:
        t = leaf(lib, shape, 82)
        (t * 3).backward()
        return tensor(t.grad)

    return {
        "with gradient=": error(with_gradient),
        "without": failure(lambda: (x * 2).backward()),
        "one element of shape (1,)": error(lambda: one_element((1,))),
        "one element of shape (1, 1)": error(lambda: one_element((1, 1))),
    }


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_retain_graph(lib: Any) -> Any:
    """Backward frees the graph's saved tensors: a second backward raises, unless the first
    said ``retain_graph=True`` (then the gradients add up)."""

    def twice(retain: bool) -> Any:
        x = leaf(lib, (3,), 75)
        y = (x * x).sum()
        y.backward(retain_graph=retain)
        y.backward()
        return tensor(x.grad)

    return {"retained": error(lambda: twice(True)), "freed": failure(lambda: twice(False))}


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_3_create_graph_retains_the_graph(lib: Any) -> Any:
    """``backward(create_graph=True)`` keeps the graph: ``retain_graph`` defaults to
    ``create_graph`` (torch/autograd/__init__.py: backward), so a second backward works and
    the gradients add up."""

    def run() -> Any:
        x = leaf(lib, (3,), 75)
        y = (x * x).sin().sum()
        y.backward(create_graph=True)
        first = tensor(x.grad)
        y.backward()
        return {"first": first, "second": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_autograd_grad(lib: Any) -> Any:
    """``autograd.grad`` returns the gradients and leaves ``.grad`` alone; an input the
    output does not use raises unless ``allow_unused=True`` (then it is None)."""
    x, y, z = leaf(lib, (2,), 76), leaf(lib, (2,), 77), leaf(lib, (2,), 78)

    def run() -> Any:
        out = (x * y).sum()
        gx, gy = lib.autograd.grad(out, [x, y])
        return {"dx": tensor(gx), "dy": tensor(gy), "x.grad": tensor(x.grad)}

    def unused(allow: bool) -> Any:
        out = (x * 2).sum()
        got = lib.autograd.grad(out, [x, z], allow_unused=allow)
        return [tensor(g) for g in got]

    return {
        "grad": error(run),
        "allow_unused": error(lambda: unused(True)),
        "unused": failure(lambda: unused(False)),
    }


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_backward_inputs(lib: Any) -> Any:
    """``backward(inputs=[a])`` accumulates into ``a`` only; ``autograd.backward`` takes a
    list of outputs and their gradients."""

    def run() -> Any:
        a, b = leaf(lib, (2,), 79), leaf(lib, (2,), 80)
        (a * b).sum().backward(inputs=[a])
        only_a = grads(a, b)
        u, v = a * 2, b.exp()
        lib.autograd.backward(
            [u, v], [lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64)]
        )
        return {"inputs=[a]": only_a, "autograd.backward": grads(a, b)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3"))
def task_3_3_nothing_to_differentiate(lib: Any) -> Any:
    """backward on a result that needs no gradient raises torch's RuntimeError."""
    c = lib.tensor([1.0, 2.0])
    return failure(lambda: (c * 2).sum().backward())


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_gradient_flows_through_detach_and_no_grad(lib: Any) -> Any:
    """A detached branch and a branch made under ``no_grad`` send no gradient back."""

    def run() -> Any:
        x = leaf(lib, (3,), 81)
        with lib.no_grad():
            k = x * 10
        out = (x * x.detach() + k * x).sum()
        out.backward()
        return tensor(x.grad)

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_a_backward_computes_only_what_it_needs(lib: Any) -> Any:
    """For one root, torch starts at the root's own node (there is no GraphRoot then), so the
    root's tensor hooks run even when ``inputs=`` needs nothing below it; and a node computes
    only the gradients the inputs need: its post-hook sees None for the others."""

    def run() -> Any:
        log: list[Any] = []
        a, b = leaf(lib, (3,), 74), leaf(lib, (3,), 75)
        y = a * b
        z = y.exp()
        z.register_hook(lambda g: log.append("z's hook"))
        y.grad_fn.register_hook(lambda gi, go: log.append(["mul post", [g is None for g in gi]]))
        z.sum().backward(inputs=[a])
        c = leaf(lib, (3,), 76)
        w = c.sin()
        w.register_hook(lambda g: log.append("w's hook"))
        w.backward(lib.ones(3, dtype=lib.float64), inputs=[a])  # nothing below w leads to a
        return {"log": log, "a.grad": tensor(a.grad), "b.grad": tensor(b.grad)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_backward_inputs_a_non_leaf(lib: Any) -> Any:
    """A non-leaf in ``backward(inputs=...)`` gets its ``.grad`` too: torch calls
    ``retain_grad()`` on each input before the pass (torch/csrc/autograd/python_engine.cpp:
    THPEngine_run_backward, ``if (accumulate_grad) tensor.retain_grad()``), and what is below
    it gets nothing."""

    def run() -> Any:
        x = leaf(lib, (2,), 79)
        y = x * 2
        (y * y).sum().backward(inputs=[y])
        return {
            "y.grad": tensor(y.grad),
            "y.retains_grad": bool(y.retains_grad),
            "x.grad": tensor(x.grad),
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3"))
def task_3_3_ready_leaves_run_in_the_order_they_became_ready(lib: Any) -> Any:
    """Every AccumulateGrad has the same sequence_nr (UINT64_MAX), so among ready leaves the
    queue keeps the order they were pushed: the order of the node's inputs (seen through
    pre-hooks on the two AccumulateGrad nodes)."""

    def run(op: str) -> Any:
        a, b = leaf(lib, (2,), 83), leaf(lib, (2,), 84)
        out = a + b if op == "a + b" else b * a
        first, second = (n for n, _ in out.grad_fn.next_functions)
        log = _order({"a": first, "b": second} if op == "a + b" else {"b": first, "a": second})
        out.sum().backward()
        return log

    return {op: error(lambda op=op: run(op)) for op in ("a + b", "b * a")}


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_a_leaf_owns_its_grad(lib: Any) -> Any:
    """AccumulateGrad stores the first gradient as a tensor of the leaf's own (a copy when the
    incoming one is shared: ``a + b`` sends one tensor to both), and adds later ones into that
    same tensor in place (torch/csrc/autograd/functions/accumulate_grad.h: accumulateGrad,
    ``variable_grad += new_grad`` without grad mode): an old reference to ``.grad`` sees the
    sum."""

    def shared() -> Any:
        a, b = leaf(lib, (2,), 85), leaf(lib, (2,), 86)
        (a + b).sum().backward()
        return {"a.grad": tensor(a.grad), "b.grad": tensor(b.grad), "same": a.grad is b.grad}

    def in_place() -> Any:
        a = leaf(lib, (2,), 87)
        (a * 2).sum().backward()
        g = a.grad
        (a * 3).sum().backward()
        return {"old reference": tensor(g), "a.grad": tensor(a.grad), "same": g is a.grad}

    return {"one gradient, two leaves": error(shared), "accumulated": error(in_place)}


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_3_post_accumulate_hook_without_a_gradient(lib: Any) -> Any:
    """A leaf whose AccumulateGrad receives no gradient (None: here a node post-hook drops it)
    still runs its post-accumulate-grad hooks, with ``.grad`` still None
    (accumulate_grad.cpp: AccumulateGrad::apply calls them after accumulateGrad whatever
    arrived)."""

    def run() -> Any:
        log: list[Any] = []
        x, w = leaf(lib, (2,), 88), leaf(lib, (2,), 89)
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
        for name, t in (("x", x), ("w", w)):
            t.register_post_accumulate_grad_hook(
                lambda t, name=name: log.append([name, None if t.grad is None else t.grad.tolist()])
            )
        y.sum().backward()
        return {"hooks": log, "grads": grads(x, w)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.5"))
def task_3_3_a_broadcast_gradient_is_summed_to_its_input(lib: Any) -> Any:
    """The engine checks every gradient a node returns against its input's metadata: a shape
    the input's expands to is summed back (``at::sum_to``), any other shape raises
    (torch/csrc/autograd/engine.cpp: validate_outputs)."""

    def run(shape: tuple[int, ...]) -> Any:
        class Wide(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return const(lib, shape, 90) * g.sum()

        x = leaf(lib, (3,), 91)
        Wide.apply(x).sum().backward()
        return tensor(x.grad)

    return {
        "(2, 3) for (3,)": error(lambda: run((2, 3))),
        "(2, 2) for (3,)": error(lambda: run((2, 2))),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_3_grad_sees_the_inputs_tensor_hooks(lib: Any) -> Any:
    """``autograd.grad`` returns an input's gradient after that input's tensor hooks ran (the
    engine captures it at the input's node, after ``call_tensor_pre_hooks``:
    torch/csrc/autograd/engine.cpp: evaluate_function), and leaves ``.grad`` alone."""

    def run() -> Any:
        x = leaf(lib, (2,), 92)
        x.register_hook(lambda g: g * 3)
        y = x * 2
        y.register_hook(lambda g: g + 1)
        (gx, gy) = lib.autograd.grad((y * y).sum(), [x, y])
        return {"dx": tensor(gx), "dy": tensor(gy), "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3"))
def task_3_3_create_graph_under_no_grad(lib: Any) -> Any:
    """``create_graph=True`` records the backward pass even when called under ``no_grad``: the
    engine sets grad mode to ``create_graph`` for the pass (engine.cpp: GraphTask's
    ``grad_mode_``), and the caller's mode is back after."""

    def run() -> Any:
        x = leaf(lib, (2,), 93)
        y = (x * x * x).sum()
        with lib.no_grad():
            (g,) = lib.autograd.grad(y, [x], create_graph=True)
            after = bool(lib.is_grad_enabled())
        return {"g": flags(g), "values": tensor(g), "enabled after": after}

    return error(run)
