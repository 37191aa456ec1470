"""Week 3 hidden cases: variations on the public ones, run only when grading.

Each checks a rule a public case also checks, on inputs the public cases do not use: random
graphs with shared subexpressions (run order and gradients), random second derivatives, and
random optimizer settings over a training run.
"""

from __future__ import annotations

from typing import Any

from autograder import case, property_case
from autograder.weeks.week3.common import W, error, leaf, node_name, tensor
from autograder.weeks.week3.nn_optim import _train

UNARY = ["exp", "tanh", "sin", "cos", "sigmoid"]


def _dags() -> Any:
    from hypothesis import strategies as st

    step = st.tuples(
        st.sampled_from(["mul", "add", *UNARY]), st.integers(0, 99), st.integers(0, 99)
    )
    return st.tuples(st.lists(step, min_size=3, max_size=9), st.integers(0, 1000))


def _dag_label(ex: Any) -> str:
    steps, seed = ex
    return f"seed {seed}: " + ", ".join(f"{op}({i % 9},{j % 9})" for op, i, j in steps)


@property_case(W, _dags, n=15, points=3, tasks=("3.1", "3.2", "3.3"), hidden=True, label=_dag_label)
def hidden_random_graphs_run_in_torchs_order(lib: Any, example: Any) -> Any:
    """Random graphs where values are reused (diamonds of every shape): the order the nodes
    run in (seen by pre-hooks) and the leaf's gradient equal torch's."""
    steps, seed = example
    x = leaf(lib, (3,), seed, low=-1.0, high=1.0)
    values = [x * 0.5]
    for op, i, j in steps:
        a, b = values[i % len(values)], values[j % len(values)]
        values.append(a * b if op == "mul" else a + b if op == "add" else getattr(a, op)())
    log: list[str] = []
    for k, v in enumerate(values):
        v.grad_fn.register_prehook(lambda go, k=k: log.append(f"v{k}"))
    total = values[0]
    for v in values[1:]:
        total = total + v

    def run() -> Any:
        total.sum().backward()
        return {"order": log, "x.grad": tensor(x.grad), "top": node_name(total.grad_fn)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"), hidden=True)
def hidden_second_derivatives_of_each_op(lib: Any) -> Any:
    """``create_graph=True`` through every unary op and through division and matmul."""
    out = {}
    for name in [*UNARY, "log", "relu"]:
        x = leaf(lib, (3,), 160, low=0.2, high=1.5)

        def run(name: str = name, x: Any = x) -> Any:
            (g,) = lib.autograd.grad(getattr(x, name)().sum(), [x], create_graph=True)
            (gg,) = lib.autograd.grad(g.sum(), [x], allow_unused=True)
            return [tensor(g), tensor(gg)]

        out[name] = error(run)
    a, b = leaf(lib, (2, 2), 161), leaf(lib, (2, 2), 162, low=0.5, high=2.0)

    def mixed() -> Any:
        (ga,) = lib.autograd.grad(((a @ b) / b).sum(), [a], create_graph=True)
        (gb,) = lib.autograd.grad((ga * ga).sum(), [b])
        return [tensor(ga), tensor(gb)]

    out["matmul and division"] = error(mixed)
    return out


@case(W, points=2, tasks=("3.1", "3.2", "3.3", "3.4", "3.7", "3.8"), hidden=True)
def hidden_training_runs_with_other_settings(lib: Any) -> Any:
    """The training run with other optimizer settings: nesterov SGD, Adam with weight decay
    and amsgrad."""
    return {
        "nesterov": error(
            lambda: _train(
                lib, lambda ps: lib.optim.SGD(ps, lr=0.05, momentum=0.7, nesterov=True), 12
            )
        ),
        "Adam wd amsgrad": error(
            lambda: _train(
                lib, lambda ps: lib.optim.Adam(ps, lr=0.02, weight_decay=0.05, amsgrad=True), 12
            )
        ),
    }


@case(W, points=3, tasks=("3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7"), hidden=True)
def hidden_random_programs_from_the_differential_generator(lib: Any) -> Any:
    """Twenty programs from the generator the reference is held to (autograder/differential/
    week3.py), with seeds the differential run does not use: views, in-place ops, hooks,
    checkpoint, custom Functions and grad modes, all together."""
    import random

    from autograder.differential import week3 as gen

    return [gen.execute(lib, gen.generate(random.Random(f"hidden:{i}"))) for i in range(20)]
