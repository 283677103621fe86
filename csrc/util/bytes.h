/*
 * bytes.h -- little-endian byte writer and bounds-checked reader for the
 * model format (io.c, tree_codec.c).
 *
 * The writer can run without a buffer (buf NULL) to count the bytes a model
 * needs. The reader never reads past len: a short read sets bad and returns
 * zeros, so a parser checks bad once after a group of fields.
 */
#ifndef SPORF_BYTES_H
#define SPORF_BYTES_H

#include <stdint.h>
#include <string.h>

typedef struct sporf_writer {
    uint8_t *buf; /* NULL: only count */
    int64_t pos;
} sporf_writer;

typedef struct sporf_reader {
    const uint8_t *p;
    int64_t len, pos;
    int bad;
} sporf_reader;

/* The model file's checksum: 64-bit FNV-1a of n bytes. */
static inline uint64_t sporf_fnv1a(const uint8_t *p, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Make a model's header length and checksum match its bytes (len >= 32):
 * what the unit tests and the fuzzer do to mutated models so the parser, not
 * the checksum, sees them. */
static inline void sporf_reseal(uint8_t *b, int64_t len)
{
    const uint64_t payload = (uint64_t)(len - 32), h = sporf_fnv1a(b, len - 8);
    for (int i = 0; i < 8; i++) {
        b[16 + i] = (uint8_t)(payload >> (8 * i));
        b[len - 8 + i] = (uint8_t)(h >> (8 * i));
    }
}

static inline void sporf_put_u8(sporf_writer *w, uint8_t v)
{
    if (w->buf) w->buf[w->pos] = v;
    w->pos += 1;
}
static inline void sporf_put_u64(sporf_writer *w, uint64_t v)
{
    if (w->buf)
        for (int i = 0; i < 8; i++) w->buf[w->pos + i] = (uint8_t)(v >> (8 * i));
    w->pos += 8;
}
static inline void sporf_put_u32(sporf_writer *w, uint32_t v)
{
    if (w->buf)
        for (int i = 0; i < 4; i++) w->buf[w->pos + i] = (uint8_t)(v >> (8 * i));
    w->pos += 4;
}
static inline void sporf_put_i64(sporf_writer *w, int64_t v) { sporf_put_u64(w, (uint64_t)v); }
static inline void sporf_put_i32(sporf_writer *w, int32_t v) { sporf_put_u32(w, (uint32_t)v); }
static inline void sporf_put_f64(sporf_writer *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    sporf_put_u64(w, u);
}
static inline void sporf_put_bytes(sporf_writer *w, const void *p, int64_t n)
{
    if (w->buf && n > 0) memcpy(w->buf + w->pos, p, (size_t)n);
    w->pos += n;
}
/* Unsigned LEB128: 7 bits per byte, low bits first; 1 byte below 128. */
static inline void sporf_put_varint(sporf_writer *w, uint32_t v)
{
    while (v >= 0x80) {
        sporf_put_u8(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    sporf_put_u8(w, (uint8_t)v);
}

static inline int sporf_need(sporf_reader *r, int64_t n)
{
    if (r->bad || n < 0 || r->len - r->pos < n) {
        r->bad = 1;
        return 0;
    }
    return 1;
}
static inline uint8_t sporf_get_u8(sporf_reader *r)
{
    if (!sporf_need(r, 1)) return 0;
    return r->p[r->pos++];
}
static inline uint64_t sporf_get_u64(sporf_reader *r)
{
    if (!sporf_need(r, 8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[r->pos + i] << (8 * i);
    r->pos += 8;
    return v;
}
static inline uint32_t sporf_get_u32(sporf_reader *r)
{
    if (!sporf_need(r, 4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)r->p[r->pos + i] << (8 * i);
    r->pos += 4;
    return v;
}
static inline int64_t sporf_get_i64(sporf_reader *r) { return (int64_t)sporf_get_u64(r); }
static inline int32_t sporf_get_i32(sporf_reader *r) { return (int32_t)sporf_get_u32(r); }
static inline double sporf_get_f64(sporf_reader *r)
{
    uint64_t u = sporf_get_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
/* A varint of at most 5 bytes whose value fits 31 bits (every count and
 * index in a model does); anything else marks the reader bad. Only the
 * shortest encoding is accepted, so each value has exactly one byte form. */
static inline int32_t sporf_get_varint(sporf_reader *r)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        const uint8_t b = sporf_get_u8(r);
        if (r->bad) return 0;
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if ((shift > 0 && b == 0) || (shift == 28 && b > 7) || v > (uint32_t)INT32_MAX) break;
            return (int32_t)v;
        }
    }
    r->bad = 1;
    return 0;
}

#endif
