/* buf.c - growable, capped, NUL-terminated byte buffer (buf.h). */
#include "buf.h"
#include "nnscope.h"
#include "vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

int buf_reserve(struct buf *b, size_t n)
{
	size_t max = b->max ? b->max : VEC_MAX_BYTES;

	if (n > max || b->len + n + 1 > max)
		return NNS_ENOMEM;
	return vec_reserve_raw((void **)&b->p, &b->cap, b->len + n + 1, 1);
}

int buf_append_slow(struct buf *b, const void *s, size_t n)
{
	if (buf_reserve(b, n))
		return NNS_ENOMEM;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

static int vprintf_to(struct buf *b, const char *fmt, va_list ap)
{
	size_t room = b->p ? b->cap - b->len : 0;
	va_list aq;
	int n;

	if (b->max && room > b->max - b->len)
		room = b->max - b->len; /* never write past the cap, even on a try */
	va_copy(aq, ap);
	n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NNS_EINVAL;
	if ((size_t)n < room) {
		b->len += (size_t)n;
		return 0;
	}
	if (buf_reserve(b, (size_t)n)) {
		if (b->p)
			b->p[b->len] = '\0';
		return NNS_ENOMEM;
	}
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vprintf_to(b, fmt, ap);
	va_end(ap);
	return rc;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *buf_take(struct buf *b)
{
	char *p;

	if (!b->p && buf_reserve(b, 0))
		return NULL;
	if (!b->p)
		return NULL;
	b->p[b->len] = '\0';
	p = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

char *str_vprintf(const char *fmt, va_list ap)
{
	struct buf b = {0};

	if (vprintf_to(&b, fmt, ap)) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = str_vprintf(fmt, ap);
	va_end(ap);
	return s;
}
