"""Tasks 3.7 and 3.8: ``Module``, ``Parameter``, ``Linear``; ``SGD`` and ``Adam``.

Weights cannot come from the same random generator on both sides, so each model gets the same
numbers through ``load_state_dict`` (what the issue calls "weights copied in"); from there,
every forward, gradient, optimizer state and loss is compared with torch's
(torch/nn/modules/module.py, linear.py; torch/optim/sgd.py, adam.py: ``_single_tensor_*``).
"""

from __future__ import annotations

from typing import Any

from autograder.cases import case
from autograder.observe import raised
from autograder.weeks.week3.common import (
    W,
    const,
    data,
    error,
    failure,
    flags,
    grads,
    graph,
    tensor,
)


def _net(lib: Any) -> Any:
    """A module with a Linear, a Sequential and a plain tensor attribute (not a parameter)."""

    class Net(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = lib.nn.Linear(2, 4)
            self.body = lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Linear(4, 3), lib.nn.ReLU())
            self.scale = lib.nn.Parameter(lib.ones(3, dtype=lib.float32))
            self.offset = lib.zeros(3)  # a plain tensor: not registered

        def forward(self, x: Any) -> Any:
            return self.body(self.fc1(x)) * self.scale + self.offset

    return Net()


def _weights(model: Any, seed: int) -> dict[str, Any]:
    """Deterministic numbers for every entry of ``model``'s state dict, by name."""
    return {
        name: data(tuple(int(s) for s in t.shape), seed + i, -0.8, 0.8)
        for i, (name, t) in enumerate(model.state_dict().items())
    }


def _load(lib: Any, model: Any, seed: int, dtype: str = "float32") -> Any:
    values = _weights(model, seed)
    model.load_state_dict({k: lib.tensor(v, dtype=getattr(lib, dtype)) for k, v in values.items()})
    return model


def _tied(lib: Any) -> Any:
    """One Linear in two places: its parameters are listed once, under the first name."""
    shared = lib.nn.Linear(3, 3)
    return lib.nn.Sequential(shared, lib.nn.Tanh(), shared)


@case(W, points=2, tasks=("3.1", "3.7"))
def task_3_7_parameters_are_registered(lib: Any) -> Any:
    """Assigning a Parameter or a Module to an attribute registers it: ``named_parameters``
    lists them in torch's order and names ("body.1.weight"); a plain tensor is not one."""

    def run() -> Any:
        net = _net(lib)
        return {
            "named_parameters": [(n, [int(s) for s in p.shape]) for n, p in net.named_parameters()],
            "parameters": len(list(net.parameters())),
            "children": [type(m).__name__ for m in net.children()],
            "a parameter": flags(net.fc1.weight),
            "is a tensor": isinstance(net.fc1.weight, lib.Tensor),
            "a Linear used twice": [n for n, _ in _tied(lib).named_parameters()],
        }

    return error(run)


