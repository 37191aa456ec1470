"""Task 3.4: what makes it torch and not micrograd.

The version counter (torch/csrc/autograd/saved_variable.cpp, ``SavedVariable::unpack``),
leaf in-place errors, second derivatives with ``create_graph``, and the hooks: tensor hooks,
node pre- and post-hooks, post-accumulate-grad hooks, in torch's order (notes §3), each able
to replace a gradient.
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
    graph,
    leaf,
    node_name,
    tensor,
)


@case(W, points=2, tasks=("3.1", "3.2", "3.4"))
def task_3_4_version_counter(lib: Any) -> Any:
    """Every in-place op bumps ``_version``; out-of-place ops make a new tensor at 0."""

    def run() -> Any:
        t = const(lib, (3,), 90)
        seen = [t._version]
        t.add_(const(lib, (3,), 91))
        seen.append(t._version)
        t.mul_(2)
        t.zero_()
        seen.append(t._version)
        seen.append((t * 2)._version)
        return {"versions": seen, "values": tensor(t)}

    return error(run)


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_saved_tensor_modified_in_place(lib: Any) -> Any:
    """A tensor a node saved, changed in place before backward, makes backward raise:
    ``exp`` saved its result, ``mul`` its inputs. Changing a tensor no node saved is fine."""

    def exp_result() -> Any:
        x = leaf(lib, (3,), 92)
        y = x.exp()
        y.add_(1)
        y.sum().backward()
        return tensor(x.grad)

    def mul_input() -> Any:
        x = leaf(lib, (3,), 93)
        w = const(lib, (3,), 94)
        y = x * w
        w.mul_(2)
        y.sum().backward()
        return tensor(x.grad)

    def unsaved() -> Any:
        x = leaf(lib, (3,), 95)
        w = const(lib, (3,), 96)
        y = x + w  # add saves nothing
        w.mul_(2)
        y.sum().backward()
        return tensor(x.grad)

    return {
        "exp's result": failure(exp_result),
        "mul's input": failure(mul_input),
        "add saves nothing": error(unsaved),
    }


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_in_place_on_leaves_and_results(lib: Any) -> Any:
    """A leaf that requires grad cannot be changed in place (except under ``no_grad``, as
    optimizers do), nor can a view of it ("a view of a leaf Variable that requires grad...":
    torch/csrc/autograd/VariableTypeUtils.h: check_inplace looks at the view's base); a result
    can, and its ``grad_fn`` becomes the in-place op's node."""
    x = leaf(lib, (3,), 97)

    def on_result() -> Any:
        y = x * 2
        y.mul_(3)
        y.add_(const(lib, (3,), 98))
        y.sum().backward()
        return {"y": flags(y), "x.grad": tensor(x.grad)}

    def under_no_grad() -> Any:
        with lib.no_grad():
            x.add_(1)
        return {"x": flags(x), "values": tensor(x), "version": x._version}

    return {
        "leaf": failure(lambda: x.mul_(2)),
        "a view of the leaf": failure(lambda: x[0:2].mul_(2)),
        "a select of the leaf": failure(lambda: x[1].zero_()),
        "result": error(on_result),
        "leaf under no_grad": error(under_no_grad),
    }


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_second_derivatives(lib: Any) -> Any:
    """``create_graph=True`` makes the backward pass itself differentiable: q**3 at 3 gives
    27, 18, 6 (the notes' example); without it the gradient records nothing."""

    def derivatives() -> Any:
        q = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        y = q**3
        (d1,) = lib.autograd.grad(y, [q], create_graph=True)
        (d2,) = lib.autograd.grad(d1, [q], create_graph=True)
        (d3,) = lib.autograd.grad(d2, [q])
        return [tensor(y), tensor(d1), tensor(d2), tensor(d3)]

    def mixed() -> Any:
        x, w = leaf(lib, (3,), 99), leaf(lib, (3,), 100)
        (gx,) = lib.autograd.grad((x * w).tanh().sum(), [x], create_graph=True)
        (gx * gx).sum().backward()
        return {"gx": tensor(gx), "x.grad": tensor(x.grad), "w.grad": tensor(w.grad)}

    def without() -> Any:
        q = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        (d1,) = lib.autograd.grad(q**3, [q])
        return flags(d1)

    return {
        "q ** 3": error(derivatives),
        "grad of a gradient norm": error(mixed),
        "without create_graph": error(without),
        "differentiating it": failure(lambda: _again(lib)),
    }


def _again(lib: Any) -> Any:
    q = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
    (d1,) = lib.autograd.grad(q**3, [q])
    return lib.autograd.grad(d1, [q])


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_tensor_hooks(lib: Any) -> Any:
    """``register_hook`` on a tensor sees its gradient and may replace it (what it returns
    flows on); hooks run in the order registered; a removed hook does not run."""

    def run() -> Any:
        x = leaf(lib, (3,), 101)
        y = x * 2
        log: list[Any] = []
        y.register_hook(lambda g: log.append(("first", g.tolist())))
        y.register_hook(lambda g: g * 10)
        y.register_hook(lambda g: log.append(("third", g.tolist())))
        gone = y.register_hook(lambda g: g * 1000)
        gone.remove()
        x.register_hook(lambda g: log.append(("leaf", g.tolist())))
        y.sum().backward()
        return {"log": log, "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_hook_order(lib: Any) -> Any:
    """On the notes' diamond: for each node, tensor hooks, then node pre-hooks, the node,
    then node post-hooks; for the leaf, the post-accumulate-grad hook runs before
    ``AccumulateGrad``'s post-hook."""

    def run() -> Any:
        log: list[str] = []
        x = leaf(lib, (2,), 102)
        h = x * 3
        l_ = h.exp()
        r = h.cos()
        out = l_ + r
        for name, t in (("out", out), ("r", r), ("l", l_), ("h", h), ("x", x)):
            t.register_hook(lambda g, name=name: log.append(f"tensorhook:{name}"))
        nodes = [out.grad_fn, r.grad_fn, l_.grad_fn, h.grad_fn, h.grad_fn.next_functions[0][0]]
        for node in nodes:
            name = node_name(node)
            node.register_prehook(lambda go, name=name: log.append(f"pre:{name}"))
            node.register_hook(lambda gi, go, name=name: log.append(f"post:{name}"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post_accumulate_grad:x"))
        out.backward(lib.ones(2, dtype=lib.float64))
        return log

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_node_hooks_replace_gradients(lib: Any) -> Any:
    """A node pre-hook may return new gradient outputs, a post-hook new gradient inputs."""

    def run() -> Any:
        x = leaf(lib, (3,), 103)
        y = x.exp()
        y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        z = y * 3
        z.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
        z.sum().backward()
        return tensor(x.grad)

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_retain_grad_and_post_accumulate(lib: Any) -> Any:
    """A non-leaf's ``.grad`` stays None unless ``retain_grad()`` was called; a
    post-accumulate-grad hook sees the leaf with its ``.grad`` already summed. A second
    backward makes a NEW ``.grad`` for a retained non-leaf (``grad = grad + new``, not in
    place: torch/csrc/autograd/variable.cpp: VariableHooks::retain_grad), so an old reference
    keeps the first gradient. Post-accumulate-grad hooks are for leaves only: torch raises
    RuntimeError for a non-leaf (torch/_tensor.py: register_post_accumulate_grad_hook)."""

    def run() -> Any:
        x = leaf(lib, (3,), 104)
        y = x * x
        z = y.sin()
        y.retain_grad()
        seen: list[Any] = []
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        z.sum().backward()
        return {
            "y.grad": tensor(y.grad),
            "y.retains_grad": bool(y.retains_grad),
            "z.retains_grad": bool(z.retains_grad),
            "seen by the hook": seen,
            "x.grad": tensor(x.grad),
        }

    def twice() -> Any:
        x = leaf(lib, (2,), 105)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward(retain_graph=True)
        g = y.grad
        (y * 3).sum().backward()
        return {"old y.grad": tensor(g), "y.grad": tensor(y.grad), "same": g is y.grad}

    def on_a_result() -> Any:
        x = leaf(lib, (2,), 106)
        return (x * 2).register_post_accumulate_grad_hook(lambda t: None) is None

    return {
        "once": error(run),
        "a second backward": error(twice),
        "post-accumulate hook on a non-leaf": failure(on_a_result),
    }


def _x(lib: Any) -> Any:
    return lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_in_place_through_a_view(lib: Any) -> Any:
    """``y = x * 2; v = y[0:2]; y.mul_(3)``: the view's grad_fn becomes AsStridedBackward0
    (its base changed under it), and ``v.sum().backward()`` gives x.grad [6, 6, 0], not
    [2, 2, 0]. Writing the view instead, ``v.mul_(3)``, gives y a CopySlices node (wrapping
    the MulBackward0): y's gradient is 3 where v is and 1 elsewhere."""

    def base_written() -> Any:
        x = _x(lib)
        y = x * 2
        v = y[0:2]
        y.mul_(3)
        out = {"v": flags(v), "v graph": graph(v.grad_fn, 3), "version": v._version}
        v.sum().backward()
        return {**out, "x.grad": tensor(x.grad)}

    def view_written() -> Any:
        x = _x(lib)
        y = x * 2
        v = y[0:2]
        v.mul_(3)
        out = {"y graph": graph(y.grad_fn, 3), "v graph": graph(v.grad_fn, 2)}
        y.sum().backward()
        return {**out, "y": tensor(y), "x.grad": tensor(x.grad)}

    def leaf_base() -> Any:
        x = _x(lib)
        c = lib.zeros(3, dtype=lib.float64)
        c[1:].mul_(x[1:])  # a base that needed no grad now does, through CopySlices
        c.sum().backward()
        return {"c": flags(c), "x.grad": tensor(x.grad)}

    return {
        "base written": error(base_written),
        "view written": error(view_written),
        "a constant's view written": error(leaf_base),
    }


@case(W, points=2, tasks=("3.1", "3.2", "3.4"))
def task_3_4_a_no_grad_view_cannot_follow_a_write(lib: Any) -> Any:
    """A view made under ``no_grad`` may not see a recorded in-place write: writing it with
    grad mode on raises, and once its base is written, reading its grad_fn raises."""
    x = _x(lib)
    y = x * 2

    def written() -> Any:
        with lib.no_grad():
            v = y[0:2]
        v.mul_(2)
        return flags(v)

    def base_written() -> Any:
        with lib.no_grad():
            v = y[1:]
        y.add_(1)
        return flags(v)

    return {"the view written": failure(written), "its base written": failure(base_written)}


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_retain_grad_follows_an_in_place_op(lib: Any) -> Any:
    """After ``y.retain_grad(); y.mul_(3)``, ``y.grad`` is the gradient of the new y: the
    retains-grad hook moves to the new grad_fn. A tensor hook registered before the write
    stays with the old node and sees the old value's gradient. A write through a view moves
    it too, to the base's new CopySlices (torch/csrc/autograd/variable.cpp: rebase_history,
    which calls ``set_gradient_edge`` and moves the retains_grad hook)."""

    def run() -> Any:
        x = _x(lib)
        y = x * 2
        seen: list[Any] = []
        y.retain_grad()
        y.register_hook(lambda g: seen.append(["before", g.tolist()]))
        y.mul_(3)
        y.register_hook(lambda g: seen.append(["after", g.tolist()]))
        (y * y).sum().backward()
        return {"y.grad": tensor(y.grad), "hooks": seen, "x.grad": tensor(x.grad)}

    def through_a_view() -> Any:
        x = _x(lib)
        y = x * 1
        y.retain_grad()
        y[0:2].mul_(2)  # y's grad_fn becomes CopySlices: the retains-grad hook moves to it
        (y * const(lib, (3,), 107)).sum().backward()
        return {"y.grad": tensor(y.grad), "x.grad": tensor(x.grad)}

    return {"written": error(run), "written through a view": error(through_a_view)}


@case(W, points=2, tasks=("3.1", "3.2", "3.4"))
def task_3_4_overlapping_writes(lib: Any) -> Any:
    """An in-place op checks memory before it writes: ``mul_`` on an expanded tensor raises
    (several elements share one place) while ``zero_`` writes it; ``copy_`` from a transposed
    alias of itself raises (a partial overlap); ``copy_`` of itself is a no-op (its version
    still moves)."""

    def expanded(op: str) -> Any:
        e = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64).expand(2, 3)
        getattr(e, op)(*([2] if op == "mul_" else []))
        return tensor(e)

    def transposed() -> Any:
        m = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
        m.copy_(m.t())
        return tensor(m)

    def itself() -> Any:
        m = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
        m.copy_(m)
        return {"m": tensor(m), "version": m._version}

    return {
        "expanded mul_": failure(lambda: expanded("mul_")),
        "expanded zero_": error(lambda: expanded("zero_")),
        "copy_ of its transpose": failure(transposed),
        "copy_ of itself": error(itself),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_a_freed_tensor_written_in_place(lib: Any) -> Any:
    """A saved tensor that was freed by backward AND written in place since reports "backward
    through the graph a second time", not the in-place error: SavedVariable::unpack checks
    that its data is still there before it checks the version
    (torch/csrc/autograd/saved_variable.cpp)."""

    def run() -> Any:
        x = leaf(lib, (3,), 75)
        y = x * 2
        z = (y * y).sum()  # saves y
        z.backward()
        y.add_(1)
        z.backward()
        return tensor(x.grad)

    return failure(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_zero_sends_zeros(lib: Any) -> Any:
    """``zero_()``'s node, ZeroBackward0, sends ``zeros_like(grad)`` back, not ``grad * 0``:
    an inf or nan gradient still gives 0 (derivatives.yaml: ``zero_: self: zeros_like(grad)``)."""

    def run() -> Any:
        x = leaf(lib, (3,), 108)
        y = x * 1
        y.zero_()
        y.backward(lib.tensor([float("inf"), float("nan"), 2.0], dtype=lib.float64))
        return {"node": node_name(y.grad_fn), "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_copy_overwrites_the_gradient(lib: Any) -> Any:
    """``a.copy_(src)`` overwrites ``a``: CopyBackwards sends zeros (not None) to the old ``a``
    and the gradient to ``src`` (torch/csrc/autograd/functions/tensor.cpp:
    CopyBackwards::apply, ``at::zeros_like(grad)`` for self): x.grad is zeros, not None."""

    def run(src_needs_grad: bool) -> Any:
        x = leaf(lib, (3,), 109)
        src = leaf(lib, (3,), 110) if src_needs_grad else const(lib, (3,), 110)
        a = x * 2
        a.copy_(src)
        out = {"graph": graph(a.grad_fn, 2)}
        (a * const(lib, (3,), 111)).sum().backward()
        return {**out, "x.grad": tensor(x.grad), "src.grad": tensor(src.grad)}

    return {
        "from a constant": error(lambda: run(False)),
        "from a tensor that requires grad": error(lambda: run(True)),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4", "3.5"))
def task_3_4_a_hook_on_the_second_output(lib: Any) -> Any:
    """A tensor hook on a non-leaf is a pre-hook of its grad_fn for ITS input, ``output_nr``
    (torch/csrc/autograd/variable.cpp: VariableHooks::_register_hook, CppFunctionTensorPreHook
    with ``value_idx = output_nr``): on a two-output node each hook sees its own output's
    gradient."""

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, x * 3

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            return ga * 2 + gb * 3

    def run() -> Any:
        log: list[Any] = []
        x = leaf(lib, (2,), 112)
        a, b = Two.apply(x)
        a.register_hook(lambda g: log.append(["a", g.tolist()]))
        b.register_hook(lambda g: g * 10)
        b.register_hook(lambda g: log.append(["b", g.tolist()]))
        (a * 5 + b * 7).sum().backward()
        return {"output_nr": [a.output_nr, b.output_nr], "log": log, "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_4_replacements_must_fit(lib: Any) -> Any:
    """What replaces a tensor must fit it. An in-place op cannot grow its tensor: ``other``
    must broadcast to self's shape (RuntimeError "output with shape [2, 1] doesn't match the
    broadcast shape [2, 3]": TensorIteratorBase::mark_resize_outputs). A hook's result replaces
    a gradient, and torch checks it (torch/csrc/autograd/python_hook.cpp: _call_hooks, then
    check_single_result and check_variable_result, or check_result for a node hook's tuple):
    a tensor hook must keep the gradient's size ("hook 'h' has changed the size of value") and
    dtype ("... changed the type of value"); a node hook must return a tuple of as many ("...
    returned an incorrect number of values (got 2, but expected 1)"), and no tensor where there
    was None; a post-accumulate-grad hook must return None. Returning None, or the gradient
    itself, is always fine. The check runs as the hook returns: the hooks before it ran, the
    gradients a leaf got before it stay."""
    x = leaf(lib, (2, 1), 124)

    def backward(register: Any) -> Any:
        leaf_x = leaf(lib, (2, 3), 125)
        y = leaf_x * const(lib, (2, 3), 126)
        log: list[Any] = []
        register(leaf_x, y, log)
        outcome = error(lambda: y.sum().backward() or "ran")
        return {"backward": outcome, "log": log, "x.grad": tensor(leaf_x.grad)}

    def logged(log: list[Any], result: Any) -> Any:
        log.append("hook ran")
        return result

    hooks = {
        "tensor hook: same gradient": lambda x_, y, log: y.register_hook(lambda g: logged(log, g)),
        "tensor hook: sum()": lambda x_, y, log: y.register_hook(lambda g: logged(log, g.sum())),
        "tensor hook: float32": lambda x_, y, log: y.register_hook(lambda g: g.float()),
        "tensor hook: not a tensor": lambda x_, y, log: x_.register_hook(lambda g: 2.0),
        "pre-hook: two for one": lambda x_, y, log: y.grad_fn.register_prehook(
            lambda gos: logged(log, (gos[0], gos[0]))
        ),
        "pre-hook: a list": lambda x_, y, log: y.grad_fn.register_prehook(lambda gos: list(gos)),
        "post-hook: a tensor for None": lambda x_, y, log: y.grad_fn.register_hook(
            lambda gis, gos: (gis[0], gis[0])
        ),
        "post-accumulate-grad hook: returns": lambda x_, y, log: (
            x_.register_post_accumulate_grad_hook(lambda p: logged(log, p.detach()))
        ),
    }
    out = {
        "x.add_((2, 3))": error(lambda: tensor((x * 1).add_(const(lib, (2, 3), 127)))),
        "x.copy_((2, 2))": error(lambda: tensor((x * 1).copy_(const(lib, (2, 2), 128)))),
    }
    out.update({name: backward(register) for name, register in hooks.items()})
    return out
