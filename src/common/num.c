/* num.c - strict integer and double parsing of a bounded span (num.h). */
#include "num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest span parsed as a double; real numbers are far shorter. */
#define NUM_TEXT_MAX 128

static int bad(struct nns_err *err, const char *what, const char *s, size_t n)
{
	return nns_err_set(err, NNS_EFORMAT, "'%.*s' is %s", (int)(n > 64 ? 64 : n), s, what);
}

/* The magnitude of the digits s[0..n) (at least one, only digits), up to
 * limit; -1 when not digits, -2 when over limit. */
static int digits(const char *s, size_t n, uint64_t limit, uint64_t *mag)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		if (v > (limit - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*mag = v;
	return 0;
}

int num_i64(const char *s, size_t n, int64_t *out, struct nns_err *err)
{
	int neg = n > 0 && s[0] == '-';
	size_t k = n > 0 && (s[0] == '-' || s[0] == '+');
	uint64_t mag;
	int rc = digits(s + k, n - k, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &mag);

	if (rc == -1)
		return bad(err, "not an integer", s, n);
	if (rc == -2)
		return bad(err, "out of the 64-bit range", s, n);
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

int num_u64(const char *s, size_t n, uint64_t *out, struct nns_err *err)
{
	size_t k = n > 0 && s[0] == '+';
	uint64_t mag;
	int rc = digits(s + k, n - k, UINT64_MAX, &mag);

	if (rc == -1)
		return bad(err, "not an unsigned integer", s, n);
	if (rc == -2)
		return bad(err, "out of the 64-bit range", s, n);
	*out = mag;
	return 0;
}

int num_double(const char *s, size_t n, double *out, struct nns_err *err)
{
	char tmp[NUM_TEXT_MAX];
	char *end;
	double v;

	if (n == 0 || n >= sizeof(tmp) || isspace((unsigned char)s[0]))
		return bad(err, "not a number", s, n);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (end != tmp + n)
		return bad(err, "not a number", s, n);
	if (errno == ERANGE && isinf(v))
		return bad(err, "out of the double range", s, n);
	*out = v;
	return 0;
}

/* ---- Python's int() and repr(float) ----------------------------------------- */

static int py_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

int num_pyint(const char *s, size_t n, int64_t *out)
{
	const uint64_t limit = (uint64_t)1 << 62;
	uint64_t v = 0;
	size_t i = 0;
	int neg = 0, digit_last = 0, any = 0;

	for (size_t k = 0; k < n; k++)
		if ((unsigned char)s[k] >= 0x80)
			return -2; /* Unicode digits / spaces: Python may take them */
	while (n > 0 && py_space((unsigned char)s[n - 1]))
		n--;
	while (i < n && py_space((unsigned char)s[i]))
		i++;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';

		if (s[i] == '_') {
			if (!digit_last)
				return -1;
			digit_last = 0;
			continue;
		}
		if (d > 9)
			return -1;
		if (v > limit / 10 || v * 10 + d >= limit)
			return -2;
		v = v * 10 + d;
		digit_last = any = 1;
	}
	if (!any || !digit_last)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

size_t num_pyfloat(double v, char *buf, size_t size)
{
	char e[40], digits[24], *p;
	int prec, exp10, nd = 0, len;

	if (size < NUM_PYFLOAT_MAX)
		return 0;
	if (isnan(v))
		return (size_t)snprintf(buf, size, "nan");
	if (isinf(v))
		return (size_t)snprintf(buf, size, "%sinf", v < 0 ? "-" : "");
	/* the shortest %.*e that reads back as v (the closest one of that length) */
	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", prec, v);
	p = e + (e[0] == '-');
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	/* Python: decpt = exp10 + 1; exponent form when decpt <= -4 or > 16 */
	len = snprintf(buf, size, "%s", signbit(v) ? "-" : "");
	if (exp10 + 1 <= -4 || exp10 + 1 > 16) {
		len += snprintf(buf + len, size - (size_t)len, "%c%s%s%se%c%02d", digits[0],
				nd > 1 ? "." : "", digits + 1, "", exp10 < 0 ? '-' : '+',
				exp10 < 0 ? -exp10 : exp10);
	} else if (exp10 < 0) {
		len +=
		    snprintf(buf + len, size - (size_t)len, "0.%.*s%s", -exp10 - 1, "0000", digits);
	} else if (nd <= exp10 + 1) {
		len += snprintf(buf + len, size - (size_t)len, "%s%.*s.0", digits, exp10 + 1 - nd,
				"0000000000000000");
	} else {
		len += snprintf(buf + len, size - (size_t)len, "%.*s.%s", exp10 + 1, digits,
				digits + exp10 + 1);
	}
	return (size_t)len;
}
