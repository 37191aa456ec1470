"""Each week's notebook runs top to bottom in a real kernel: against the skeleton it shows
failing checks without stopping; with the reference swapped in, every check passes. Week 1's
progress list, side-by-side drawings and chunk-rule pictures render on both; so do week 2's
progress list, comparisons, and pictures of dispatch tables and kernel chains."""

import os
import re
from pathlib import Path

import nbformat
import pytest
import torch
from nbclient import NotebookClient

from autograder.authoring import reference_tasks
from autograder.notebook import side_by_side
from autograder.notebook.viz import show_view_steps, view_plan
from autograder.weeks import WEEKS, get_week

ROOT = Path(__file__).resolve().parent.parent


def execute(impl: str, notebook: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(notebook, as_version=4)
    os.environ["TORCHLAB_IMPL"] = impl  # the kernel inherits it
    try:
        client = NotebookClient(
            nb,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": notebook.parent}},
        )
        client.execute()  # raises CellExecutionError if any cell raises
    finally:
        del os.environ["TORCHLAB_IMPL"]
    return nb


_RUNS: dict[tuple[str, str], nbformat.NotebookNode] = {}


def notebook_of(week: str) -> Path:
    return get_week(week).lab_dir(ROOT) / f"{week}.ipynb"


def run(week: str, impl: str) -> nbformat.NotebookNode:
    """The week's notebook executed on ``impl``, once per test session."""
    if (week, impl) not in _RUNS:
        _RUNS[week, impl] = execute(impl, notebook_of(week))
    return _RUNS[week, impl]


@pytest.fixture(scope="module", params=["lab", "reference"])
def executed(request):
    return request.param, run("week1", request.param)


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


@pytest.mark.parametrize("impl", ["lab", "reference"])
@pytest.mark.parametrize("week", list(WEEKS))
def test_notebook_runs_top_to_bottom(week, impl):
    """Every task has a check cell; on the skeleton nothing passes, on the reference all does."""
    nb = run(week, impl)
    sources = " ".join(c.source for c in nb.cells if c.cell_type == "code")
    for task in reference_tasks(WEEKS[week]):
        assert f'"{task}"' in sources, f"no check cell for Task {task}"
    checks = check_outputs(nb)
    assert len(checks) >= 2
    for html in checks:
        assert "torchlab-report" in html
        if impl == "reference":
            assert ">fail<" not in html and ">not implemented<" not in html
            assert ">pass<" in html
        else:
            assert ">pass<" not in html and ">not implemented<" in html


@pytest.mark.parametrize("impl", ["lab", "reference"])
@pytest.mark.parametrize("week", list(WEEKS))
def test_progress_list_shows_every_task(week, impl):
    nb = run(week, impl)
    tasks = reference_tasks(WEEKS[week])
    first = next(c for c in nb.cells if c.cell_type == "code" and "progress(" in c.source)
    assert nb.cells.index(first) < 5, "the progress list belongs at the top"
    lists = outputs_with(nb, "torchlab-progress")
    assert len(lists) == 2  # at the top and at the end
    for html in lists:
        for task in tasks:
            assert f"<b>Task {task}</b>" in html
        done, todo = html.count("torchlab-done"), html.count("torchlab-todo")
        n = len(tasks)
        if impl == "reference":
            assert (done, todo) == (n, 0) and f"{n} of {n} tasks done" in html
        else:
            assert (done, todo) == (0, n) and f"0 of {n} tasks done" in html
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


@pytest.mark.parametrize("impl", ["lab", "reference"])
def test_week5_joined_up_with_week4c(impl):
    """Section 6 lends week 4c's allocator to labdev: on the reference, a table of training
    steps and every statistic equal to week 4's replay; on the skeletons, a hint naming the
    week-4c task to write."""
    nb = run("week5", impl)
    by_id = {c.get("id"): c for c in nb.cells}
    steps, compared = html_of(by_id["w5-joined-1"]), html_of(by_id["w5-joined-3"])
    if impl == "reference":
        [table] = steps
        assert "torchlab-joined" in table and table.count("<tr>") == 1 + 5
        [same] = compared
        assert "statistics are equal" in same and "differ" not in same
    else:
        [hint] = steps
        assert "torchlab-hint" in hint and "Task 4.7" in hint
        [hint] = compared
        assert "torchlab-hint" in hint


@pytest.mark.parametrize("week", list(WEEKS))
def test_notebook_names_nothing_a_student_copy_lacks(week):
    notebook = notebook_of(week)
    nb = nbformat.read(notebook, as_version=4)
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


# ---- week 2 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["lab", "reference"])
def executed2(request):
    return request.param, run("week2", request.param)


def verdicts(nb: nbformat.NotebookNode, marker: str) -> list[str]:
    return [re.search(r"data-verdict='([a-z-]+)'", h).group(1) for h in outputs_with(nb, marker)]


def test_week2_comparisons_tables_and_chains(executed2):
    """Torch and the engine side by side: the same on the reference; "not implemented yet" on
    the skeleton, never an error."""
    impl, nb = executed2
    expected = "same" if impl == "reference" else "not-implemented"
    for marker, least in (("torchlab-compare", 3), ("torchlab-tables", 3), ("torchlab-chains", 5)):
        found = verdicts(nb, marker)
        assert len(found) >= least, marker
        assert set(found) == {expected}, (marker, found)
    for html in outputs_with(nb, "torchlab-chains") + outputs_with(nb, "torchlab-tables"):
        assert "<svg" in html  # torch's side is always drawn
        if impl == "lab":
            assert "not implemented yet" in html


def test_week2_torch_pictures(executed2):
    """torch's own table of aten::add.Tensor and one call's chain, drawn by dot."""
    _, nb = executed2
    tables = [h for h in outputs_with(nb, "torchlab-dispatch-table") if "aten::add.Tensor" in h]
    assert len(tables) == 1 and "<svg" in tables[0]
    for words in ("VariableType_2.cpp", "RegisterCPU_0.cpp", "autograd kernel"):
        assert words in tables[0]
    chains = outputs_with(nb, "torchlab-kernel-chain")
    assert "<svg" in chains[0]
    assert [m for m in ("Autograd", "ADInplaceOrView", "CPU") if m in chains[0]]


def test_week2_your_engine_drawn(executed2):
    """Section 6 draws the engine alone: pictures on the reference, a line on the skeleton."""
    impl, nb = executed2
    cells = [c for c in nb.cells if c.cell_type == "code" and 'mine("week2")' in c.source]
    drawn = [h for c in cells[-2:] for h in html_of(c)]
    assert len(drawn) == 2
    for html in drawn:
        if impl == "reference":
            assert "<svg" in html and "yours" in html
        else:
            assert "not implemented yet: Library.define (Task 2.3)" in html


def test_pictures_without_dot_are_tables(monkeypatch):
    """No ``dot`` on the PATH, or a ``dot`` that hangs: a plain table and a one-line note."""
    import subprocess

    from autograder.notebook import viz

    monkeypatch.setattr("shutil.which", lambda name: None)
    table = viz.draw_dispatch_table(
        {"CPU": "kernel", "ADInplaceOrView": "fallthrough backend fallback"}
    )
    chain = viz.draw_kernel_chain(["AutogradCPU", ("CPU", "RegisterCPU_0.cpp")], "aten::add")
    for html in (table.text, chain.text):
        assert "<svg" not in html and "<table" in html and "is not available here" in html
    assert "fallthrough backend fallback" in table.text and "RegisterCPU_0.cpp" in chain.text
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/dot")

    def hang(*args, **kwargs):
        raise subprocess.TimeoutExpired("dot", 10)

    monkeypatch.setattr(subprocess, "run", hang)
    assert "is not available here" in viz.draw_kernel_chain(["CPU"]).text


def test_pictures_never_raise():
    from autograder.notebook import viz

    assert "cannot be drawn" in viz.draw_kernel_chain(None).text
    assert "cannot be drawn" in viz.draw_dispatch_table(42).text
    text = torch._C._dispatch_dump_table("aten::add.Tensor")
    parsed = viz.parse_dispatch_table(text)
    assert parsed["CPU"].kind == "kernel" and not parsed["CPU"].fallthrough
    assert (
        parsed["ADInplaceOrView"].fallthrough
        and parsed["ADInplaceOrView"].kind == "backend fallback"
    )
    html = viz.draw_dispatch_table(text, "aten::add.Tensor", keys=["AutogradCPU", "Nope"]).text
    assert "autograd kernel" in html and "missing" in html


def test_table_side_by_side_names_what_differs(monkeypatch):
    import autograder.notebook as nbk
    from autograder.notebook.viz import TableEntry

    engine = object()
    monkeypatch.setattr(nbk, "mine", lambda week, impl=None: engine)

    def fake_table(lib, registrations):
        kind = "autograd kernel" if lib is not engine else "backend fallback"
        return {"AutogradCPU": TableEntry("AutogradCPU", kind), "CPU": TableEntry("CPU", "kernel")}

    monkeypatch.setattr(nbk, "demo_table", fake_table)
    html = nbk.table_side_by_side(("CPU", "Autograd"), keys=("AutogradCPU", "CPU"))._repr_html_()
    assert "data-verdict='differ'" in html
    assert "AutogradCPU: torch autograd kernel, yours backend fallback" in html
    assert "; CPU:" not in html and "Different: CPU" not in html


# ---- week 6 ----------------------------------------------------------------------------------


def test_week6_graph_tables_say_what_differs_and_never_raise():
    """Two FX graphs drawn side by side: the verdict names the first difference; an unwritten
    task (even one wrapped by Dynamo in another error) is "not implemented yet"; anything
    that is not a graph, or that raises, is a line, never an exception."""
    import operator

    import torch.fx

    from autograder.notebook.compile_viz import compare_table, draw_graph, graphs_side_by_side

    def graph(*targets):
        g = torch.fx.Graph()
        node = g.placeholder("L_x_")
        for target in targets:
            node = g.create_node("call_function", target, (node, 2))
        g.output((node,))
        return torch.fx.GraphModule(torch.nn.Module(), g)

    drawn = draw_graph(graph(operator.mul), "one").text
    assert "torchlab-graphs" in drawn and "operator.mul" in drawn and "L_x_" in drawn
    same = graphs_side_by_side([graph(operator.mul)], lambda: [graph(operator.mul)])._repr_html_()
    assert "data-verdict='same'" in same
    other = graphs_side_by_side(graph(operator.mul), graph(operator.add))._repr_html_()
    assert "data-verdict='differ'" in other and "Graph 1 differs" in other
    fewer = graphs_side_by_side([graph(operator.mul)] * 2, [graph(operator.mul)])._repr_html_()
    assert "Different number of graphs: torch 2, yours 1" in fewer

    def wrapped():
        try:
            raise NotImplementedError("GraphRecorder.__call__ (Task 6.1)")
        except NotImplementedError as exc:
            raise RuntimeError("backend='recorder' raised") from exc

    waiting = graphs_side_by_side(graph(operator.mul), wrapped)._repr_html_()
    assert "data-verdict='not-implemented'" in waiting and "Task 6.1" in waiting
    assert "cannot be drawn" in graphs_side_by_side(42, graph(operator.mul)).text
    assert "cannot be drawn" in draw_graph(object()).text
    table = compare_table({"a": (1, lambda: 1), "b": (True, lambda: 1 / 0)}).text
    assert "data-verdict='differ'" in table and "ZeroDivisionError" in table
    assert "cannot be shown" in compare_table(None).text
