/*
 * kineto_repr.c - canonical text of nested JSON values, written the way
 * Python's repr() prints the parsed value: "[[2, 8, 5], [], []]" for
 * "Input Dims", "['float', 'Int', '']" for "Input type", "[50, 1, 1]" for
 * grid/block. The tb_plugin keys its operator and kernel groups on exactly
 * this text, so equal shapes written with different whitespace group
 * together. Numbers keep their JSON spelling (floats are not re-rounded).
 */
#include "kineto_internal.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/';
}

/* ---- Python repr ------------------------------------------------------------- */

void kj_tmp_put(struct kparser *ps, const char *s, size_t n)
{
	if (ps->tmp_over)
		return;
	if (ps->tmp.len + n > KP_REPR_MAX || buf_append(&ps->tmp, s, n))
		ps->tmp_over = 1;
}

/* Python 3 str repr: quote choice and escapes as CPython's unicode_repr for
 * the ASCII controls and C1 controls; other characters are kept. */
static void py_str(struct kparser *ps, struct kstr s)
{
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s.p, *e = p + s.n, *run = p;
	char q = (memchr(s.p, '\'', s.n) && !memchr(s.p, '"', s.n)) ? '"' : '\'';
	char esc[4];

	kj_tmp_put(ps, &q, 1);
	while (p < e) {
		unsigned c = *p;
		size_t n, adv = 1;
		if (c == (unsigned char)q || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			n = 2;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
			n = 2;
		} else if (c < 0x20 || c == 0x7f ||
			   (c == 0xC2 && p + 1 < e && p[1] >= 0x80 && p[1] < 0xA0)) {
			if (c == 0xC2) { /* a C1 control, U+0080..U+009F */
				c = p[1];
				adv = 2;
			}
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hexd[c >> 4];
			esc[3] = hexd[c & 15];
			n = 4;
		} else {
			p++;
			continue;
		}
		kj_tmp_put(ps, (const char *)run, (size_t)(p - run));
		kj_tmp_put(ps, esc, n);
		p += adv;
		run = p;
	}
	kj_tmp_put(ps, (const char *)run, (size_t)(e - run));
	kj_tmp_put(ps, &q, 1);
}

static int repr_value(struct kparser *ps, const char **pp, int depth);

static int repr_container(struct kparser *ps, const char **pp, int depth)
{
	const char *p = *pp;
	char close = *p == '[' ? ']' : '}';
	int r, more = 1, first = 1;
	struct kstr key;

	if (depth + 1 > KP_DEPTH_MAX)
		return kp_fail(ps, p, "nesting deeper than %d levels", KP_DEPTH_MAX);
	kj_tmp_put(ps, p, 1);
	p = kj_ws(p + 1);
	if (*p == close) {
		kj_tmp_put(ps, &close, 1);
		*pp = p + 1;
		return KP_OK;
	}
	while (more) {
		if (!first)
			kj_tmp_put(ps, ", ", 2);
		first = 0;
		if (close == '}') {
			if (*p != '"')
				return kp_unexpected(ps, p, "expected a key string in object");
			if ((r = kj_string(ps, &p, &key)))
				return r;
			py_str(ps, key);
			kj_tmp_put(ps, ": ", 2);
			if ((r = kj_colon(ps, &p)))
				return r;
		}
		if ((r = repr_value(ps, &p, depth + 1)))
			return r;
		if ((r = kj_next(ps, &p, close, close == ']' ? "in list" : "in object", &more)))
			return r;
	}
	kj_tmp_put(ps, &close, 1);
	*pp = p;
	return KP_OK;
}

