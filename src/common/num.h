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

/* Python's int(text) for a decimal str, as MindSpore's readers call it:
 * ASCII white space around (' ', \t \n \v \f \r, 0x1c-0x1f), an
 * optional sign, digits with single '_' between them. 0 and *out; -1 when
 * Python raises ValueError; -2 when Python accepts it but the value is
 * beyond +-(2^62 - 1) (or uses non-ASCII digits or spaces, which nnscope does not
 * read). */
int num_pyint(const char *s, size_t n, int64_t *out);

/* Python's repr(float) (str() of a float, what csv and print write): the
 * shortest digits that read back as v, "1e+16" / "1e-05" style outside
 * [1e-4, 1e16), ".0" added to whole numbers, "inf", "-inf", "nan". buf
 * holds at least 32 bytes; returns the length. */
#define NUM_PYFLOAT_MAX 32
size_t num_pyfloat(double v, char *buf, size_t size);

#endif
