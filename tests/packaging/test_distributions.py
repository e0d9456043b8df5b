"""The two distributions: the SDK alone for bot authors, the arena with the sample bots inside.

Built from this checkout with pip (no network: --no-build-isolation uses this environment's setuptools).
"""

from __future__ import annotations

import email
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
         str(ROOT / "sdk"), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    found = {path.name.split("-")[0]: path for path in out.glob("*.whl")}
    assert set(found) == {"mau_arena", "mau_arena_sdk"}, found
    return found


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def _top_level(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name.split("/")[0] for name in archive.namelist() if ".dist-info/" not in name}


def test_the_sdk_wheel_holds_only_the_sdk_and_needs_only_grpcio_and_protobuf(wheels):
    wheel = wheels["mau_arena_sdk"]
    assert _top_level(wheel) == {"mau_arena_sdk"}
    requires = {req.split(">")[0].split("<")[0].split("=")[0].strip() for req in _metadata(wheel).get_all("Requires-Dist")}
    assert requires == {"grpcio", "protobuf"}
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "mau_arena_sdk/wire/arena_pb2.py" in names and any(n.endswith("licenses/LICENSE") for n in names)


def test_the_arena_wheel_carries_the_sample_bots_and_depends_on_the_sdk(wheels):
    wheel = wheels["mau_arena"]
    assert _top_level(wheel) == {"arena", "mau_arena_samples"}  # no copy of the SDK, no stray `sdk` package
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {f"mau_arena_samples/{bot}.py" for bot in ("random_bot", "greedy_bot", "tactician", "searcher", "pimc", "inference",
                                                         "play_model", "posterior", "second_step")} <= names
    assert "arena/web/static/index.html" in names or any(n.startswith("arena/web/static/") for n in names)
    requires = _metadata(wheel).get_all("Requires-Dist")
    run_time = [req for req in requires if "extra ==" not in req]
    assert any(req.startswith("mau-arena-sdk") for req in run_time)
    assert not any(req.startswith("grpcio-tools") for req in run_time)  # a development tool, in the dev extra


def test_the_listed_packages_are_every_package_under_arena():
    """pyproject.toml lists the packages (it maps sample_bots/ to mau_arena_samples); a new one must be added."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "arena").rglob("__init__.py")
    }
    assert listed == on_disk | {"mau_arena_samples"}


def test_the_sdk_declares_the_version_it_sends_in_its_hello():
    from importlib.metadata import version

    from mau_arena_sdk import SDK_VERSION

    assert version("mau-arena-sdk") == SDK_VERSION
    declared = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())["project"]["version"]
    assert declared == SDK_VERSION


def test_the_demo_runs_from_the_installed_wheels_outside_the_checkout(wheels, tmp_path):
    """pip install of the two wheels, then `arena serve --demo`, in a folder with no repository.

    The fresh environment gets its third-party packages (grpcio, trio...) from this one through a .pth line
    (no network); the arena, the SDK and the sample bots come only from the wheels.
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         str(wheels["mau_arena_sdk"]), str(wheels["mau_arena"])],
        check=True, capture_output=True, timeout=300,
    )
    where = tmp_path / "elsewhere"
    where.mkdir()
    located = subprocess.run(
        [str(python), "-c", "import arena, mau_arena_sdk; from arena.samples import samples_dir; "
         "print(arena.__file__); print(mau_arena_sdk.__file__); print(samples_dir())"],
        cwd=where, check=True, capture_output=True, text=True,
    ).stdout.split()
    assert all(Path(path).is_relative_to(site) for path in located), located  # none from the checkout
    result = subprocess.run(
        [str(venv / "bin" / "arena"), "serve", "--demo", "--port", "0", "--game", "prsi", "--max-games", "2",
         "--db", "demo.db", "--replays", "replays", "--plain"],
        cwd=where, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stopped (--max-games 2 reached): 2 games finished" in result.stdout, result.stdout
