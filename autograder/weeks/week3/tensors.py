"""Task 3.1: tensors and leaves, and grad mode. Compared with torch on the same inputs."""

from __future__ import annotations

from typing import Any

from autograder.cases import case
from autograder.weeks.week3.common import (
    W,
    const,
    data,
    error,
    failure,
    flags,
    leaf,
    node_name,
    tensor,
)


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_leaves_and_results(lib: Any) -> Any:
    """A tensor made with ``requires_grad=True`` is a leaf with no ``grad_fn`` and no
    ``.grad`` yet; a result computed from it requires grad and is not a leaf; a result of
    tensors that need no gradient is a leaf again."""
    a, c = leaf(lib, (3,), 1), const(lib, (3,), 2)
    return {
        "a": error(lambda: {**flags(a), "grad": tensor(a.grad)}),
        "c": error(lambda: flags(c)),
        "a * c": error(lambda: flags(a * c)),
        "c * c": error(lambda: flags(c * c)),
    }


@case(W, points=1, tasks="3.1")
def task_3_1_default_dtypes(lib: Any) -> Any:
    """Python floats make float32 tensors and ints int64, as in torch; ``dtype=`` wins."""
    return {
        "floats": error(lambda: tensor(lib.tensor([1.5, 2.0]))),
        "ints": error(lambda: tensor(lib.tensor([[1, 2], [3, 4]]))),
        "float64": error(lambda: tensor(lib.tensor([1, 2], dtype=lib.float64))),
        "zeros": error(lambda: tensor(lib.zeros(2, 3))),
        "ones": error(lambda: tensor(lib.ones(2, dtype=lib.float64))),
    }


@case(W, points=1, tasks="3.1")
def task_3_1_only_floats_require_grad(lib: Any) -> Any:
    """An integer tensor cannot require gradients: torch raises RuntimeError. Asking it NOT to
    is fine: the dtype check is only for True (torch/csrc/autograd/python_variable.cpp:
    THPVariable_set_requires_grad; variable.cpp: VariableHooks::requires_grad_)."""

    def turn_off() -> Any:
        t = lib.tensor([1, 2])
        t.requires_grad = False
        return [flags(t.requires_grad_(False)), flags(lib.tensor([3], requires_grad=False))]

    return {
        "requires_grad=True": failure(lambda: flags(lib.tensor([1, 2], requires_grad=True))),
        "False": error(turn_off),
    }


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_detach_and_requires_grad_(lib: Any) -> Any:
    """``detach()`` gives a leaf that needs no gradient, with the same values;
    ``requires_grad_()`` turns a leaf on; a non-leaf's flag cannot be changed."""
    a = leaf(lib, (2, 2), 3)
    b = a * 2

    def turn_on() -> Any:
        c = const(lib, (2,), 4)
        c.requires_grad_()
        return flags(c)

    def turn_off_result() -> Any:
        b.requires_grad_(False)
        return flags(b)

    return {
        "b.detach()": error(lambda: {**flags(b.detach()), "values": tensor(b.detach())}),
        "c.requires_grad_()": error(turn_on),
        "b.requires_grad_(False)": failure(turn_off_result),
        "ones(2, requires_grad=True)": error(lambda: flags(lib.ones(2, requires_grad=True))),
        "zeros_like(a)": error(
            lambda: {"flags": flags(lib.zeros_like(a)), "values": tensor(lib.zeros_like(a))}
        ),
    }


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_grad_mode(lib: Any) -> Any:
    """Under ``no_grad`` results need no gradient and have no ``grad_fn``; ``enable_grad``
    inside it turns recording back on; ``set_grad_enabled(False)`` is ``no_grad``;
    ``is_grad_enabled`` says which."""
    a = leaf(lib, (3,), 5)
    seen: dict[str, Any] = {}

    def run() -> Any:
        with lib.no_grad():
            seen["no_grad"] = flags(a * 2)
            seen["no_grad enabled?"] = lib.is_grad_enabled()
            with lib.enable_grad():
                seen["enable_grad inside"] = flags(a * 2)
            seen["back in no_grad"] = flags(a * 2)
            seen["back in no_grad, enabled?"] = lib.is_grad_enabled()
        with lib.set_grad_enabled(False):
            seen["set_grad_enabled(False)"] = flags(a.exp())
        seen["after"] = flags(a * 2)
        seen["enabled after?"] = lib.is_grad_enabled()
        return seen

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_1_set_grad_enabled_called_plainly(lib: Any) -> Any:
    """``set_grad_enabled(False)`` as a plain call (no ``with``) turns grad mode off at once:
    torch sets it in the constructor (torch/autograd/grad_mode.py: set_grad_enabled.__init__),
    so the mode holds until the next call."""
    a = leaf(lib, (2,), 7)

    def run() -> Any:
        seen: dict[str, Any] = {}
        try:
            lib.set_grad_enabled(False)
            seen["enabled after set_grad_enabled(False)"] = bool(lib.is_grad_enabled())
            seen["a * 2"] = flags(a * 2)
            lib.set_grad_enabled(True)
            seen["enabled after set_grad_enabled(True)"] = bool(lib.is_grad_enabled())
            seen["a * 3"] = flags(a * 3)
        finally:
            lib.set_grad_enabled(True)  # never leave grad mode off for the next case
        return seen

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_1_inference_mode_false_turns_grad_on(lib: Any) -> Any:
    """``inference_mode(False)`` is not "no_grad and more": its guard sets grad mode to
    ``not enabled`` (c10/core/InferenceMode.h: InferenceMode's constructor), so inside it grad
    mode is ON, even within ``no_grad``, and results record a graph; on exit the old modes
    come back."""
    a = leaf(lib, (2,), 8)

    def run() -> Any:
        seen: dict[str, Any] = {}
        with lib.no_grad():
            with lib.inference_mode(False):
                seen["enabled inside (in no_grad)"] = bool(lib.is_grad_enabled())
                y = a * 2
                seen["a * 2"] = {**flags(y), "is_inference": bool(y.is_inference())}
            seen["enabled after"] = bool(lib.is_grad_enabled())
        return seen

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_no_grad_as_a_decorator(lib: Any) -> Any:
    """``@no_grad()`` on a function: its results record nothing; grad mode is back on after."""
    a = leaf(lib, (2,), 6)

    def run() -> Any:
        @lib.no_grad()
        def double(t: Any) -> Any:
            return t * 2

        return {"inside": flags(double(a)), "after": lib.is_grad_enabled()}

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_values_round_trip(lib: Any) -> Any:
    """``tolist()``, ``item()``, ``numel()``, ``dim()`` and ``shape`` as torch gives them."""
    t = lib.tensor(data((2, 3), 7), dtype=lib.float64)
    return error(
        lambda: {
            "tolist": t.tolist(),
            "item": t.sum().item(),
            "numel": t.numel(),
            "dim": t.dim(),
            "shape": [int(s) for s in t.shape],
        }
    )


