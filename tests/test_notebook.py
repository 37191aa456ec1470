"""The week-1 notebook runs top to bottom in a real kernel: against the skeleton it shows
failing checks without stopping; with the reference swapped in, every check passes. Its
progress list, side-by-side drawings and chunk-rule pictures render on both."""

import os
import re
from pathlib import Path

import nbformat
import pytest
import torch
from nbclient import NotebookClient

from autograder.notebook import side_by_side
from autograder.notebook.viz import show_view_steps, view_plan

NOTEBOOK = Path(__file__).resolve().parent.parent / "labs/week1_strides/week1.ipynb"
TASKS = [f"1.{i}" for i in range(1, 14)]


def execute(impl: str) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    os.environ["TORCHLAB_IMPL"] = impl  # the kernel inherits it
    try:
        client = NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": NOTEBOOK.parent}},
        )
        client.execute()  # raises CellExecutionError if any cell raises
    finally:
        del os.environ["TORCHLAB_IMPL"]
    return nb


@pytest.fixture(scope="module", params=["lab", "reference"])
def executed(request):
    return request.param, execute(request.param)


def html_of(cell: nbformat.NotebookNode) -> list[str]:
    return [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]


def check_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """The rendered HTML of every check(...) cell."""
    out = []
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("check("):
            [html] = html_of(cell)
            out.append(html)
    return out


def outputs_with(nb: nbformat.NotebookNode, marker: str) -> list[str]:
    """Every HTML output of the notebook that holds ``marker`` (a CSS class)."""
    return [h for c in nb.cells if c.cell_type == "code" for h in html_of(c) if marker in h]


def test_notebook_runs_top_to_bottom(executed):
    impl, nb = executed
    checks = check_outputs(nb)
    assert len(checks) >= 12
    for html in checks:
        assert "torchlab-report" in html
        if impl == "reference":
            assert ">fail<" not in html and ">not implemented<" not in html
            assert ">pass<" in html
        else:
            assert ">pass<" not in html and ">not implemented<" in html


def test_progress_list_shows_every_task(executed):
    impl, nb = executed
    first = next(c for c in nb.cells if c.cell_type == "code" and "progress(" in c.source)
    assert nb.cells.index(first) < 5, "the progress list belongs at the top"
    lists = outputs_with(nb, "torchlab-progress")
    assert len(lists) == 2  # at the top and at the end
    for html in lists:
        for task in TASKS:
            assert f"<b>Task {task}</b>" in html
        done, todo = html.count("torchlab-done"), html.count("torchlab-todo")
        if impl == "reference":
            assert (done, todo) == (13, 0) and "13 of 13 tasks done" in html
        else:
            assert (done, todo) == (0, 13) and "0 of 13 tasks done" in html
            assert "not implemented yet" in html


def test_side_by_side_drawings(executed):
    impl, nb = executed
    drawings = outputs_with(nb, "torchlab-side-by-side")
    assert len(drawings) >= 13  # one after each task
    for html in drawings:
        assert html.count("torchlab-storage") >= (2 if impl == "reference" else 1)
        verdict = re.search(r"data-verdict='([a-z-]+)'", html).group(1)
        if impl == "reference":
            assert verdict == "same", html
            assert "Different" not in html
        else:
            assert verdict == "not-implemented", html
            assert "not implemented yet" in html


def test_chunk_rule_pictures(executed):
    _, nb = executed
    steps = outputs_with(nb, "torchlab-view-steps")
    assert len(steps) == 3
    assert "view(6, 4) works: stride (8, 1)" in steps[0]
    assert "view(2, 12) is impossible" in steps[1]
    assert "view(6, 4) is impossible" in steps[2]


def test_notebook_names_nothing_a_student_copy_lacks():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    for missing in ("reference_impl", "--impl reference", "tests/", "samples/"):
        assert missing not in text
    for cell in nb.cells:
        assert cell.cell_type == "markdown" or not cell.outputs


LAYOUTS = [
    ((2, 3, 4), (12, 4, 1)),  # contiguous
    ((2, 3, 4), (24, 8, 1)),  # rows cut short: two chunks
    ((3, 2, 4), (4, 12, 1)),  # three chunks
    ((4, 3), (1, 4)),  # a transpose
    ((3, 1, 4), (4, 99, 1)),  # a size-1 dim with an odd stride
    ((3, 4), (0, 1)),  # expanded
    ((2, 1), (5, 7)),  # a chunk of one element
    ((2, 0, 3), (7, 5, 1)),  # empty
    ((), ()),  # 0-d
]
SHAPES = [
    (24,),
    (6, 4),
    (2, 12),
    (3, 8),
    (3, 2, 2, 2),
    (12,),
    (2, 2, 3),
    (1, 3, 1, 4, 1),
    (-1,),
    (12, 1),
    (3, 4),
    (0, 6),
    (1,),
    (2, 3, 4),
    (4, 6),
    (5,),
]


@pytest.mark.parametrize("shape,stride", LAYOUTS)
def test_view_plan_agrees_with_torch(shape, stride):
    """The chunk-rule picture never tells a learner something torch does not do."""
    numel = 1
    for s in shape:
        numel *= s
    extent = 1 + sum((s - 1) * st for s, st in zip(shape, stride, strict=True)) if numel else 0
    t = torch.empty(max(extent, 1)).as_strided(shape, stride)
    for new_shape in SHAPES:
        try:
            expected = tuple(t.view(new_shape).stride())
        except RuntimeError:
            expected = None
        assert view_plan(shape, stride, new_shape).new_stride == expected, new_shape
        assert "torchlab-view-steps" in show_view_steps(t, new_shape)._repr_html_()


def test_side_by_side_says_what_differs(tmp_path, monkeypatch):
    """A wrong stride is named in words; a broken file is a line, never an exception."""
    lab = tmp_path / "strides.py"
    lab.write_text(
        "class T:\n"
        "    shape = (3, 4)\n"
        "    dtype = 'int64'\n"
        "    def stride(self): return (1, 3)\n"
        "    def storage_offset(self): return 0\n"
        "    def element_size(self): return 8\n"
        "    def untyped_storage(self):\n"
        "        class S:\n"
        "            def nbytes(self): return 96\n"
        "        return S()\n"
        "    def is_contiguous(self): return False\n"
        "    def tolist(self): raise NotImplementedError('element_offsets (Task 1.2)')\n"
        "int64 = 'int64'\n"
        "def zeros(*size, dtype=None): return T()\n"
    )
    monkeypatch.chdir(tmp_path)
    html = side_by_side(lambda lib: lib.zeros(3, 4, dtype=lib.int64), "zeros")._repr_html_()
    assert "data-verdict='differ'" in html
    assert "Different stride: torch (4, 1), yours (1, 3)" in html
    assert "Different contiguous: torch True, yours False" in html
    assert "values: not compared yet" in html
    lab.write_text("def broken(:\n")
    html = side_by_side(lambda lib: lib.zeros(3, 4), "zeros")._repr_html_()
    assert "could not be imported: SyntaxError" in html
