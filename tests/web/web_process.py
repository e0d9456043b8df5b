"""`arena web --db` as a real process, and a Chromium page that records the page's script errors: what the
web tests that drive a browser or read the API over HTTP share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tests.process_lines import Lines
from tests.terminal_signals import sigint_as_at_a_terminal


def serve_web(db: str, cwd, *extra: str) -> tuple[subprocess.Popen, str]:
    """`arena web --db DB` on a free loopback port, in its own process group: (the process, its page's URL)."""
    web = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--db", str(db), *extra, "--listen", "127.0.0.1:0"],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        preexec_fn=sigint_as_at_a_terminal)
    return web, Lines(web).until(r"web view on (http://\S+)").group(1)


def stop(process: subprocess.Popen) -> None:
    """Ctrl-C to the process group, as at a terminal; killed if it has not ended within 20 s."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def new_page(driver, chromium: str, width: int = 1280, height: int = 900):
    """A Chromium page of that size: (the browser, the page, the list its uncaught script errors go to)."""
    browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return browser, page, errors