@case(W, points=2, tasks=("3.1", "3.4", "3.7"))
def task_3_7_state_dict_round_trip(lib: Any) -> Any:
    """``state_dict`` keys in torch's order; ``load_state_dict`` copies values in (the same
    Parameter objects, now holding them)."""

    def run() -> Any:
        net = _net(lib)
        before = net.fc1.weight
        _load(lib, net, 130)
        sd = net.state_dict()
        return {
            "keys": list(sd.keys()),
            "fc1.weight": tensor(sd["fc1.weight"]),
            "same Parameter": net.fc1.weight is before,
            "still a leaf": flags(net.fc1.weight),
        }

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4", "3.7"))
def task_3_7_forward_and_gradients(lib: Any) -> Any:
    """A forward pass through the copied-in model gives torch's values; backward gives each
    parameter torch's gradient."""

    def run() -> Any:
        net = _load(lib, _net(lib), 131)
        x = lib.tensor(data((5, 2), 132), dtype=lib.float32)
        out = net(x)
        (out * out).mean().backward()
        return {
            "out": tensor(out),
            "grads": {n: tensor(p.grad) for n, p in net.named_parameters()},
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4", "3.7"))
def task_3_7_train_eval_and_zero_grad(lib: Any) -> Any:
    """``eval()`` and ``train()`` set ``training`` on every submodule; ``zero_grad()`` sets
    every gradient to None (torch's default since 2.0)."""

    def run() -> Any:
        net = _load(lib, _net(lib), 133)
        net(lib.ones(1, 2)).sum().backward()
        had = [p.grad is not None for p in net.parameters()]
        net.zero_grad()
        net.eval()
        after_eval = [net.training, net.body.training, net.body[0].training]
        net.train()
        return {
            "had grads": had,
            "after zero_grad": [p.grad is None for p in net.parameters()],
            "after eval": after_eval,
            "after train": [net.training, net.body.training, net.body[0].training],
        }

    return error(run)


def _step_states(lib: Any, make_opt: Any, steps: int = 3) -> Any:
    """A 3-parameter problem stepped ``steps`` times: parameters and state after each."""
    w = lib.nn.Parameter(lib.tensor(data((2, 3), 140), dtype=lib.float32))
    b = lib.nn.Parameter(lib.tensor(data((3,), 141), dtype=lib.float32))
    x = const(lib, (4, 2), 142, dtype="float32")
    opt = make_opt([w, b])
    history = []
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).tanh() ** 2).mean().backward()
        opt.step()
        history.append(
            {
                "w": tensor(w),
                "b": tensor(b),
                "state": {
                    key: (float(v) if key == "step" else tensor(v))
                    for key, v in sorted(opt.state[w].items())
                },
            }
        )
    return history


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.8"))
def task_3_8_sgd(lib: Any) -> Any:
    """SGD as ``_single_tensor_sgd``: plain, with momentum (its ``momentum_buffer`` state),
    dampening, nesterov and weight decay."""
    settings = {
        "plain": {"lr": 0.1},
        "momentum": {"lr": 0.1, "momentum": 0.9},
        "dampening": {"lr": 0.1, "momentum": 0.9, "dampening": 0.5},
        "nesterov": {"lr": 0.05, "momentum": 0.8, "nesterov": True},
        "weight decay": {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01},
    }
    return {
        name: error(lambda kw=kw: _step_states(lib, lambda ps: lib.optim.SGD(ps, **kw)))
        for name, kw in settings.items()
    }


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.8"))
def task_3_8_adam(lib: Any) -> Any:
    """Adam as ``_single_tensor_adam``: bias-corrected moments, its ``step``, ``exp_avg``
    and ``exp_avg_sq`` state, weight decay and amsgrad."""
    settings = {
        "defaults": {"lr": 0.01},
        "betas": {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-6},
        "weight decay": {"lr": 0.01, "weight_decay": 0.1},
        "amsgrad": {"lr": 0.02, "amsgrad": True},
    }
    return {
        name: error(lambda kw=kw: _step_states(lib, lambda ps: lib.optim.Adam(ps, **kw)))
        for name, kw in settings.items()
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.8"))
def task_3_8_optimizer_zero_grad_and_groups(lib: Any) -> Any:
    """``opt.zero_grad()`` sets the gradients to None; ``param_groups`` holds the settings."""

    def run() -> Any:
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([w], lr=0.5, momentum=0.25)
        (w * 3).sum().backward()
        before = tensor(w.grad)
        opt.zero_grad()
        group = opt.param_groups[0]
        return {
            "before": before,
            "after": tensor(w.grad),
            "lr": group["lr"],
            "momentum": group["momentum"],
            "params": len(group["params"]),
        }

    return error(run)


def _train(lib: Any, make_opt: Any, steps: int = 20) -> list[float]:
    """An MLP 2-8-1 with tanh, copied-in weights, a fixed batch: the loss of each step."""
    model = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    _load(lib, model, 150)
    x = lib.tensor(data((16, 2), 151), dtype=lib.float32)
    y = lib.tensor(data((16, 1), 152), dtype=lib.float32)
    opt = make_opt(model.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    return losses


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.4", "3.7", "3.8"))
def task_3_8_training_run(lib: Any) -> Any:
    """Twenty steps of an MLP with SGD (momentum, weight decay) and with Adam: every loss
    equals torch's."""
    return {
        "SGD": error(
            lambda: _train(
                lib, lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01)
            )
        ),
        "Adam": error(lambda: _train(lib, lambda ps: lib.optim.Adam(ps, lr=0.01))),
    }


def _linear(lib: Any, bias: bool) -> Any:
    lin = lib.nn.Linear(3, 2, bias=bias)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(data((2, 3), 141)))
        if bias:
            lin.bias.copy_(lib.tensor(data((2,), 142)))
    return lin


