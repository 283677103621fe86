"""The R parts gen_params.py writes: R/R/spec_gen.R, R/R/api_gen.R, R/src/params_r_gen.c and the
parameter entries of the help pages."""
import re

from gen_params_spec import (
    FORMS, MAX_DIMS, NOTICE, default_of, doc_text, expect, in_core, refusals_for, render, rules_for, wrap,
)


def r_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, (int, float)):
        return show_r_number(v)
    if isinstance(v, list):
        return "c(%s)" % ", ".join(r_literal(x) for x in v) if v else "character(0)"
    if isinstance(v, dict):
        return "list(%s)" % ", ".join("%s = %s" % (k, r_literal(x)) for k, x in v.items())
    raise TypeError(v)


def show_r_number(v):
    if isinstance(v, float) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def r_default(p, est):
    if p["name"] in est.get("r_defaults", {}):
        return est["r_defaults"][p["name"]]
    d = default_of(est, p)
    return "NULL" if d == "none" else r_literal(d)


def gen_r_table(spec, params, by_name):
    L = ["# " + NOTICE, "#", "# The parameter table the R binding converts with (params.R).", "",
         ".SPEC_FORMAT_VERSION <- %d" % spec["format_version"],
         "# The codes of sporf.h: SPORF_FORM_* (an amount's form) and SPORF_MAX_DIMS.",
         ".SPEC_FORMS <- c(%s)" % ", ".join("%s = %d" % (f, i) for i, f in enumerate(FORMS)),
         ".SPEC_MAX_DIMS <- %dL" % MAX_DIMS, "", ".SPEC_PARAMS <- list("]
    rows = []
    for p in params:
        entry = {k: v for k, v in p.items() if k not in ("doc", "docs", "py_type", "r_type", "value_docs", "enum",
                                                       "aliases")}
        entry["aliases"] = p.get("aliases", {})
        entry["expect"] = render(expect(p), "r")
        rows.append("  %s = %s" % (p["name"], r_literal(entry)))
    L.append(",\n".join(rows))
    L += [")", "", "# other libraries' names for sporf's parameters (unknown-parameter messages)",
          ".SPEC_PEER_NAMES <- %s" % r_literal(dict(sorted(spec.get("peer_names", {}).items()))), "",
          "# checks across parameters: when every `when` holds, the fit is refused with `message`",
          ".SPEC_RULES <- list(%s)" % ", ".join(r_literal(rule) for rule in rules_for(spec, "r")), "",
          "# what a fit refuses, by name ({n}: a count)",
          ".SPEC_REFUSALS <- %s" % r_literal(refusals_for(spec, "r")), "",
          ".SPEC_ESTIMATORS <- list("]
    rows = []
    for ename, est in spec["estimator"].items():
        if est["language"] != "r":
            continue
        tasks = {}
        for task, twin_name in est["twins"].items():
            twin = spec["estimator"][twin_name]
            choices = est.get("choices", twin.get("choices", {}))  # an R function's own, else its twin's
            tasks[task] = dict(choices=choices,
                               expect={n: render(expect(by_name[n], choices.get(n)), "r")
                                       for n in est["params"]})
        entry = dict(params=est["params"], fixed=est.get("fixed", {}), tasks=tasks)
        rows.append("  %s = %s" % (ename, r_literal(entry)))
    L.append(",\n".join(rows))
    L.append(")")
    return "\n".join(L) + "\n"


R_DATA_ARGS = {"sporf": "x, y", "morf": "x, y", "urerf": "x", "isolation_forest": "x"}


def r_signature(ename, est, by_name):
    args = [R_DATA_ARGS[ename]] + ["%s = %s" % (n, r_default(by_name[n], est)) for n in est["params"]] + ["..."]
    return args


def gen_r_api(spec, by_name):
    L = ["# " + NOTICE, "#",
         "# The fitting functions' signatures. Each hands its environment (its arguments) to",
         "# the hand-written .fit_<name>() in <name>.R, which validates and fits.", ""]
    for ename, est in spec["estimator"].items():
        if est["language"] != "r":
            continue
        args = r_signature(ename, est, by_name)
        L.append("%s.default <- function(%s) {" % (ename, ",\n    ".join(args)))
        L.append("  .fit_%s(environment(), match.call())" % ename)
        L.append("}")
        L.append("")
    return "\n".join(L)


def rd_escape(s):
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("{", "\\{").replace("}", "\\}")


