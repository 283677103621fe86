"""The two packages stay in step: the R build compiles every core source, and
both carry the same version."""
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def core_sources():
    return {p.relative_to(REPO / "csrc").as_posix() for p in (REPO / "csrc").rglob("*.c")}


def test_meson_compiles_every_core_source():
    listed = set(re.findall(r"'csrc/([\w/]+\.c)'", (REPO / "meson.build").read_text()))
    assert listed == core_sources()


@pytest.mark.skipif(shutil.which("R") is None, reason="R is not installed")
def test_r_configure_compiles_every_core_source(tmp_path):
    pkg = tmp_path / "R"
    shutil.copytree(REPO / "R", pkg, symlinks=False)
    subprocess.run(["sh", "configure"], cwd=pkg, check=True, capture_output=True)
    makevars = (pkg / "src" / "Makevars").read_text()
    objects = set(re.search(r"^CORE_OBJECTS =(.*)$", makevars, re.M).group(1).split())
    assert objects == {"core-" + s.replace("/", "-")[:-2] + ".o" for s in core_sources()}
    for src in core_sources():
        assert "\t$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c core/%s -o $@" % src in makevars


@pytest.mark.skipif(shutil.which("R") is None, reason="R is not installed")
def test_building_r_in_place_leaves_nothing_in_csrc(tmp_path):
    """R CMD INSTALL on the repository's R/ compiles the core through the
    src/core symlink; its objects must land in R/src, not in csrc/."""
    before = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "csrc").rglob("*"))
    env = dict(os.environ, MAKEFLAGS="-j2")
    out = subprocess.run(["R", "CMD", "INSTALL", "--clean", "--library=%s" % tmp_path,
                          str(REPO / "R")], env=env, capture_output=True, text=True)
    after = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "csrc").rglob("*"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert after == before
    assert not list((REPO / "R" / "src").glob("*.o"))


def test_r_core_is_a_symlink_to_csrc():
    link = REPO / "R" / "src" / "core"
    assert link.is_symlink() and link.resolve() == (REPO / "csrc").resolve()


def test_versions_match():
    desc = (REPO / "R" / "DESCRIPTION").read_text()
    r_version = re.search(r"^Version:\s*(\S+)", desc, re.M).group(1)
    meson = (REPO / "meson.build").read_text()
    py_version = re.search(r"version:\s*'([^']+)'", meson).group(1)
    assert r_version == py_version


def test_the_design_page_names_files_and_modules_that_exist(tmp_path):
    # docs/design.md as it is passes; a module or a file that is not there fails
    check = [sys.executable, str(REPO / "tools" / "check_design_names.py")]
    assert subprocess.run(check, capture_output=True, text=True).returncode == 0
    page = tmp_path / "design.md"
    page.write_text("The builder (`fit/builder.c`, `io.c`, `traverse.*`) and `_native`; "
                    "the old `_core` and `fit/gone.c`.\n")
    out = subprocess.run(check + [str(page)], capture_output=True, text=True)
    assert out.returncode == 1 and "_core, fit/gone.c" in out.stdout


def test_the_benchmarks_page_is_short_and_its_links_and_commands_exist():
    # BENCHMARKS.md is the page a user reads: contents first, about 300 lines at
    # most; the experiment records it links to and the scripts its commands run
    # are files of the repository
    page = (REPO / "BENCHMARKS.md").read_text()
    assert len(page.splitlines()) <= 300
    assert page.index("## Contents") < page.index("## Fit and prediction time")
    links = re.findall(r"\]\(([^)#]+)\)", page)
    assert any(link.startswith("benchmarks/notes/") for link in links)
    missing = [link for link in links if not link.startswith("http") and not (REPO / link).exists()]
    assert not missing, missing
    scripts = re.findall(r"python (benchmarks/\S+\.py)", page)
    assert scripts and not [s for s in scripts if not (REPO / s).is_file()]
    # every script of benchmarks/ sits in one of its folders, none at the top
    assert not list((REPO / "benchmarks").glob("*.py")) and not list((REPO / "benchmarks").glob("*.R"))


def run_layer_check(directory):
    return subprocess.run([sys.executable, str(REPO / "tools" / "check_py_layers.py"), str(directory)],
                          capture_output=True, text=True)


def test_python_imports_go_one_way(tmp_path):
    # The package as it is passes; an upward import, a C call outside
    # _native, an import hidden in a function, and a module in no layer each
    # fail the check.
    assert run_layer_check(REPO / "python" / "sporf").returncode == 0
    cases = {
        "_native.py": ("from ._forest import _BaseForest\n", "imports go to lower layers only"),
        "_forest.py": ("from ._sporf_cffi import lib\n", "only _native calls the C library"),
        "_params.py": ("def late():\n    from . import _io\n", "inside a function"),
        "_extra.py": ("X = 1\n", "not in any layer"),
    }
    for name, (planted, message) in cases.items():
        pkg = tmp_path / name.replace(".py", "") / "sporf"
        shutil.copytree(REPO / "python" / "sporf", pkg)
        path = pkg / name
        path.write_text((path.read_text() if path.exists() else "") + "\n" + planted)
        got = run_layer_check(pkg)
        assert got.returncode == 1 and message in got.stdout, (name, got.stdout)


def test_the_core_includes_go_one_way_inside_a_layer_and_functions_stay_short(tmp_path):
    # The core as it is passes; a file pair that includes one including it
    # back, a pair that names what a pair including its header defines (that
    # include then runs up), and a function of more than 100 lines, each
    # fail the check.
    check = [sys.executable, str(REPO / "tools" / "check_layers.py")]
    run = lambda csrc: subprocess.run(check, capture_output=True, text=True,
                                      env=dict(os.environ, SPORF_CHECK_CSRC=str(csrc)))
    assert run(REPO / "csrc").returncode == 0
    cycle = tmp_path / "cycle"
    shutil.copytree(REPO / "csrc", cycle)
    rows = cycle / "fit" / "rows.c"
    rows.write_text('#include "fit/builder.h"\n' + rows.read_text())
    got = run(cycle)
    assert got.returncode == 1 and "include cycle inside a layer" in got.stdout and "fit/rows" in got.stdout
    upward = tmp_path / "upward"
    shutil.copytree(REPO / "csrc", upward)
    task = upward / "fit" / "task.c"
    task.write_text(task.read_text() + "\nconst sporf_task *sporf_task_default(void) { return &sporf_task_survival; }\n")
    got = run(upward)
    assert got.returncode == 1 and "an include runs up inside a layer" in got.stdout
    assert "fit/task names sporf_task_survival" in got.stdout and 'includes "fit/task.h"' in got.stdout
    long = tmp_path / "long"
    shutil.copytree(REPO / "csrc", long)
    body = "".join("    x += %d;\n" % i for i in range(101))
    draft = long / "fit" / "draft.c"
    draft.write_text(draft.read_text() + "\nint sporf_draft_long(int x)\n{\n" + body + "    return x;\n}\n")
    got = run(long)
    assert got.returncode == 1 and "fit/draft.c:sporf_draft_long is 104 lines" in got.stdout


@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="the `build` package is not installed")
@pytest.mark.skipif("ASAN_OPTIONS" in os.environ, reason="the sanitized run checks the core, not the packaging")
def test_the_sdist_builds_a_wheel_that_installs_and_fits(tmp_path):
    # What `make dist` ships: the sdist holds everything a wheel needs (the
    # core's sources included), and that wheel, installed on its own, fits.
    import tarfile

    run = lambda *cmd, **kw: subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)
    build = [sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check"]
    run(*build, "--sdist", "--outdir", str(tmp_path / "dist"), str(REPO))
    sdist, = (tmp_path / "dist").glob("sporf-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path / "src", filter="data")
    src, = (tmp_path / "src").iterdir()
    run(*build, "--wheel", "--outdir", str(tmp_path / "dist"), str(src))
    wheel, = (tmp_path / "dist").glob("sporf-*.whl")
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(tmp_path / "site"),
        str(wheel))
    smoke = ("import sporf, numpy as np; from sporf.datasets import make_trunk; "
             "X, y = make_trunk(200, 5, random_state=0); "
             "m = sporf.SPORFClassifier(n_estimators=10, random_state=0).fit(X, y); "
             "assert (m.predict(X) == y).mean() > 0.9; print(sporf.__file__)")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = run(sys.executable, "-c", smoke, env=env, cwd=str(tmp_path)).stdout
    assert out.strip().startswith(str(tmp_path / "site"))
