"""The C parts gen_params.py writes: the public header's parameter block and
csrc/model/params_gen.c."""
import re

from gen_params_spec import (
    BIG, FORMS, MAX_DIMS, NOTICE, doc_text, expect, in_core, render, stored, values_of, wrap,
)

# The format of single-output forests other than survival (model.h's
# SPORF_MODEL_FORMAT_SINGLE_OUTPUT): parameters up to it are in every file.
SINGLE_OUTPUT_FORMAT = 10


def c_ident(s):
    return re.sub(r"[^A-Za-z0-9]", "_", s).upper()


def c_enum_name(p, v):
    return p["enum"] + c_ident(v)


def c_default(p):
    d, k = p["default"], p["kind"]
    if k == "int":
        return str(p["none"]) if d == "none" else str(d)
    if k == "real":
        return repr(float(d))
    if k == "flag":
        return "1" if d else "0"
    if k in ("choice", "class_weight"):
        return c_enum_name(p, d)
    if k == "threads":
        return "1"  # None/NULL: one thread
    if k == "seed":
        return "0"
    raise AssertionError(k)


def c_decl(p):
    n, k = p["name"], p["kind"]
    if k == "int":
        return ["int64_t %s;" % n]
    if k == "real":
        return ["double %s;" % n]
    if k in ("flag", "choice", "class_weight", "threads"):
        return ["int32_t %s;" % n]
    if k == "amount":
        return ["sporf_amount %s;" % n]
    if k == "seed":
        return ["uint64_t %s;" % n]
    if k == "grid":
        return ["int32_t n_dims;", "int64_t %s[%d];" % (n, MAX_DIMS)]
    if k == "axes":
        return ["%s %s[%d];" % ("int64_t" if p["of"] == "int" else "int32_t", n, MAX_DIMS)]
    raise AssertionError(k)


def c_comment(p):
    """The field's documentation for the public header: the spec's doc in
    C's words, then what the C representation adds."""
    k = p["kind"]
    bits = []
    if k == "amount":
        bits.append("Forms: " + ", ".join("SPORF_FORM_" + f.upper() for f in p["forms"]) + ".")
    if k == "int" and "none" in p:
        bits.append("%s = unset (None/NULL)." % p["none"])
    if k == "axes" and p["of"] == "int":
        bits.append("0 = the default.")
    if k in ("choice", "class_weight") or (k == "axes" and p["of"] == "choice"):
        bits.append("Codes " + p["enum"] + "*.")
    if k == "grid":
        bits.append("n_dims axes (0 = not a patch forest); entries past n_dims are 0.")
    if k == "axes":
        bits.append("Entries past n_dims are 0.")
    if not stored(p):
        bits.append("Not stored in the model.")
    text = render(doc_text(p, None), "c").replace("`", "")
    default = p["default"]
    bits.append("Default: %s." % ("None/NULL" if default == "none" else str(default).lower() if isinstance(default, bool)
                                  else '"%s"' % default if isinstance(default, str) else default))
    return wrap(text + " " + " ".join(bits), 86)


