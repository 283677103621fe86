# A formula fit's formula kept in the model file (the core's binding note,
# format 8), so a model read by sporf_load() predicts from a data frame as
# the fitted one does. Python keeps the note unread.
#
# A model file is untrusted input and model.frame() evaluates the formula's
# variables, so only what cannot run code is stored and restored: terms that
# are variable names or interactions of names, the intercept, each factor's
# levels, and contrasts named from stats' own. A formula with anything else
# (log(x), I(x^2), poly(), custom contrast matrices) is not stored: its loaded
# model takes the design matrix, as a matrix fit's does.

.NOTE_MAGIC <- "sporf-r-formula 1"
# A formula that cannot be stored leaves its term labels as text, read back
# only to name the cause when a loaded model is given a data frame.
.NOTE_UNSTORED <- "sporf-r-formula-unstored 1"
.NOTE_CONTRASTS <- c("contr.treatment", "contr.sum", "contr.helmert", "contr.poly", "contr.SAS")

# A term label made only of variable names (plain or backquoted) and ':'.
.plain_term <- function(label) {
  parts <- strsplit(label, ":", fixed = TRUE)[[1L]]
  length(parts) > 0L && all(grepl("^([.A-Za-z][.A-Za-z0-9_]*|`[^`]+`)$", parts))
}

.note_escape <- function(s) vapply(enc2utf8(as.character(s)), utils::URLencode, "", reserved = TRUE, USE.NAMES = FALSE)

# The note for a formula fit, or NULL when the formula cannot be stored safely.
.formula_note <- function(terms, xlevels, contrasts) {
  labels <- attr(terms, "term.labels")
  if (!length(labels) || !all(vapply(labels, .plain_term, logical(1)))) return(NULL)
  ok_contrast <- function(c) is.character(c) && length(c) == 1L && c %in% .NOTE_CONTRASTS
  if (length(contrasts) && !all(vapply(contrasts, ok_contrast, logical(1)))) return(NULL)
  lines <- c(.NOTE_MAGIC, paste("i", attr(terms, "intercept")), paste("t", .note_escape(labels)))
  for (v in names(xlevels))
    lines <- c(lines, paste("x", .note_escape(v)), if (length(xlevels[[v]])) paste("l", .note_escape(xlevels[[v]])))
  for (v in names(contrasts)) lines <- c(lines, paste("c", .note_escape(v), contrasts[[v]]))
  charToRaw(paste(lines, collapse = "\n"))
}

# list(terms, xlevels, contrasts) from a note, or NULL for any other note.
.formula_from_note <- function(note) {
  if (!length(note)) return(NULL)
  text <- tryCatch(rawToChar(note), error = function(e) "")
  lines <- strsplit(text, "\n", fixed = TRUE)[[1L]]
  if (!length(lines) || lines[1L] != .NOTE_MAGIC) return(NULL)
  dec <- function(s) utils::URLdecode(s)
  labels <- character(0)
  intercept <- 1L
  xlevels <- list()
  contrasts <- list()
  current <- NULL
  for (line in lines[-1L]) {
    kind <- substr(line, 1L, 1L)
    rest <- substring(line, 3L)
    if (kind == "i") intercept <- as.integer(rest)
    else if (kind == "t") labels <- c(labels, dec(rest))
    else if (kind == "x") { current <- dec(rest); xlevels[[current]] <- character(0) }
    else if (kind == "l" && !is.null(current)) xlevels[[current]] <- c(xlevels[[current]], dec(rest))
    else if (kind == "c") {
      parts <- strsplit(rest, " ", fixed = TRUE)[[1L]]
      if (length(parts) == 2L && parts[2L] %in% .NOTE_CONTRASTS) contrasts[[dec(parts[1L])]] <- parts[2L]
    }
  }
  if (!length(labels) || !all(vapply(labels, .plain_term, logical(1))) || !(intercept %in% 0:1)) return(NULL)
  f <- tryCatch(stats::reformulate(labels, intercept = intercept == 1L), error = function(e) NULL)
  if (is.null(f)) return(NULL)
  # names are looked up in newdata, then in base only
  environment(f) <- baseenv()
  list(terms = stats::terms(f), xlevels = xlevels, contrasts = if (length(contrasts)) contrasts)
}

# The note of a formula that .formula_note() cannot store: its term labels.
.unstored_formula_note <- function(terms) {
  charToRaw(paste(c(.NOTE_UNSTORED, paste("t", .note_escape(attr(terms, "term.labels")))), collapse = "\n"))
}

# The term labels an unstored formula's note keeps, or NULL.
.unstored_formula_labels <- function(note) {
  if (!length(note)) return(NULL)
  lines <- strsplit(tryCatch(rawToChar(note), error = function(e) ""), "\n", fixed = TRUE)[[1L]]
  if (!length(lines) || lines[1L] != .NOTE_UNSTORED) return(NULL)
  vapply(substring(grep("^t ", lines[-1L], value = TRUE), 3L), utils::URLdecode, "", USE.NAMES = FALSE)
}

# The terms of a formula fit that the model file cannot store (not plain
# variable names or their interactions), for the warning at save.
.unstorable_terms <- function(object) {
  terms <- object[["terms"]]
  if (is.null(terms) || !is.null(.formula_note(terms, object[["xlevels"]], object[["contrasts"]]))) return(NULL)
  labels <- attr(terms, "term.labels")
  bad <- labels[!vapply(labels, .plain_term, logical(1))]
  if (length(bad)) bad else "its contrasts"
}
