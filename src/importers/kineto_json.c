/*
 * kineto_json.c - the JSON tokenizer of the Kineto importer: whitespace,
 * strings (with unescaping), numbers (exact microsecond -> nanosecond
 * conversion), literals, and skipping whole values without building them
 * (kineto_repr.c has the Python repr() text of nested values).
 *
 * Every function works on the parser window (kineto_internal.h): input is
 * followed by KP_PAD zero bytes, loops stop at that NUL sentinel, and a
 * function that runs into the window end returns KP_NEED so the caller can
 * refill and restart the unit. Nothing here recurses without a depth check.
 */
#include "kineto_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const unsigned char kj_ws_tab[256] = {
    [' '] = 1,
    ['\t'] = 1,
    ['\n'] = 1,
    ['\r'] = 1,
};

/* Bytes that may follow a number or literal. */
static const unsigned char delim_tab[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [','] = 1, [']'] = 1, ['}'] = 1, [':'] = 1,
};

/* Bytes the container skipper must look at. */
static const unsigned char struct_tab[256] = {
    ['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, [0] = 1,
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight digits at p, as one number, when all eight are digits (0 else,
 * with *ok 0): the classic SWAR conversion, three multiplications where a
 * loop took eight (Kineto's timestamps have 16 digits). */
static uint32_t eight_digits(const char *p, int *ok)
{
	uint64_t v;

	memcpy(&v, p, 8);
	*ok = (((v & 0xF0F0F0F0F0F0F0F0ull) |
		(((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
	       0x3333333333333333ull);
	if (!*ok)
		return 0;
	v -= 0x3030303030303030ull;
	v = v * 10 + (v >> 8);
	v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
	     (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
	    32;
	return (uint32_t)v;
}
#endif

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/';
}

/* ---- arena ---------------------------------------------------------------- */

void *karena_alloc(struct karena *a, size_t n)
{
	size_t sz, cap_a, cap_b;
	char *b;

	while (a->cur < a->nblk) {
		if (a->blk_size[a->cur] - a->used >= n) {
			void *r = a->blk[a->cur] + a->used;
			a->used += n;
			return r;
		}
		a->cur++;
		a->used = 0;
	}
	sz = n > 65536 ? n : 65536;
	cap_a = cap_b = a->nblk;
	if (vec_reserve_raw((void **)&a->blk, &cap_a, a->nblk + 1, sizeof(*a->blk)) ||
	    vec_reserve_raw((void **)&a->blk_size, &cap_b, a->nblk + 1, sizeof(*a->blk_size)))
		return NULL;
	b = malloc(sz);
	if (!b)
		return NULL;
	a->blk[a->nblk] = b;
	a->blk_size[a->nblk] = sz;
	a->cur = a->nblk++;
	a->used = n;
	return b;
}

void karena_reset(struct karena *a)
{
	/* keep one block; drop the rest once a unit needed many */
	if (a->nblk > 4) {
		size_t i;
		for (i = 1; i < a->nblk; i++)
			free(a->blk[i]);
		a->nblk = 1;
	}
	a->cur = 0;
	a->used = 0;
}

void karena_free(struct karena *a)
{
	size_t i;

	for (i = 0; i < a->nblk; i++)
		free(a->blk[i]);
	free(a->blk);
	free(a->blk_size);
	memset(a, 0, sizeof(*a));
}

/* ---- strings -------------------------------------------------------------- */

/* First '"' or '\\' in [p, end), or NULL. May read up to 15 bytes past
 * end: the window is followed by KP_PAD bytes. */
static const char *scan_quote(const char *p, const char *end)
{
#if defined(__SSE2__)
	while (p < end) {
		unsigned mask = kj_quote_mask16(p);
		if (mask) {
			p += __builtin_ctz(mask);
			return p < end ? p : NULL;
		}
		p += 16;
	}
	return NULL;
#else
	for (; p < end; p++)
		if (*p == '"' || *p == '\\')
			return p;
	return NULL;
#endif
}

/* Finds the closing quote of the string whose body starts at s.
 * Returns KP_OK with *close set, KP_NEED, or KP_ERR (too long). */
static int string_end(struct kparser *ps, const char *s, const char **close, int *esc)
{
	const char *q = s;

	for (;;) {
		q = scan_quote(q, ps->end);
		if (!q) {
			if ((size_t)(ps->end - s) > KP_STR_MAX)
				return kp_fail(ps, s - 1, "string longer than %zu MiB",
					       KP_STR_MAX >> 20);
			return KP_NEED;
		}
		if (*q == '"')
			break;
		*esc = 1;
		q += 2;
	}
	if ((size_t)(q - s) > KP_STR_MAX)
		return kp_fail(ps, s - 1, "string longer than %zu MiB", KP_STR_MAX >> 20);
	*close = q;
	return KP_OK;
}

static int hex4(const char *s, const char *e, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	if (e - s < 4)
		return 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

static size_t utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Unescapes [s, e) into the arena. The result is never longer than the
 * input: every escape shrinks or keeps its length. Lenient: an unknown
 * escape keeps the escaped character, a bad \u gives '?'. */
static int unescape(struct kparser *ps, const char *s, const char *e, struct kstr *out)
{
	char *d = karena_alloc(&ps->arena, (size_t)(e - s) + 1), *o = d;

	if (!d)
		return kp_nomem(ps, s);
	while (s < e) {
		const char *b = memchr(s, '\\', (size_t)(e - s));
		uint32_t cp, lo;
		char c;

		if (!b)
			b = e;
		memcpy(o, s, (size_t)(b - s));
		o += b - s;
		s = b;
		if (s >= e)
			break;
		c = s + 1 < e ? s[1] : '\\';
		s += 2;
		switch (c) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'u':
			if (!hex4(s, e, &cp)) {
				*o++ = '?';
				break;
			}
			s += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && e - s >= 6 && s[0] == '\\' &&
			    s[1] == 'u' && hex4(s + 2, e, &lo) && lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				s += 6;
			} else if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD;
			}
			o += utf8_put(o, cp);
			break;
		default:
			*o++ = c;
			break;
		}
	}
	*o = '\0';
	out->p = d;
	out->n = (size_t)(o - d);
	return KP_OK;
}

int kj_string_slow(struct kparser *ps, const char **pp, struct kstr *out)
{
	const char *s = *pp + 1, *q;
	int esc = 0, r;

	r = string_end(ps, s, &q, &esc);
	if (r)
		return r;
	*pp = q + 1;
	if (!esc) {
		out->p = s;
		out->n = (size_t)(q - s);
		return KP_OK;
	}
	return unescape(ps, s, q, out);
}

/* ---- numbers and literals ------------------------------------------------ */

static int digits_run(struct kparser *ps, const char *s, const char **pp)
{
	const char *p = *pp;

	while (is_digit(*p))
		p++;
	*pp = p;
	if (p - s > KP_NUM_MAX)
		return kp_fail(ps, s, "number longer than %d characters", KP_NUM_MAX);
	return KP_OK;
}

int kj_number(struct kparser *ps, const char **pp, struct knum *out)
{
	const char *s = *pp, *p = s;
	uint64_t mag = 0;
	int ovf = 0, r;

	out->neg = 0;
	out->is_int = 1;
	out->exp = 0;
	out->dot = NULL;
	if (*p == '-') {
		out->neg = 1;
		p++;
	}
	if (!is_digit(*p))
		return kp_unexpected(ps, p, "expected a digit in number");
	/* 19 digits cannot overflow uint64: no check for them; eight at a
	 * time while they come (the window's KP_PAD bytes make the load safe) */
	{
		const char *d19 = p + 19;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		int ok = 1;
		for (int k = 0; k < 2 && ok; k++) {
			uint32_t x = eight_digits(p, &ok);
			if (ok) {
				mag = mag * 100000000u + x;
				p += 8;
			}
		}
#endif
		for (; p < d19 && is_digit(*p); p++)
			mag = mag * 10 + (unsigned)(*p - '0');
	}
	while (is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (mag > (UINT64_MAX - d) / 10)
			ovf = 1;
		else
			mag = mag * 10 + d;
		p++;
		if (p - s > KP_NUM_MAX)
			return kp_fail(ps, s, "number longer than %d characters", KP_NUM_MAX);
	}
	if (*p == '.') {
		out->is_int = 0;
		out->dot = p++;
		if (!is_digit(*p))
			return kp_unexpected(ps, p, "expected a digit after '.' in number");
		if ((r = digits_run(ps, s, &p)))
			return r;
	}
	if (*p == 'e' || *p == 'E') {
		out->is_int = 0;
		out->exp = 1;
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			return kp_unexpected(ps, p, "expected a digit in number exponent");
		if ((r = digits_run(ps, s, &p)))
			return r;
	}
	if (p >= ps->end)
		return KP_NEED;
	if (!delim_tab[(unsigned char)*p])
		return kp_unexpected(ps, p, "invalid character after number");
	out->p = s;
	out->n = (size_t)(p - s);
	out->ovf = ovf;
	out->mag = mag;
	*pp = p;
	return KP_OK;
}

static const double pow10_tab[23] = {
    1e0,  1e1,	1e2,  1e3,  1e4,  1e5,	1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Decimal text -> double without strtod (which depends on the locale).
 * Exact (correctly rounded) when the significand has <= 15 digits and the
 * exponent is small, which covers what traces contain. */
static double text_double(const char *p, const char *e)
{
	uint64_t mant = 0;
	int digits = 0, neg = 0;
	long exp10 = 0, ex = 0;
	double v;

	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	for (; p < e && is_digit(*p); p++) {
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits += mant != 0;
		} else {
			exp10++;
		}
	}
	if (p < e && *p == '.') {
		for (p++; p < e && is_digit(*p); p++) {
			if (digits < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				digits += mant != 0;
				exp10--;
			}
		}
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		int eneg = 0;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < e && is_digit(*p); p++)
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
		exp10 += eneg ? -ex : ex;
	}
	v = (double)mant;
	if (mant == 0)
		v = 0;
	else if (mant < ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22)
		v = exp10 < 0 ? v / pow10_tab[-exp10] : v * pow10_tab[exp10];
	else
		v = v * pow(10.0, (double)exp10);
	return neg ? -v : v;
}

double kj_num_double(const struct knum *n)
{
	if (n->is_int && !n->ovf)
		return n->neg ? -(double)n->mag : (double)n->mag;
	return text_double(n->p, n->p + n->n);
}

int64_t kj_num_i64(const struct knum *n)
{
	double d;

	if (n->is_int && !n->ovf) {
		if (n->mag > (uint64_t)INT64_MAX)
			return n->neg ? INT64_MIN : INT64_MAX;
		return n->neg ? -(int64_t)n->mag : (int64_t)n->mag;
	}
	d = kj_num_double(n);
	if (d != d)
		return 0;
	if (d >= 9.2e18)
		return INT64_MAX;
	if (d <= -9.2e18)
		return INT64_MIN;
	return (int64_t)d;
}

int kj_num_ns(const struct knum *n, int64_t *out)
{
	const char *p = n->p, *e = n->p + n->n, *dot;
	int64_t v;

	if (n->exp) {
		double d = text_double(p, e) * 1000.0;
		if (!(d > -9.2e18 && d < 9.2e18))
			return -1;
		*out = (int64_t)llround(d);
		return 0;
	}
	if (n->ovf)
		return -1;
	if (n->mag > (uint64_t)(INT64_MAX / 1000 - 1))
		return -1;
	v = (int64_t)n->mag * 1000;
	dot = n->dot;
	if (dot) {
		static const int scale[3] = {100, 10, 1};
		int i;
		dot++;
		for (i = 0; i < 3 && dot < e && is_digit(*dot); i++, dot++)
			v += (*dot - '0') * scale[i];
		if (dot < e && is_digit(*dot) && *dot >= '5')
			v++;
	}
	*out = n->neg ? -v : v;
	return 0;
}

/* A bare word in value position. JSON has true, false and null; traces
 * also carry NaN, Infinity and N/A, read as null (repr as Python would). */
int kj_literal(struct kparser *ps, const char **pp, struct kval *v, struct kstr *word)
{
	const char *s = *pp, *p = s;
	size_t n;

	if (*p == '-')
		p++;
	while (is_word(*p)) {
		p++;
		if (p - s > 16)
			return kp_unexpected(ps, s, "invalid literal");
	}
	if (p >= ps->end)
		return KP_NEED;
	n = (size_t)(p - s);
	word->p = s;
	word->n = n;
	v->type = KV_NULL;
	if (n == 4 && !memcmp(s, "true", 4)) {
		v->type = KV_BOOL;
		v->b = 1;
	} else if (n == 5 && !memcmp(s, "false", 5)) {
		v->type = KV_BOOL;
		v->b = 0;
	} else if (!((n == 4 && !memcmp(s, "null", 4)) || (n == 3 && !memcmp(s, "NaN", 3)) ||
		     (n == 3 && !memcmp(s, "nan", 3)) || (n == 3 && !memcmp(s, "N/A", 3)) ||
		     (n == 8 && !memcmp(s, "Infinity", 8)) ||
		     (n == 9 && !memcmp(s, "-Infinity", 9)) || (n == 3 && !memcmp(s, "inf", 3)) ||
		     (n == 4 && !memcmp(s, "-inf", 4)) || (n == 4 && !memcmp(s, "None", 4)))) {
		return kp_unexpected(ps, s, "invalid literal");
	}
	if (!delim_tab[(unsigned char)*p])
		return kp_unexpected(ps, p, "invalid character after literal");
	*pp = p;
	return KP_OK;
}

/* ---- skipping --------------------------------------------------------------- */

static int skip_container(struct kparser *ps, const char **pp, int depth)
{
	const char *p = *pp, *end = ps->end, *q;
	uint64_t objbits = 0;
	int d = 0, r, esc;

	for (;;) {
		while (!struct_tab[(unsigned char)*p])
			p++;
		switch (*p) {
		case '{':
		case '[':
			if (depth + d + 1 > KP_DEPTH_MAX)
				return kp_fail(ps, p, "nesting deeper than %d levels",
					       KP_DEPTH_MAX);
			if (*p == '{')
				objbits |= (uint64_t)1 << d;
			else
				objbits &= ~((uint64_t)1 << d);
			d++;
			p++;
			break;
		case '}':
		case ']':
			if (d == 0 || (((objbits >> (d - 1)) & 1) != (*p == '}')))
				return kp_unexpected(ps, p, "mismatched bracket");
			d--;
			p++;
			if (d == 0) {
				*pp = p;
				return KP_OK;
			}
			break;
		case '"':
			esc = 0;
			if ((r = string_end(ps, p + 1, &q, &esc)))
				return r;
			p = q + 1;
			break;
		default: /* NUL: the window end, or a NUL byte in the data */
			if (p >= end)
				return KP_NEED;
			p++;
			break;
		}
	}
}

int kj_skip(struct kparser *ps, const char **pp, int depth)
{
	const char *p = *pp, *q;
	struct kval v;
	struct kstr w;
	int r, esc = 0;

	switch (*p) {
	case '"':
		if ((r = string_end(ps, p + 1, &q, &esc)))
			return r;
		*pp = q + 1;
		return KP_OK;
	case '{':
	case '[':
		return skip_container(ps, pp, depth);
	default:
		if (*p == '-' || is_digit(*p)) {
			if (*p == '-' && is_word(p[1]))
				return kj_literal(ps, pp, &v, &w);
			return kj_number(ps, pp, &v.num);
		}
		if (is_word(*p))
			return kj_literal(ps, pp, &v, &w);
		return kp_unexpected(ps, p, "expected a value");
	}
}

int kj_scalar(struct kparser *ps, const char **pp, struct kval *v, int depth)
{
	const char *p = *pp;
	struct kstr w;

	switch (*p) {
	case '"':
		v->type = KV_STR;
		return kj_string(ps, pp, &v->s);
	case '{':
	case '[':
		v->type = KV_OTHER;
		return skip_container(ps, pp, depth);
	default:
		if (*p == '-' || is_digit(*p)) {
			if (*p == '-' && is_word(p[1]))
				return kj_literal(ps, pp, v, &w);
			v->type = KV_NUM;
			return kj_number(ps, pp, &v->num);
		}
		if (is_word(*p))
			return kj_literal(ps, pp, v, &w);
		return kp_unexpected(ps, p, "expected a value");
	}
}

/* Numeric text inside a string ("123", " 0x1f"): lenient conversion. */
static int str_i64(struct kstr s, int64_t *out)
{
	const char *p = s.p, *e = s.p + s.n;
	uint64_t v = 0;
	int neg = 0, any = 0;

	while (p < e && kj_ws_tab[(unsigned char)*p])
		p++;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; p < e; p++, any = 1) {
			int d = (*p >= '0' && *p <= '9')   ? *p - '0'
				: (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
				: (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10
							   : -1;
			if (d < 0 || v >> 60)
				return 0;
			v = v << 4 | (uint64_t)d;
		}
	} else {
		for (; p < e && is_digit(*p); p++, any = 1) {
			if (v > (uint64_t)INT64_MAX / 10)
				return 0;
			v = v * 10 + (uint64_t)(*p - '0');
		}
		if (p < e && *p == '.')
			for (p++; p < e && is_digit(*p); p++)
				;
	}
	while (p < e && kj_ws_tab[(unsigned char)*p])
		p++;
	if (!any || p != e)
		return 0;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 1;
}

int kj_val_i64(const struct kval *v, int64_t *out)
{
	if (v->type == KV_NUM) {
		*out = kj_num_i64(&v->num);
		return 1;
	}
	if (v->type == KV_STR)
		return str_i64(v->s, out);
	if (v->type == KV_BOOL) {
		*out = v->b;
		return 1;
	}
	return 0;
}

int kj_val_f64(const struct kval *v, double *out)
{
	int64_t i;

	if (v->type == KV_NUM) {
		*out = kj_num_double(&v->num);
		return 1;
	}
	if (kj_val_i64(v, &i)) {
		*out = (double)i;
		return 1;
	}
	return 0;
}

/* ---- punctuation ------------------------------------------------------------- */

int kj_colon_slow(struct kparser *ps, const char **pp)
{
	const char *p = kj_ws(*pp);

	if (*p != ':')
		return kp_unexpected(ps, p, "expected ':' after object key");
	*pp = kj_ws(p + 1);
	return KP_OK;
}

int kj_next_slow(struct kparser *ps, const char **pp, char close, const char *what, int *more)
{
	const char *p = kj_ws(*pp);
	char msg[96];

	if (*p == ',') {
		p = kj_ws(p + 1);
		if (*p == close) { /* lenient: trailing comma */
			*pp = p + 1;
			*more = 0;
			return KP_OK;
		}
		*pp = p;
		*more = 1;
		return KP_OK;
	}
	if (*p == close) {
		*pp = p + 1;
		*more = 0;
		return KP_OK;
	}
	snprintf(msg, sizeof(msg), "expected ',' or '%c' %s", close, what);
	return kp_unexpected(ps, p, msg);
}