@case(W, points=2, tasks=("3.1", "3.2", "3.4"))
def task_3_1_inference_mode(lib: Any) -> Any:
    """Inside ``inference_mode()`` grad mode is off and what is made there is an inference
    tensor: no graph, no version counter (reading ``_version`` raises). Outside, writing one in
    place raises (after the write), and so does asking it to require grad."""
    x = leaf(lib, (3,), 5)

    def inside() -> Any:
        with lib.inference_mode():
            enabled = lib.is_grad_enabled()
            y = x * 2
        return {
            "is_grad_enabled inside": bool(enabled),
            "after": bool(lib.is_grad_enabled()),
            "y": flags(y),
            "y.is_inference()": bool(y.is_inference()),
        }

    def made_inside() -> Any:
        with lib.inference_mode():
            return x * 2

    def write() -> Any:
        y = made_inside()
        outcome = failure(lambda: y.add_(1))
        return {"add_": outcome, "values after": tensor(y)}

    return {
        "inside": error(inside),
        "_version": failure(lambda: made_inside()._version),
        "written outside": error(write),
        "requires_grad_ outside": failure(lambda: flags(made_inside().requires_grad_())),
    }


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_1_view_made_under_no_grad(lib: Any) -> Any:
    """A view made under ``no_grad`` of a tensor that requires grad requires grad too (its base
    does), yet it has no ``grad_fn`` and no ``AccumulateGrad``: an op on it records a node
    whose edge goes nowhere."""
    x = leaf(lib, (3,), 6)
    with lib.no_grad():
        v = x[0:2]

    def op() -> Any:
        y = v * 2
        return [node_name(y.grad_fn), [n is None for n, _ in y.grad_fn.next_functions]]

    return {"v": error(lambda: flags(v)), "v * 2": error(op)}


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_1_detach_shares_the_version_counter(lib: Any) -> Any:
    """``detach()`` shares the data AND the version counter (torch: a non-differentiable view,
    VariableHooks::detach in variable.cpp): writing the detached tensor bumps the original's
    ``_version``, and a node that saved the original sees the write at backward."""

    def versions() -> Any:
        x = const(lib, (2,), 9)
        d = x.detach()
        d.add_(1)
        return {"x._version": x._version, "d._version": d._version, "x": tensor(x)}

    def saved() -> Any:
        x = leaf(lib, (2,), 10)
        y = x.exp()  # saves its result, y
        y.detach().mul_(2)
        y.sum().backward()
        return tensor(x.grad)

    return {"versions": error(versions), "backward after the write": failure(saved)}


@case(W, points=1, tasks=("3.1", "3.4"))
def task_3_1_tensor_copies_a_numpy_array(lib: Any) -> Any:
    """``tensor(ndarray)`` keeps the array's dtype (float64 stays float64: the float32 default
    is only for Python floats) unless ``dtype=`` says otherwise, and always copies: writing the
    tensor leaves the array alone (torch/csrc/utils/tensor_new.cpp: internal_new_from_data,
    tensor_from_numpy then a copy)."""
    import numpy as np

    def copied() -> Any:
        a = np.array([1.5, 2.5])
        t = lib.tensor(a)
        t.add_(1)
        return {"array after": a.tolist(), "tensor": tensor(t)}

    arrays = {
        "float64": np.array([0.5, 1.25]),
        "float32": np.array([0.5, 1.25], dtype=np.float32),
        "int64": np.array([1, 2], dtype=np.int64),
        "bool": np.array([True, False]),
    }
    out = {k: error(lambda a=a: tensor(lib.tensor(a))) for k, a in arrays.items()}
    out["float64, dtype=float32"] = error(
        lambda: tensor(lib.tensor(arrays["float64"], dtype=lib.float32))
    )
    out["a copy"] = error(copied)
    return out
