/*
 * io.h -- reading a model file (the format is described in io.c; writing is
 * the public sporf_forest_save).
 */
#ifndef SPORF_IO_H
#define SPORF_IO_H

#include "model/model.h"

/* Parse and check buf[0..len) into a new forest *out, without its
 * prediction layout (the API's sporf_forest_load builds that). On failure
 * *out is NULL and err says what is wrong with the file. */
int sporf_model_read(const uint8_t *buf, int64_t len, sporf_forest **out, sporf_error *err);

#endif
