/* error.c -- see error.h. */
#include "util/error.h"

#include <stdio.h>

int sporf_set_error(sporf_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void sporf_clear_error(sporf_error *err)
{
    if (err) {
        err->code = SPORF_OK;
        err->message[0] = '\0';
    }
}

int sporf_param_error(sporf_error *err, const char *name, const char *expect, const char *fmt, ...)
{
    char value[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    return sporf_set_error(err, SPORF_E_ARG, "%s must be %s; got %s", name, expect, value);
}
