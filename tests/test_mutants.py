"""The cases catch bugs: deliberately broken copies of the reference each fail at least one case.

Each mutant is one realistic learner mistake, made by replacing one piece of the reference's
source. The original text must be found exactly once, so an edit to the reference cannot
silently disarm a mutant.
"""

from pathlib import Path

import pytest

from autograder.report import PASS
from autograder.runner import run_week

REFERENCE = Path(__file__).resolve().parent.parent / "reference_impl" / "strides.py"

MUTANTS = {
    "column-major strides (wrong stride order)": (
        "        strides[d] = strides[d + 1] * max(shape[d + 1], 1)\n    return tuple(strides)",
        "        strides[d] = strides[d + 1] * max(shape[d + 1], 1)\n"
        "    return tuple(reversed(strides))",
    ),
    "a size-0 dim zeroes the strides before it": (
        "strides[d] = strides[d + 1] * max(shape[d + 1], 1)",
        "strides[d] = strides[d + 1] * shape[d + 1]",
    ),
    "off-by-one storage offset in select": (
        "self._storage_offset + index * self._stride[dim])",
        "self._storage_offset + (index + 1) * self._stride[dim])",
    ),
    "off-by-one slice offset": (
        "self._storage_offset + start * self._stride[dim])",
        "self._storage_offset + start * self._stride[dim] + (start > 0))",
    ),
    "slice step does not scale the stride": ("stride[dim] *= step\n", "pass\n"),
    "view copies": (
        "            )\n        return self._alias_with(new_shape, new_stride)\n",
        "            )\n        return self.clone()._alias_with(new_shape, new_stride)\n",
    ),
    "view ignores the chunk rule": (
        "        if view_numel != tensor_numel:\n            return None\n",
        "",
    ),
    "is_contiguous does not skip size-1 dims": (
        "            if size == 1:\n                continue\n            if step != expected:",
        "            if step != expected:",
    ),
    "an empty tensor is not always contiguous": (
        "        if self.numel() == 0:\n            return True\n        expected = 1",
        "        expected = 1",
    ),
    "transpose swaps the sizes but not the strides": (
        "            stride[d0], stride[d1] = stride[d1], stride[d0]\n",
        "",
    ),
    "expand copies the stride instead of using 0": (
        "            size, stride = target, 0\n",
        "            size = target\n",
    ),
    "reshape always copies": (
        "        if new_stride is not None:\n            return self._alias_with(new_shape, n",
        "        if False:\n            return self._alias_with(new_shape, n",
    ),
    "contiguous always copies": (
        "        if self.is_contiguous():\n            return self\n        out = _empty_dense",
        "        out = _empty_dense",
    ),
    "broadcasting aligns from the left": (
        "        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1\n"
        "        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1\n",
        "        size_a = a[i] if i < len(a) else 1\n        size_b = b[i] if i < len(b) else 1\n",
    ),
    "setitem writes into a copy": (
        "        dst = self[index]\n",
        "        dst = self[index].clone()\n",
    ),
    "rows padded to 16 bytes instead of align": (
        "    per_row = align // dtype.itemsize",
        "    per_row = 16 // dtype.itemsize",
    ),
}


def mutate(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, f"mutant target not found exactly once: {old!r}"
    return source.replace(old, new)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_mutant_fails_at_least_one_case(name, tmp_path):
    old, new = MUTANTS[name]
    (tmp_path / "strides.py").write_text(mutate(REFERENCE.read_text(), old, new))
    report = run_week("week1", str(tmp_path))
    caught = [r for r in report.results if r.status != PASS]
    assert caught, f"no case catches the mutant: {name}"
    assert not report.problems, report.problems  # the mutant imports; cases do the catching
