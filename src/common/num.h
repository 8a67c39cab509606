/*
 * num.h - strict number parsing from a bounded span of text.
 *
 * Each parser reads exactly s[0..n): the whole span must be the number,
 * with no leading or trailing spaces, so "12 " and "" are errors. Integers
 * are decimal with an optional '+' or '-' (num_u64: '+' only); doubles are
 * what strtod accepts (decimal or hexadecimal, inf, nan) in the C locale.
 * Returns 0 and sets *out, or NNS_EFORMAT when the text is not a number or
 * the value does not fit (err, which may be NULL, says which and quotes the
 * text). *out is left unchanged on error.
 */
#ifndef NNS_COMMON_NUM_H
#define NNS_COMMON_NUM_H

#include "err.h"

#include <stddef.h>
#include <stdint.h>

int num_i64(const char *s, size_t n, int64_t *out, struct nns_err *err);
int num_u64(const char *s, size_t n, uint64_t *out, struct nns_err *err);
int num_double(const char *s, size_t n, double *out, struct nns_err *err);

#endif
