"""Week 3 mutants: realistic learner bugs in reference_impl/autograd.py, by task.

Each replaces one short, distinctive piece of the reference (found exactly once). Among them
the issue's six: a gradient not reduced over broadcast dims, accumulation that overwrites
instead of adding, the ready queue in creation order instead of torch's, a missing version
check, hooks in the wrong order, and Adam's bias correction left out.
``python -m autograder.mutation week3`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week3", task, name, old, new, why)


WEEK3_MUTANTS: list[Mutant] = [
    # --- Task 3.1: tensors, leaves, grad mode ------------------------------------------------
    _m(
        "3.1",
        "Python floats make float64",
        "    return np.dtype(np.float32)\n",
        "    return np.dtype(np.float64)\n",
        "NumPy's default, not torch's",
    ),
    _m(
        "3.1",
        "no_grad forgets the mode it replaced",
        "        _state.grad_enabled = self.prev\n",
        "        _state.grad_enabled = True\n",
        "enable_grad inside no_grad then turns grad mode on for good",
    ),
    # --- Task 3.2: ops, nodes, saved tensors -------------------------------------------------
    _m(
        "3.2",
        "broadcast dims of size 1 not summed back",
        "    if dims:\n        grad = grad.sum(dims, keepdim=True)\n",
        "",
        "the gradient of a (3, 1) input keeps shape (3, 4)",
    ),
    _m(
        "3.2",
        "mul's gradients swapped",
        'ga = sum_to(g * self.saved("other"), shapes[0])',
        'ga = sum_to(g * self.saved("self"), shapes[0])',
        "d(a*b)/da written as a",
    ),
    _m(
        "3.2",
        "mean divides by the wrong count",
        "count = math.prod(sizes[d] for d in dims)",
        "count = math.prod(sizes)",
        "mean over one dim divided by every element",
    ),
    _m(
        "3.2",
        "no version check on unpack",
        "        if self.version_counter[0] != self.saved_version:\n"
        "            raise modified_in_place_error(self)\n",
        "",
        "the issue's missing version check: a stale saved tensor is used silently",
    ),
    # --- Task 3.3: the engine -------------------------------------------------------------------
    _m(
        "3.3",
        "ready queue in creation order",
        "heapq.heappush(ready, (-node._sequence_nr(), next(_push_count), node, inputs))",
        "heapq.heappush(ready, (node._sequence_nr(), next(_push_count), node, inputs))",
        "the issue's FIFO-like order: oldest node first",
    ),
    _m(
        "3.3",
        "input buffer keeps the last gradient",
        "self.buffer[pos] = var if old is None else old + var",
        "self.buffer[pos] = var",
        "a value used twice gets one gradient",
    ),
    _m(
        "3.3",
        "accumulation overwrites .grad",
        "            var.grad._array += new._array.astype(var.grad.dtype.np)\n",
        "            var.grad._array[...] = new._array.astype(var.grad.dtype.np)\n",
        "the issue's: a second backward replaces instead of adding",
    ),
    _m(
        "3.3",
        "graph never freed",
        "                value.reset_data()\n",
        "                pass\n",
        "a second backward silently works without retain_graph",
    ),
    # --- Task 3.4: in-place, hooks ----------------------------------------------------------
    _m(
        "3.4",
        "version error names the wrong versions",
        'f"{_format_size(saved.shape)}]{which} is at version {current}; expected version "\n'
        '        f"{saved.saved_version} instead.',
        'f"{_format_size(saved.shape)}]{which} is at version {current + 1}; expected version "\n'
        '        f"{saved.saved_version} instead.',
        "",
    ),
    _m(
        "3.4",
        "node pre-hooks before tensor hooks",
        "    inputs = call_tensor_pre_hooks(node, inputs)\n"
        "    for hook in list(node._pre_hooks.values()):\n"
        "        result = hook(tuple(inputs))\n"
        "        if result is not None:\n"
        "            inputs = list(result)\n",
        "    for hook in list(node._pre_hooks.values()):\n"
        "        result = hook(tuple(inputs))\n"
        "        if result is not None:\n"
        "            inputs = list(result)\n"
        "    inputs = call_tensor_pre_hooks(node, inputs)\n",
        "the issue's hooks in the wrong order",
    ),
    # --- Task 3.5: Function ------------------------------------------------------------------
    _m(
        "3.5",
        "needs_input_grad ignores grad mode",
        "is_grad_enabled() and isinstance(a, Tensor) and a.requires_grad for a in args",
        "isinstance(a, Tensor) and a.requires_grad for a in args",
        "a Function under no_grad still records a node",
    ),
    _m(
        "3.5",
        "node named after the class alone",
        'f"{cls.__name__}Backward"',
        'f"{cls.__name__}"',
        "",
    ),
    # --- Task 3.6: checkpoint, saved-tensor hooks ----------------------------------------------
    _m(
        "3.6",
        "checkpoint recomputes without grad mode",
        "    with enable_grad(), saved_tensors_hooks(pack, lambda _: None):\n",
        "    with no_grad(), saved_tensors_hooks(pack, lambda _: None):\n",
        "the recomputed ops save nothing: backward finds empty holders",
    ),
    _m(
        "3.6",
        "checkpoint keeps its holders' tensors attached to the graph",
        "            holder.append(t.detach())\n",
        "            holder.append(t)\n",
        "harmless for values: an accepted survivor if no case sees it",
    ),
    # --- Task 3.7: nn ----------------------------------------------------------------------------
    _m(
        "3.7",
        "a shared parameter listed twice",
        "            if p is not None and id(p) not in seen:\n",
        "            if p is not None:\n",
        "",
    ),
    _m(
        "3.7",
        "a module's own parameters skipped",
        "        for name, p in self._parameters.items():\n            yield prefix + name, p\n",
        "        yield from ()\n",
        "a module's own Parameters (scale) never listed",
    ),
    # --- Task 3.8: optim ------------------------------------------------------------------------
    _m(
        "3.8",
        "Adam without bias correction",
        "        bias_correction1 = 1 - beta1**step\n"
        "        bias_correction2_sqrt = (1 - beta2**step) ** 0.5\n",
        "        bias_correction1 = 1\n        bias_correction2_sqrt = 1\n",
        "the issue's: the first steps are far too small",
    ),
    _m(
        "3.8",
        "momentum ignores dampening",
        "s(1 - dampening) * grad",
        "grad",
        "",
    ),
    _m(
        "3.8",
        "weight decay ignored",
        "            grad = grad + s(wd) * p._array\n",
        "            pass\n",
        "",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {
    "checkpoint keeps its holders' tensors attached to the graph": (
        "the recomputed tensors keep their own graph alive until backward ends: more memory "
        "for a moment, the same values and the same saved count, so no case can see it"
    ),
}
