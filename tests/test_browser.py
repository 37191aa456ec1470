"""The notebook as a learner meets it: JupyterLab in a real browser.

A JupyterLab server starts on loopback with a token, headless Chromium (Debian's ``chromium``,
driven by Selenium through Debian's ``chromium-driver``) opens week 1's notebook, runs its
imports cell and the check cell of Task 1.4, and the rendered pass/fail table must appear with
a row per case. A screenshot of the page is saved (its path is printed). The server works on a
copy of the notebook, so autosave never touches labs/.

``scripts/setup.sh`` installs Chromium where it runs as root (CI does); the test skips, saying
so, only where Chromium and its driver are not installed.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(tempfile.gettempdir()) / "torchlab-browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="Chromium is not installed: `apt-get install chromium chromium-driver` (as root; "
    "scripts/setup.sh does it) runs this test",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_lab(
    base: str, token: str, server: subprocess.Popen, seconds: float, log: Path, failure: str
) -> None:
    """Wait until the JupyterLab at ``base`` answers its status API, or fail the test with
    ``failure`` and the server's log once it exits or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                json.loads(r.read())
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{failure}:\n{log.read_text()}")
            time.sleep(0.5)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A JupyterLab server on loopback over a copy of the week-1 notebooks: (base URL, token)."""
    home = tmp_path_factory.mktemp("jupyter")
    root = home / "labs"
    (root / "week1_strides").mkdir(parents=True)
    # The notebooks and the learner's file beside them: check() tests the strides.py in the
    # notebook's folder, here the skeleton.
    for name in ("week1.ipynb", "week1.zh.ipynb", "strides.py"):
        shutil.copy(ROOT / "labs" / "week1_strides" / name, root / "week1_strides" / name)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
    )
    log = open(home / "server.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",  # CI runs as root
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--ServerApp.root_dir={root}",
            f"--IdentityProvider.token={token}",
            "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to run one cell
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_lab(base, token, server, 60, home / "server.log", "JupyterLab did not start")
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium()


def chromium() -> Iterator[object]:
    """Headless Debian Chromium, driven by Selenium: yields the driver, then quits it
    (tests/test_images.py drives the student image's JupyterLab with it too)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # Chromium's own sandbox needs user namespaces a container may refuse
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_script_timeout(180)
    try:
        yield driver
    finally:
        driver.quit()


# Runs the cells whose ids are given, in order, in the open notebook, and waits for each to
# finish: JupyterLab's own command, on the notebook the page opened.
RUN_CELLS = """
const [ids, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const app = window.jupyterapp;
  await app.restored;
  let panel = null;
  for (let i = 0; i < 600 && !(panel && panel.content && panel.sessionContext); i++) {
    panel = app.shell.currentWidget;
    await new Promise(r => setTimeout(r, 100));
  }
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.activateById(panel.id);  // the commands act on the active notebook
  for (let i = 0; i < 600; i++) {
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (kernel && kernel.status === 'idle') break;
    await new Promise(r => setTimeout(r, 100));
  }
  const notebook = panel.content;
  for (const id of ids) {
    const index = notebook.widgets.findIndex(c => c.model.id === id);
    if (index < 0) throw new Error('no cell ' + id);
    notebook.activeCellIndex = index;
    await app.commands.execute('notebook:run-cell');
    const cell = notebook.widgets[index];
    for (let i = 0; i < 1200 && cell.model.executionCount === null; i++) {
      await new Promise(r => setTimeout(r, 100));
    }
  }
  done('ran');
})().catch(e => done('error: ' + e));
"""


def _open_and_check(
    browser,
    lab,
    notebook: str,
    name: str,
    folder: str = "week1_strides",
    source: Path = ROOT / "labs" / "week1_strides",
) -> list[list[str]]:
    """Open ``notebook`` (in ``folder`` under the server's root; its file in ``source``), run
    its imports cell and Task 1.4's check cell, and return the rendered report table's rows
    (a screenshot is saved as ``name``.png)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, token = lab
    nb = json.loads((source / "week1.ipynb").read_text())
    check_cell = next(
        c["id"] for c in nb["cells"] if "".join(c["source"]).strip() == 'check("week1", "1.4")'
    )
    # A workspace of its own: JupyterLab would otherwise reopen the tabs of the last visit.
    browser.get(f"{base}/lab/workspaces/{name}/tree/{folder}/{notebook}?token={token}")
    WebDriverWait(browser, 90).until(lambda d: d.execute_script("return !!window.jupyterapp"))
    assert browser.execute_async_script(RUN_CELLS, ["imports", check_cell]) == "ran"
    # The report in the notebook this page shows (an earlier notebook's tab holds one too).
    table = WebDriverWait(browser, 120).until(
        lambda d: d.execute_script(
            "return window.jupyterapp.shell.currentWidget.node"
            ".querySelector('.jp-OutputArea .torchlab-report')"
        )
    )
    browser.execute_script("arguments[0].scrollIntoView()", table)
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"{name}.png"
    browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    return [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in table.find_elements(By.CSS_SELECTOR, "tr")
        if tr.find_elements(By.TAG_NAME, "td")
    ]


def test_week1_check_cell_renders_its_table(browser, lab) -> None:
    from autograder.report import task_span
    from autograder.runner import run_week
    from autograder.weeks import WEEKS

    rows = _open_and_check(browser, lab, "week1.ipynb", "week1_check")
    # The page shows the report the runner gives for the same file, case by case: the
    # learner's copy is the skeleton, so each case says which exercise is missing.
    report = run_week(WEEKS["week1"], str(ROOT / "labs" / "week1_strides"), ["1.4"])
    want = [
        [r.name, task_span(r.tasks), f"{r.earned}/{r.points}", r.status] for r in report.results
    ]
    assert [row[:4] for row in rows] == want
    for case, _, _, result, details in rows:
        assert result == "not implemented", f"{case}: {result} {details}"
        assert "(Task 1." in details, f"{case}: the message does not name the exercise: {details}"


def test_chinese_notebook_runs_the_same_check(browser, lab) -> None:
    if not (ROOT / "labs" / "week1_strides" / "week1.zh.ipynb").exists():
        pytest.skip("week1.zh.ipynb is not generated yet (torchlab release --write)")
    rows = _open_and_check(browser, lab, "week1.zh.ipynb", "week1_zh_check")
    english = _open_and_check(browser, lab, "week1.ipynb", "week1_check_again")
    assert [r[:4] for r in rows] == [r[:4] for r in english]
