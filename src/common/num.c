/* num.c - strict integer and double parsing of a bounded span (num.h). */
#include "num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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