def gen_header_block(params):
    out = ["/* ---- parameters ----",
           " * " + NOTICE,
           " * spec/params.toml says what each parameter means; docs/design.md how the spec works. */",
           "",
           "enum {",
           "    SPORF_MAX_DIMS = %d        /* the per-axis (MORF) arrays below have this many entries */" % MAX_DIMS,
           "};",
           ""]
    seen = set()
    for p in params:
        if "enum" not in p or p["enum"] in seen:
            continue
        seen.add(p["enum"])
        out.append("/* %s */" % p["name"])
        out.append("enum {")
        vals = values_of(p)
        docs = p.get("value_docs", [""] * len(vals))
        for i, v in enumerate(vals):
            sep = "," if i < len(vals) - 1 else ""
            out.append("    %s = %d%s /* %s */" % (c_enum_name(p, v), i, sep, docs[i]))
        out.append("};")
        out.append("")
    out += ["/* The forms of a size a user may give (sporf_amount.form), resolved by the",
            " * core against the data: SQRT and LOG2 of the total, COUNT = value,",
            " * FRACTION = value x the total (each parameter rounds as its doc says),",
            " * ALL = the total. value is 0 unless the form is COUNT or FRACTION. */",
            "enum {"]
    for i, f in enumerate(FORMS):
        out.append("    SPORF_FORM_%s = %d%s" % (f.upper(), i, "," if i < len(FORMS) - 1 else ""))
    out += ["};", "",
            "typedef struct sporf_amount {",
            "    int32_t form;   /* SPORF_FORM_* */",
            "    double value;   /* the count or the fraction, else 0 */",
            "} sporf_amount;", "",
            "typedef struct sporf_params {"]
    for p in params:
        if not in_core(p):
            continue
        lines = c_comment(p)
        out.append("    /* " + lines[0] + (" */" if len(lines) == 1 else ""))
        for i, line in enumerate(lines[1:]):
            out.append("     * " + line + (" */" if i == len(lines) - 2 else ""))
        for d in c_decl(p):
            out.append("    " + d)
    out.append("} sporf_params;")
    return "\n".join(out)


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_c_source(spec, params):
    fv = spec["format_version"]
    L = ["/* params_gen.c -- " + NOTICE,
         " *",
         " * sporf_params_init, the checks of each field on its own, the save and load",
         " * of parameters (model format >= 6) and the comparison merge_forests makes.",
         " * Checks that relate fields (a patch grid and the data, honest priors and",
         " * the task...) are hand-written in params.c. */",
         '#include "model/params.h"',
         "",
         "#include <math.h>",
         "#include <string.h>",
         "",
         "void sporf_params_init(sporf_params *p)",
         "{",
         "    memset(p, 0, sizeof *p);"]
    for p in params:
        if not in_core(p):
            continue
        n, k = p["name"], p["kind"]
        if k == "amount":
            d = p["default"]
            if d == "none":
                L.append("    p->%s.form = SPORF_FORM_ALL;" % n)
            elif isinstance(d, str):
                L.append("    p->%s.form = SPORF_FORM_%s;" % (n, d.upper()))
            elif isinstance(d, int):
                L.append("    p->%s.form = SPORF_FORM_COUNT;" % n)
                L.append("    p->%s.value = %d;" % (n, d))
            else:
                L.append("    p->%s.form = SPORF_FORM_FRACTION;" % n)
                L.append("    p->%s.value = %r;" % (n, d))
        elif k in ("axes", "grid"):
            pass  # no grid: every per-axis entry is 0
        else:
            if c_default(p) not in ("0", "0.0"):
                L.append("    p->%s = %s;" % (n, c_default(p)))
    L += ["}", ""]

    # ---- field checks
    L += ["int sporf_params_check_fields(const sporf_params *p, sporf_error *err)", "{"]
    for p in params:
        if not in_core(p):
            continue
        n, k = p["name"], p["kind"]
        msg = render(expect(p), "c")
        if k == "int":
            cond = "p->%s < %dLL || p->%s > %dLL" % (n, p["min"], n, p.get("max", BIG))
            if "none" in p:
                cond = "p->%s != %d && (%s)" % (n, p["none"], cond)
            L.append("    if (%s)" % cond)
            L.append("        return sporf_param_error(err, %s, %s, \"%%lld\", (long long)p->%s);" % (c_str(n), c_str(msg), n))
        elif k == "real":
            lo = "p->%s %s %r" % (n, ">" if p.get("min_open") else ">=", float(p["min"]))
            hi = ("p->%s %s %r" % (n, "<" if p.get("max_open") else "<=", float(p["max"]))) if "max" in p else "isfinite(p->%s)" % n
            L.append("    if (!(%s && %s))" % (lo, hi))
            L.append("        return sporf_param_error(err, %s, %s, \"%%g\", p->%s);" % (c_str(n), c_str(msg), n))
        elif k == "flag":
            L.append("    if (p->%s != 0 && p->%s != 1)" % (n, n))
            L.append("        return sporf_param_error(err, %s, %s, \"%%d\", (int)p->%s);" % (c_str(n), c_str(msg), n))
        elif k in ("choice", "class_weight"):
            # codes past the values: a choice the forest made ("chosen_as": the value a binding shows)
            L.append("    if (p->%s < 0 || p->%s > %d)" % (n, n, len(values_of(p)) + len(p.get("chosen_as", [])) - 1))
            L.append("        return sporf_param_error(err, %s, %s, \"code %%d\", (int)p->%s);" % (c_str(n), c_str(msg), n))
        elif k == "amount":
            forms = p["forms"]
            ok = " && ".join("p->%s.form != SPORF_FORM_%s" % (n, f.upper()) for f in forms)
            L.append("    if (%s)" % ok)
            L.append("        return sporf_param_error(err, %s, %s, \"form code %%d\", (int)p->%s.form);" % (c_str(n), c_str(msg), n))
            conds = []
            if "count" in forms:
                conds.append("(p->%s.form == SPORF_FORM_COUNT && !(p->%s.value >= %r && p->%s.value <= %r && "
                             "p->%s.value == floor(p->%s.value)))" % (n, n, float(p["count_min"]), n,
                                                                      float(p.get("count_max", BIG)), n, n))
            if "fraction" in forms:
                lo = "p->%s.value %s %r" % (n, ">" if p.get("fraction_min_open") else ">=", float(p["fraction_min"]))
                hi = ("p->%s.value %s %r" % (n, "<" if p.get("fraction_max_open") else "<=", float(p["fraction_max"]))
                      if "fraction_max" in p else "isfinite(p->%s.value)" % n)
                conds.append("(p->%s.form == SPORF_FORM_FRACTION && !(%s && %s))" % (n, lo, hi))
            if "auto" in forms:
                # 0 while the size is to be chosen; the chosen size once a fit has chosen it
                conds.append("(p->%s.form == SPORF_FORM_AUTO && !(p->%s.value == 0.0 || (p->%s.value >= 1.0 && "
                             "p->%s.value <= %r && p->%s.value == floor(p->%s.value))))"
                             % (n, n, n, n, float(p.get("count_max", BIG)), n, n))
            conds.append("(p->%s.form != SPORF_FORM_COUNT && p->%s.form != SPORF_FORM_FRACTION && %sp->%s.value != 0.0)"
                         % (n, n, "p->%s.form != SPORF_FORM_AUTO && " % n if "auto" in forms else "", n))
            L.append("    if (%s)" % " ||\n        ".join(conds))
            L.append("        return sporf_param_error(err, %s, %s, \"%%g\", p->%s.value);" % (c_str(n), c_str(msg), n))
        elif k == "grid":
            L.append("    if (p->n_dims < 0 || p->n_dims > SPORF_MAX_DIMS)")
            L.append("        return sporf_param_error(err, %s, %s, \"%%d axes\", (int)p->n_dims);" % (c_str(n), c_str(msg)))
            L.append("    for (int k = 0; k < SPORF_MAX_DIMS; k++)")
            L.append("        if (k < p->n_dims ? p->%s[k] < 1 || p->%s[k] > %dLL : p->%s[k] != 0)" % (n, n, BIG, n))
            L.append("            return sporf_param_error(err, %s, %s, \"%%lld on axis %%d\", (long long)p->%s[k], k);"
                     % (c_str(n), c_str(msg), n))
        elif k == "axes":
            L.append("    for (int k = 0; k < SPORF_MAX_DIMS; k++) {")
            if p["of"] == "int":
                L.append("        if (k < p->n_dims ? p->%s[k] != 0 && (p->%s[k] < %dLL || p->%s[k] > %dLL) : p->%s[k] != 0)"
                         % (n, n, p["min"], n, p.get("max", BIG), n))
                L.append("            return sporf_param_error(err, %s, %s, \"%%lld on axis %%d\", (long long)p->%s[k], k);"
                         % (c_str(n), c_str(msg), n))
            else:
                top = 1 if p["of"] == "flag" else len(values_of(p)) - 1
                L.append("        if (k < p->n_dims ? p->%s[k] < 0 || p->%s[k] > %d : p->%s[k] != 0)" % (n, n, top, n))
                L.append("            return sporf_param_error(err, %s, %s, \"code %%d on axis %%d\", (int)p->%s[k], k);"
                         % (c_str(n), c_str(msg), n))
            L.append("    }")
    L += ["    return SPORF_OK;", "}", ""]

    # ---- save / load (format >= 6)
    put = {"int": "i64", "real": "f64", "flag": "i32", "choice": "i32", "class_weight": "i32", "seed": "u64"}
    # A model is written in the oldest format that holds it (model.h), so a
    # parameter newer than SINGLE_OUTPUT_FORMAT goes only into files of its
    # version on: older kinds of forest keep their bytes.
    L += ["void sporf_params_write(const sporf_params *p, sporf_writer *w, uint32_t version)", "{"]
    for p in params:
        if not stored(p):
            continue
        n, k = p["name"], p["kind"]
        guard = "" if p["since"] <= SINGLE_OUTPUT_FORMAT else "if (version >= %d) " % p["since"]
        if k in put:
            L.append("    %ssporf_put_%s(w, p->%s);" % (guard, put[k], n))
        elif k == "amount":
            L.append("    %s{" % guard)
            L.append("        sporf_put_i32(w, p->%s.form);" % n)
            L.append("        sporf_put_f64(w, p->%s.value);" % n)
            L.append("    }")
        elif k == "grid":
            L.append("    %s{" % guard)
            L.append("        sporf_put_i32(w, p->n_dims);")
            L.append("        for (int k = 0; k < SPORF_MAX_DIMS; k++) sporf_put_i64(w, p->%s[k]);" % n)
            L.append("    }")
        elif k == "axes":
            L.append("    %sfor (int k = 0; k < SPORF_MAX_DIMS; k++) sporf_put_%s(w, p->%s[k]);"
                     % (guard, "i64" if p["of"] == "int" else "i32", n))
    L += ["    (void)version;", "}", "",
          "void sporf_params_read(sporf_params *p, sporf_reader *r, uint32_t version)",
          "{",
          "    sporf_params_init(p);"]
    for p in params:
        if not stored(p):
            continue
        n, k = p["name"], p["kind"]
        guard = "" if p["since"] <= 6 else "if (version >= %d) " % p["since"]
        if k in put:
            L.append("    %sp->%s = sporf_get_%s(r);" % (guard, n, put[k]))
        elif k == "amount":
            L.append("    %s{" % guard)
            L.append("        p->%s.form = sporf_get_i32(r);" % n)
            L.append("        p->%s.value = sporf_get_f64(r);" % n)
            L.append("    }")
        elif k == "grid":
            L.append("    %s{" % guard)
            L.append("        p->n_dims = sporf_get_i32(r);")
            L.append("        for (int k = 0; k < SPORF_MAX_DIMS; k++) p->%s[k] = sporf_get_i64(r);" % n)
            L.append("    }")
        elif k == "axes":
            L.append("    %sfor (int k = 0; k < SPORF_MAX_DIMS; k++) p->%s[k] = sporf_get_%s(r);"
                     % (guard, n, "i64" if p["of"] == "int" else "i32"))
    L += ["    (void)version;", "}", ""]

    # ---- merge comparison
    L += ["const char *sporf_params_differing(const sporf_params *a, const sporf_params *b)",
          "{",
          "    /* Doubles are compared by their bits: equal parameters are what one fit had. */"]
    for p in params:
        if p["shards"] != "agree":
            continue
        fields = ["n_dims", p["name"]] if p["kind"] == "grid" else [p["name"]]
        for f in fields:
            L.append("    if (memcmp(&a->%s, &b->%s, sizeof a->%s) != 0) return %s;" % (f, f, f, c_str(p["name"])))
    L += ["    return NULL;", "}", ""]
    L.append("/* The model format version this spec describes. */")
    L.append("const uint32_t sporf_params_format_version = %d;" % fv)
    return "\n".join(L) + "\n"