@case(W, points=2, tasks=("3.1", "3.2", "3.4", "3.7"))
def task_3_7_linear_on_a_vector(lib: Any) -> Any:
    """F.linear on a 1-D input (aten/src/ATen/native/Linear.cpp): with a bias, a contiguous
    vector goes through addmm as a row and back (ViewBackward0); without one, through matmul:
    ``x.unsqueeze(0).mm(w.t()).squeeze_(0)`` (SqueezeBackward4, at version 1 already). A
    float64 input raises: nothing is promoted."""

    def run(bias: bool) -> Any:
        x = lib.tensor(data((3,), 143), requires_grad=True)
        y = _linear(lib, bias)(x)
        return {"y": tensor(y), "flags": flags(y), "version": y._version}

    def float64() -> Any:
        x = lib.tensor(data((2, 3), 144), dtype=lib.float64)
        return tensor(_linear(lib, True)(x))

    return {
        "with bias": error(lambda: run(True)),
        "without bias": error(lambda: run(False)),
        "float64 input": error(float64),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.4", "3.7"))
def task_3_7_a_parameter_set_to_none(lib: Any) -> Any:
    """Setting a registered parameter to None keeps the name in ``_parameters`` with the value
    None: ``named_parameters`` and ``state_dict`` skip it, the attribute reads None, and the
    Linear runs without a bias (torch/nn/modules/module.py: Module.__setattr__)."""

    def run() -> Any:
        lin = _linear(lib, True)
        lin.bias = None
        y = lin(lib.tensor(data((4, 3), 145)))
        return {
            "named_parameters": [n for n, _ in lin.named_parameters()],
            "state_dict": list(lin.state_dict().keys()),
            "bias": tensor(lin.bias),
            "y": tensor(y),
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.4", "3.7"))
def task_3_7_state_dict_is_detached(lib: Any) -> Any:
    """``state_dict()`` holds each parameter detached (``keep_vars=False``): a tensor that does
    not require grad, sharing the parameter's data, so a write through it shows in the
    parameter (torch/nn/modules/module.py: Module._save_to_state_dict)."""

    def run() -> Any:
        lin = _linear(lib, True)
        sd = lin.state_dict()
        sd["bias"].mul_(0)
        return {
            "weight": flags(sd["weight"]),
            "is the Parameter": sd["weight"] is lin.weight,
            "bias after a write to its entry": tensor(lin.bias),
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.4", "3.7"))
def task_3_7_load_state_dict_strict(lib: Any) -> Any:
    """``load_state_dict(sd, strict=False)`` loads the keys it knows and returns the
    ``missing_keys`` and ``unexpected_keys``; ``strict=True`` (the default) raises for them
    instead (torch/nn/modules/module.py: Module.load_state_dict)."""

    def loaded(sd: dict[str, Any], strict: bool) -> Any:
        lin = _linear(lib, True)
        result = lin.load_state_dict(sd, strict=strict)
        return {
            "missing_keys": list(result.missing_keys),
            "unexpected_keys": list(result.unexpected_keys),
            "weight": tensor(lin.weight),
            "bias": tensor(lin.bias),
        }

    def state(keys: tuple[str, ...]) -> dict[str, Any]:
        shapes = {"weight": (2, 3), "bias": (2,), "extra": (1,)}
        return {k: lib.tensor(data(shapes[k], 146 + i)) for i, k in enumerate(keys)}

    return {
        "no bias, strict=False": error(lambda: loaded(state(("weight",)), False)),
        "an extra key, strict=False": error(
            lambda: loaded(state(("weight", "bias", "extra")), False)
        ),
        "no bias, strict": _names_keys(lambda: loaded(state(("weight",)), True)),
    }


def _names_keys(fn: Any) -> Any:
    """What ``fn()`` gave or raised, and whether an error's message names the missing key."""
    try:
        return {"outcome": fn(), "names it": False}
    except Exception as exc:  # noqa: BLE001 - every error is data here
        said = str(exc)
        return {"outcome": raised(exc), "names it": "Missing key(s)" in said and "bias" in said}


@case(W, points=1, tasks=("3.1", "3.2", "3.4", "3.7"))
def task_3_7_linear_is_addmm(lib: Any) -> Any:
    """On a 2-D input with a bias, F.linear is one ``addmm(bias, x, weight.t())``
    (aten/src/ATen/native/Linear.cpp: linear): its node is AddmmBackward0, whose edges lead to
    the bias, nothing for x, and the weight through TBackward0."""

    def run() -> Any:
        y = _linear(lib, True)(lib.tensor(data((4, 3), 147)))
        return {"y": tensor(y), "graph": graph(y.grad_fn)}

    return error(run)


def _two_parameters(lib: Any) -> Any:
    """``p`` and ``q`` with gradients ``2q`` and ``2p``."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    q = lib.nn.Parameter(lib.tensor([0.5, 3.0]))
    (p * q * 2).sum().backward()
    return p, q


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4", "3.7", "3.8"))
def task_3_8_zero_grad_keep_zeros(lib: Any) -> Any:
    """``zero_grad(set_to_none=False)`` keeps each gradient tensor and zeroes it in place
    (``p.grad.zero_()``): a reference taken before reads zeros too (torch/optim/optimizer.py:
    Optimizer.zero_grad; torch/nn/modules/module.py: Module.zero_grad)."""

    def run() -> Any:
        p, q = _two_parameters(lib)
        held = p.grad
        lib.optim.SGD([p, q], lr=0.1).zero_grad(set_to_none=False)
        lin = _linear(lib, True)
        lin(lib.ones(1, 3)).sum().backward()
        held_w = lin.weight.grad
        lin.zero_grad(set_to_none=False)
        return {
            "optimizer": grads(p, q),
            "the same tensor": [held is p.grad, tensor(held)],
            "module": grads(*lin.parameters()),
            "the same tensor (module)": [held_w is lin.weight.grad, tensor(held_w)],
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.8"))
def task_3_8_adam_step_is_a_float_tensor(lib: Any) -> Any:
    """Adam counts its steps in ``state["step"]``, a 0-d float32 tensor
    (torch/optim/adam.py: Adam._init_group, ``torch.tensor(0.0, dtype=_get_scalar_dtype())``)."""

    def run() -> Any:
        p, _ = _two_parameters(lib)
        opt = lib.optim.Adam([p], lr=0.1)
        opt.step()
        opt.step()
        return tensor(opt.state[p]["step"])

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.8"))
def task_3_8_param_group_options(lib: Any) -> Any:
    """Each parameter group takes the optimizer's defaults, then its own options over them: a
    group with ``lr=1.0`` steps with 1.0 (torch/optim/optimizer.py: Optimizer.add_param_group)."""

    def run() -> Any:
        p, q = _two_parameters(lib)
        opt = lib.optim.SGD([{"params": [p]}, {"params": [q], "lr": 1.0, "momentum": 0.5}], lr=0.1)
        opt.step()
        return {
            "p": tensor(p),
            "q": tensor(q),
            "groups": [(g["lr"], g["momentum"], len(g["params"])) for g in opt.param_groups],
        }

    return error(run)


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4", "3.8"))
def task_3_8_step_writes_in_place(lib: Any) -> Any:
    """``step()`` updates each parameter in place (``param.add_``, ``param.addcdiv_``): its
    version goes up by one, so a graph that saved it before the step can no longer run
    backward (torch/optim/sgd.py, adam.py: ``_single_tensor_*``)."""

    def run(make_opt: Any) -> Any:
        p, q = _two_parameters(lib)
        before = p._version
        y = (p * p).sum()
        make_opt([p, q]).step()
        return {
            "version": p._version - before,
            "backward through the old graph": failure(y.backward),
        }

    return {
        "SGD": error(lambda: run(lambda ps: lib.optim.SGD(ps, lr=0.1))),
        "Adam": error(lambda: run(lambda ps: lib.optim.Adam(ps, lr=0.1))),
    }
