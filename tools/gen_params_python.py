"""The Python part gen_params.py writes: python/sporf/_spec_gen.py."""
import re

from gen_params_spec import NOTICE, default_of, doc_text, expect, refusals_for, render, rules_for, wrap


def py_default(p, est):
    d = default_of(est, p)
    if d == "none":
        return None
    return d


def py_type(p, est):
    """The docstring type of p: an estimator that accepts only some values of a
    choice lists those (with their aliases), else the parameter's py_type."""
    choices = est.get("choices", {}).get(p["name"])
    if not choices:
        return p["py_type"]
    names = list(choices) + [a for a, target in p.get("aliases", {}).items() if target in choices]
    return "{%s}" % ", ".join('"%s"' % v for v in names)


def numpydoc(est, by_name, task):
    out = ["    Parameters", "    ----------"]
    for n in est["params"]:
        p = by_name[n]
        d = py_default(p, est)
        out.append("    %s : %s, default=%s" % (n, py_type(p, est), '"%s"' % d if isinstance(d, str) else d))
        text = render(doc_text(p, task), "py")
        text = re.sub(r"`([^`]+)`", r"``\1``", text)
        out += ["        " + line for line in wrap(text, 80)]
    return "\n".join(out) + "\n"


def gen_python(spec, params, by_name):
    L = ['"""' + NOTICE, "", "The parameter table the Python binding converts with (_params.py), the",
         "estimators' __init__ signatures (mixins the estimator classes inherit) and their",
         'Parameters docstring sections."""', "",
         "FORMAT_VERSION = %d" % spec["format_version"], "", "PARAMS = {"]
    for p in params:
        entry = {k: v for k, v in p.items() if k not in ("doc", "docs", "py_type", "r_type", "value_docs", "enum")}
        entry["expect"] = render(expect(p), "py")
        L.append("    %r: %r," % (p["name"], entry))
    L += ["}", "", "# other libraries' names for sporf's parameters (unknown-parameter messages)",
          "PEER_NAMES = %r" % dict(sorted(spec.get("peer_names", {}).items())), "",
          "# checks across parameters: when every `when` holds, the fit is refused with `message`",
          "RULES = %r" % rules_for(spec, "py"), "",
          "# what a fit refuses, by name ({n}: a count)",
          "REFUSALS = %r" % refusals_for(spec, "py"), "", "ESTIMATORS = {"]
    for ename, est in spec["estimator"].items():
        if est["language"] != "python":
            continue
        entry = dict(task=est["task"], params=est["params"],
                     defaults={n: py_default(by_name[n], est) for n in est["params"]},
                     choices=est.get("choices", {}), fixed=est.get("fixed", {}),
                     expect={n: render(expect(by_name[n], est.get("choices", {}).get(n)), "py")
                             for n in est["params"]})
        L.append("    %r: %r," % (ename, entry))
    L += ["}", "", "PARAM_DOCS = {"]
    for ename, est in spec["estimator"].items():
        if est["language"] != "python":
            continue
        L.append("    %r: %r," % (ename, numpydoc(est, by_name, est["task"])))
    L += ["}", ""]
    for ename, est in spec["estimator"].items():
        if est["language"] != "python":
            continue
        names = est["params"]
        L += ["", "class _%sParams:" % ename,
              '    """The parameters of %s (scikit-learn reads them from this signature)."""' % ename, "",
              "    def __init__(", "        self,"]
        for i, n in enumerate(names):
            L.append("        %s=%r," % (n, py_default(by_name[n], est)))
            if i == 0:
                L.append("        *,")
        L.append("    ):")
        for n in names:
            L.append("        self.%s = %s" % (n, n))
        L.append("")
    return "\n".join(L).rstrip() + "\n"
