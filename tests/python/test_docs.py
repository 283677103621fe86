"""The API reference: every public class and function of the Python package
has a numpydoc docstring (Parameters or Attributes, Returns where it returns)
with an Examples section, and every example runs and prints what it shows."""
import doctest
import importlib
import inspect
import os
import pathlib

import pytest

import sporf

MODULES = ["sporf._forest", "sporf._morf", "sporf._urerf", "sporf._load", "sporf._merge", "sporf.datasets",
           "sporf.metrics", "sporf.distributed"]


def _public():
    out = {}
    spaces = [(sporf, sporf.__all__)]
    for name in ("datasets", "metrics", "distributed"):
        mod = importlib.import_module("sporf." + name)
        spaces.append((mod, getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])))
    for mod, names in spaces:
        for name in names:
            obj = getattr(mod, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", "").startswith("sporf"):
                out["%s.%s" % (mod.__name__, name)] = obj
    return out


@pytest.mark.parametrize("name, obj", sorted(_public().items()), ids=sorted(_public()))
def test_public_objects_have_numpydoc_with_an_example(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------\n" in doc and ">>>" in doc.split("Examples\n--------\n", 1)[1], \
        "%s has no Examples section" % name
    if inspect.isfunction(obj):
        if inspect.signature(obj).parameters:
            assert "Parameters\n----------" in doc, "%s documents no Parameters" % name
        assert "Returns\n-------" in doc or "Raises" in doc, "%s documents no Returns" % name
    else:
        assert "Parameters\n----------" in doc or "Attributes\n----------" in doc, name


@pytest.mark.parametrize("method", ["fit", "predict", "apply", "save", "to_bytes", "proximity"])
def test_estimator_methods_are_documented(method):
    for cls in (sporf.SPORFClassifier, sporf.SPORFRegressor, sporf.MORFClassifier, sporf.URerF):
        if hasattr(cls, method):
            doc = inspect.getdoc(getattr(cls, method)) or ""
            assert "Returns\n-------" in doc or "Parameters\n----------" in doc, "%s.%s" % (cls.__name__, method)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    if module == "sporf.distributed":
        pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = dict(vars(mod))
    tests = [t for t in finder.find(mod, module, globs=globs) if t.examples]
    assert tests, "no examples found in %s" % module
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "%d of %d examples failed in %s" % (result.failed, result.attempted, module)


def test_the_guide_says_what_the_r_formula_does_with_na():
    # R's formula interface stops on NA (na.fail), as the README and ?sporf say
    repo = pathlib.Path(__file__).resolve().parents[2]
    guide = (repo / "docs" / "site" / "python" / "guide.md").read_text()
    assert "drops NA rows" not in guide and "na.action = na.fail" in guide