static int repr_value(struct kparser *ps, const char **pp, int depth)
{
	const char *p = *pp;
	struct kval v;
	struct kstr w;
	int r;

	if (*p == '[' || *p == '{')
		return repr_container(ps, pp, depth);
	if (*p == '"') {
		if ((r = kj_string(ps, pp, &v.s)))
			return r;
		py_str(ps, v.s);
		return KP_OK;
	}
	if (is_digit(*p) || (*p == '-' && !is_word(p[1]))) {
		if ((r = kj_number(ps, pp, &v.num)))
			return r;
		if (v.num.n == 2 && v.num.p[0] == '-' && v.num.p[1] == '0')
			kj_tmp_put(ps, "0", 1);
		else
			kj_tmp_put(ps, v.num.p, v.num.n);
		return KP_OK;
	}
	if (is_word(*p) || *p == '-') {
		if ((r = kj_literal(ps, pp, &v, &w)))
			return r;
		if (v.type == KV_BOOL)
			kj_tmp_put(ps, v.b ? "True" : "False", v.b ? 4 : 5);
		else if (w.n == 3 && (w.p[0] == 'N' || w.p[0] == 'n') && w.p[1] == 'a')
			kj_tmp_put(ps, "nan", 3);
		else if (w.p[0] == '-')
			kj_tmp_put(ps, "-inf", 4);
		else if (w.p[0] == 'I' || w.p[0] == 'i')
			kj_tmp_put(ps, "inf", 3);
		else
			kj_tmp_put(ps, "None", 4);
		return KP_OK;
	}
	return kp_unexpected(ps, p, "expected a value");
}

/* The common case without the general walk: a list already written the
 * way repr() prints it, of lists, plain numbers and plain strings
 * ("[[2, 8, 5], [], []]", "[\"float\", \"\"]", "[50, 1, 1]": what Kineto
 * writes). Then the repr is the input text with '"' turned into '\''. Any
 * other byte, spacing or nesting (escapes, a quote inside a string, -0,
 * exponents, objects, a value cut by the window's end) leaves the value to
 * the general path: nothing is consumed and 0 returned. 1 when the text
 * is in ps->tmp (tmp_over clear) and *pp is past the value. */
static int repr_fast(struct kparser *ps, const char **pp, int depth)
{
	const unsigned char *s = (const unsigned char *)*pp, *p = s;
	int d = 0, quotes = 0;

	if (*p != '[')
		return 0;
	for (;;) {
		/* p is at the start of a value */
		if (*p == '[') {
			if (depth + ++d > KP_DEPTH_MAX)
				return 0;
			p++;
			if (*p == ']')
				goto close;
			continue;
		} else if (*p == '"') {
			p++;
			while (*p >= 0x20 && *p != '"' && *p != '\\' && *p != '\'' && *p != 0x7f &&
			       *p != 0xC2)
				p++;
			if (*p != '"')
				return 0;
			p++;
			quotes = 1;
		} else {
			const unsigned char *n = p;
			if (*p == '-')
				p++;
			if (*p < '0' || *p > '9')
				return 0;
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p == '.') {
				p++;
				if (*p < '0' || *p > '9')
					return 0;
				while (*p >= '0' && *p <= '9')
					p++;
			}
			if (p - n > KP_NUM_MAX || (p - n == 2 && n[0] == '-' && n[1] == '0'))
				return 0;
		}
		/* after a value: ", " and the next, or the closing brackets */
		if (p[0] == ',' && p[1] == ' ' && p[2] != ' ') {
			p += 2;
			continue;
		}
		if (*p != ']')
			return 0;
	close:
		while (*p == ']' && d > 0) {
			p++;
			d--;
		}
		if (d == 0)
			break;
		if (p[0] == ',' && p[1] == ' ' && p[2] != ' ') {
			p += 2;
			continue;
		}
		return 0;
	}
	if ((size_t)(p - s) > KP_REPR_MAX)
		return 0;
	buf_reset(&ps->tmp);
	ps->tmp_over = 0;
	if (buf_append(&ps->tmp, (const char *)s, (size_t)(p - s)))
		return 0;
	if (quotes)
		for (size_t i = 0; i < ps->tmp.len; i++)
			if (ps->tmp.p[i] == '"')
				ps->tmp.p[i] = '\'';
	*pp = (const char *)p;
	return 1;
}

int kj_repr(struct kparser *ps, const char **pp, int depth, int reset)
{
	if (reset && repr_fast(ps, pp, depth))
		return KP_OK;
	if (reset) {
		buf_reset(&ps->tmp);
		ps->tmp_over = 0;
	}
	return repr_value(ps, pp, depth);
}
