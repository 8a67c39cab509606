/* jsonw.c - buffered streaming JSON writer (see jsonw.h). */
#include "output/jsonw.h"
#include "common/jsonesc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILE_BUF_SIZE ((size_t)64 << 10)

static void set_err(struct jsonw *w, int code)
{
	if (w->err == NNS_OK)
		w->err = code;
}

int jsonw_init_file(struct jsonw *w, FILE *f, int pretty_depth)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty_depth = pretty_depth;
	w->cap = FILE_BUF_SIZE;
	w->buf = malloc(w->cap);
	if (!w->buf) {
		w->cap = 0;
		w->err = NNS_ENOMEM;
		return NNS_ENOMEM;
	}
	return NNS_OK;
}

int jsonw_init_mem(struct jsonw *w, size_t max_bytes, int pretty_depth)
{
	memset(w, 0, sizeof(*w));
	w->pretty_depth = pretty_depth;
	w->max_bytes = max_bytes ? max_bytes : JSONW_BUF_MAX_DEFAULT;
	return NNS_OK;
}

void jsonw_release(struct jsonw *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

static void flush_file(struct jsonw *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
		set_err(w, NNS_EIO);
	w->len = 0;
}

/* Makes room for n more bytes; 0 on success. */
static int room(struct jsonw *w, size_t n)
{
	size_t ncap;
	char *p;

	if (w->err)
		return -1;
	if (!w->f && w->len + n + 1 > w->max_bytes) {
		set_err(w, NNS_ENOMEM);
		return -1;
	}
	if (w->len + n <= w->cap)
		return 0;
	if (w->f) {
		flush_file(w);
		if (w->err)
			return -1;
		if (n <= w->cap)
			return 0;
		ncap = n;
	} else {
		ncap = w->cap ? w->cap : 256;
		while (ncap < w->len + n + 1)
			ncap *= 2;
		if (ncap > w->max_bytes)
			ncap = w->max_bytes;
	}
	p = realloc(w->buf, ncap);
	if (!p) {
		set_err(w, NNS_ENOMEM);
		return -1;
	}
	w->buf = p;
	w->cap = ncap;
	return 0;
}

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (room(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void putc1(struct jsonw *w, char c)
{
	if (room(w, 1))
		return;
	w->buf[w->len++] = c;
}

static void newline_indent(struct jsonw *w, int level)
{
	putc1(w, '\n');
	for (int i = 0; i < level; i++)
		put(w, "  ", 2);
}

/* Called before any value (scalar or container start). */
static int before_value(struct jsonw *w)
{
	int d = w->depth;

	if (w->err)
		return -1;
	if (d == 0) {
		if (w->done) {
			set_err(w, NNS_EINVAL); /* a second top-level value */
			return -1;
		}
		return 0;
	}
	if (w->kind[d - 1] == 'o') {
		if (!w->want_value) {
			set_err(w, NNS_EINVAL); /* value without a key */
			return -1;
		}
		w->want_value = 0;
		return 0;
	}
	if (w->count[d - 1])
		putc1(w, ',');
	w->count[d - 1] = 1;
	if (d - 1 < w->pretty_depth)
		newline_indent(w, d);
	return 0;
}

static void after_value(struct jsonw *w)
{
	if (w->depth == 0)
		w->done = 1;
}

static void open_container(struct jsonw *w, char kind)
{
	if (before_value(w))
		return;
	if (w->depth >= JSONW_MAX_DEPTH) {
		set_err(w, NNS_EINVAL);
		return;
	}
	putc1(w, kind == 'o' ? '{' : '[');
	w->kind[w->depth] = (uint8_t)kind;
	w->count[w->depth] = 0;
	w->depth++;
}

static void close_container(struct jsonw *w, char kind)
{
	int d = w->depth;

	if (w->err)
		return;
	if (d == 0 || w->kind[d - 1] != (uint8_t)kind || w->want_value) {
		set_err(w, NNS_EINVAL);
		return;
	}
	if (w->count[d - 1] && d - 1 < w->pretty_depth)
		newline_indent(w, d - 1);
	putc1(w, kind == 'o' ? '}' : ']');
	w->depth--;
	after_value(w);
}

void jsonw_obj_begin(struct jsonw *w)
{
	open_container(w, 'o');
}

void jsonw_obj_end(struct jsonw *w)
{
	close_container(w, 'o');
}

void jsonw_arr_begin(struct jsonw *w)
{
	open_container(w, 'a');
}

void jsonw_arr_end(struct jsonw *w)
{
	close_container(w, 'a');
}

static void put_cb(void *w, const char *s, size_t n)
{
	put(w, s, n);
}

static void write_escaped(struct jsonw *w, const char *s, size_t n)
{
	putc1(w, '"');
	json_escape(s, n, 0, put_cb, w);
	putc1(w, '"');
}

void jsonw_key(struct jsonw *w, const char *key)
{
	int d = w->depth;

	if (w->err)
		return;
	if (d == 0 || w->kind[d - 1] != 'o' || w->want_value || !key) {
		set_err(w, NNS_EINVAL);
		return;
	}
	if (w->count[d - 1])
		putc1(w, ',');
	w->count[d - 1] = 1;
	if (d - 1 < w->pretty_depth)
		newline_indent(w, d);
	write_escaped(w, key, strlen(key));
	putc1(w, ':');
	if (d - 1 < w->pretty_depth)
		putc1(w, ' ');
	w->want_value = 1;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	if (before_value(w))
		return;
	write_escaped(w, s ? s : "", s ? n : 0);
	after_value(w);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_strn(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	/* digits by hand: snprintf was half the time of large trace-window
	 * answers (tens of thousands of integers each) */
	char b[24], *p = b + sizeof(b);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (before_value(w))
		return;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	put(w, p, (size_t)(b + sizeof(b) - p));
	after_value(w);
}

int jsonw_fmt_double(char *buf, size_t size, double v)
{
	int n = 0;

	if (!isfinite(v))
		return snprintf(buf, size, "null");
	if (v == 0)
		return snprintf(buf, size, signbit(v) ? "-0" : "0");
	/* integral values (timestamps in µs) in plain digits, not 1.6e+15 */
	if (fabs(v) < 1e17 && v == trunc(v))
		return snprintf(buf, size, "%.0f", v);
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, size, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	return n;
}

void jsonw_double(struct jsonw *w, double v)
{
	char b[40];
	int n;

	if (before_value(w))
		return;
	n = jsonw_fmt_double(b, sizeof(b), v);
	put(w, b, (size_t)n);
	after_value(w);
}

void jsonw_bool(struct jsonw *w, int v)
{
	if (before_value(w))
		return;
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
	after_value(w);
}

void jsonw_null(struct jsonw *w)
{
	if (before_value(w))
		return;
	put(w, "null", 4);
	after_value(w);
}

void jsonw_kstr(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_kint(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_int(w, v);
}

void jsonw_kdouble(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

void jsonw_kbool(struct jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

void jsonw_knull(struct jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_null(w);
}

int jsonw_finish(struct jsonw *w, struct nns_err *err)
{
	if (!w->err && (w->depth != 0 || !w->done))
		set_err(w, NNS_EINVAL);
	if (!w->err)
		putc1(w, '\n');
	if (!w->err && w->f) {
		flush_file(w);
		if (!w->err && fflush(w->f) != 0)
			set_err(w, NNS_EIO);
	}
	if (!w->err && !w->f && room(w, 1) == 0)
		w->buf[w->len] = '\0';
	switch (w->err) {
	case NNS_OK:
		return NNS_OK;
	case NNS_EINVAL:
		return nns_err_set(err, NNS_EINVAL, "json writer: unbalanced or misplaced value");
	case NNS_EIO:
		return nns_err_set(err, NNS_EIO, "json writer: write failed");
	default:
		return nns_err_set(err, w->err, "json writer: out of memory or over the size cap");
	}
}

char *jsonw_take(struct jsonw *w, size_t *len)
{
	char *b;

	if (w->err || w->f || !w->buf)
		return NULL;
	b = w->buf;
	if (len)
		*len = w->len;
	w->buf = NULL;
	w->len = w->cap = 0;
	return b;
}
