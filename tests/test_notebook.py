"""The week-1 notebook runs top to bottom in a real kernel: against the skeleton it shows
failing checks without stopping; with the reference swapped in, every check passes."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "labs/week1_strides/week1.ipynb"


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


def check_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """The rendered HTML of every check(...) cell."""
    out = []
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("check("):
            [html] = [
                o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})
            ]
            out.append(html)
    return out


@pytest.mark.parametrize("impl", ["lab", "reference"])
def test_notebook_runs_top_to_bottom(impl):
    nb = execute(impl)
    checks = check_outputs(nb)
    assert len(checks) >= 12
    for html in checks:
        assert "torchlab-report" in html
        if impl == "reference":
            assert ">fail<" not in html and ">not implemented<" not in html
            assert ">pass<" in html
        else:
            assert ">pass<" not in html and ">not implemented<" in html
