"""The two packages stay in step: the R build compiles every core source, and
both carry the same version."""
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parent.parent


def test_r_makevars_compiles_every_core_source():
    text = (REPO / "R" / "src" / "Makevars.in").read_text()
    listed = set(re.findall(r"core/(\w+)\.o", text))
    sources = {p.stem for p in (REPO / "csrc").glob("*.c")}
    assert listed == sources


def test_r_core_is_a_symlink_to_csrc():
    link = REPO / "R" / "src" / "core"
    assert link.is_symlink() and link.resolve() == (REPO / "csrc").resolve()


def test_versions_match():
    desc = (REPO / "R" / "DESCRIPTION").read_text()
    r_version = re.search(r"^Version:\s*(\S+)", desc, re.M).group(1)
    meson = (REPO / "meson.build").read_text()
    py_version = re.search(r"version:\s*'([^']+)'", meson).group(1)
    assert r_version == py_version