def rd_text(p, task):
    text = render(doc_text(p, task), "r")
    text = rd_escape(text)
    return re.sub(r"`([^`]+)`", r"\\code{\1}", text)


def gen_rd_items(ename, est, by_name):
    task = est["task"] if est["task"] != "supervised" else None
    out = ["% " + NOTICE]
    for n in est["params"]:
        p = by_name[n]
        text = rd_text(p, task)
        if est["task"] == "supervised" and (p.get("docs", {}).get("regression")):
            text += " For a regression forest (numeric y): " + rd_text(p, "regression")
        default = r_default(p, est)
        lines = wrap("%s (%s; default \\code{%s})." % (text.rstrip("."), rd_escape(p["r_type"]), rd_escape(default)), 90)
        out.append("  \\item{%s}{%s" % (n, lines[0]) + ("" if len(lines) > 1 else "}"))
        for i, line in enumerate(lines[1:]):
            out.append("    " + line + ("}" if i == len(lines) - 2 else ""))
    return "\n".join(out)


def gen_rd_usage(ename, est, by_name):
    args = r_signature(ename, est, by_name)
    return "%% %s\n\\method{%s}{default}(%s)" % (NOTICE, ename, ",\n    ".join(args))


def gen_r_glue(params):
    L = ["/* params_r_gen.c -- " + NOTICE,
         " *",
         " * The R list <-> sporf_params conversions of the .Call glue. The list holds",
         " * one element per stored parameter, by name: a number (whole numbers, flags",
         " * and choice codes included), c(form, value) for an amount, numeric vectors of",
         " * SPORF_MAX_DIMS entries per axis (data_dims: of its length). */",
         "#include <R.h>", "#include <Rinternals.h>", "", '#include "params_r.h"', "",
         "void sporf_r_params_from_list(SEXP list, sporf_params *p)", "{", "    sporf_params_init(p);"]
    for p in params:
        if not in_core(p):
            continue
        n, k = p["name"], p["kind"]
        if k in ("int",):
            L.append("    p->%s = (int64_t)sporf_r_whole(list, \"%s\");" % (n, n))
        elif k == "real":
            L.append("    p->%s = sporf_r_num(list, \"%s\");" % (n, n))
        elif k in ("flag", "choice", "class_weight", "threads"):
            L.append("    p->%s = (int32_t)sporf_r_whole(list, \"%s\");" % (n, n))
        elif k == "seed":
            L.append("    p->%s = (uint64_t)sporf_r_whole(list, \"%s\");" % (n, n))
        elif k == "amount":
            L.append("    sporf_r_amount(list, \"%s\", &p->%s);" % (n, n))
        elif k == "grid":
            L.append("    p->n_dims = sporf_r_axes_int(list, \"%s\", p->%s, 1);" % (n, n))
        elif k == "axes":
            if p["of"] == "int":
                L.append("    (void)sporf_r_axes_int(list, \"%s\", p->%s, 0);" % (n, n))
            else:
                L.append("    sporf_r_axes_i32(list, \"%s\", p->%s);" % (n, n))
    L += ["}", "", "SEXP sporf_r_params_to_list(const sporf_params *p)", "{"]
    core = [p for p in params if in_core(p)]
    L.append("    SEXP out = PROTECT(Rf_allocVector(VECSXP, %d));" % len(core))
    L.append("    SEXP names = PROTECT(Rf_allocVector(STRSXP, %d));" % len(core))
    for i, p in enumerate(core):
        n, k = p["name"], p["kind"]
        L.append("    SET_STRING_ELT(names, %d, Rf_mkChar(\"%s\"));" % (i, n))
        if k in ("int", "real", "flag", "choice", "class_weight", "threads", "seed"):
            L.append("    SET_VECTOR_ELT(out, %d, Rf_ScalarReal((double)p->%s));" % (i, n))
        elif k == "amount":
            L.append("    SET_VECTOR_ELT(out, %d, sporf_r_amount_sexp(&p->%s));" % (i, n))
        elif k == "grid":
            L.append("    SET_VECTOR_ELT(out, %d, sporf_r_axes_sexp_i64(p->%s, p->n_dims));" % (i, n))
        elif k == "axes":
            L.append("    SET_VECTOR_ELT(out, %d, sporf_r_axes_sexp_%s(p->%s, SPORF_MAX_DIMS));"
                     % (i, "i64" if p["of"] == "int" else "i32", n))
    L += ["    Rf_setAttrib(out, R_NamesSymbol, names);", "    UNPROTECT(2);", "    return out;", "}"]
    return "\n".join(L) + "\n"
