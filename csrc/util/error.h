/*
 * error.h -- how the core reports a failure: a status code (SPORF_E_*) and a
 * message in the caller's sporf_error (sporf.h). Every layer uses it.
 */
#ifndef SPORF_ERROR_H
#define SPORF_ERROR_H

#include "include/sporf.h"

#include <stdarg.h>

/* Set err (when not NULL) to code and the printf-formatted message; returns
 * code, so a failure reads `return sporf_set_error(...)`. */
int sporf_set_error(sporf_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Reset err (when not NULL) to SPORF_OK and an empty message. */
void sporf_clear_error(sporf_error *err);

/* The one wording of a bad parameter, in every language: "<name> must be
 * <expect>; got <value>", the value printed with fmt (the generated field
 * checks of model/params_gen.c and the hand-written ones of
 * model/params.c). Returns SPORF_E_ARG. */
int sporf_param_error(sporf_error *err, const char *name, const char *expect, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
