/*
 * buf.h - a growable byte buffer with a cap, always NUL-terminated.
 *
 * struct buf is caller storage; zero it (or buf_init) before use. Appends
 * grow it geometrically (vec.h) up to b->max bytes (0: VEC_MAX_BYTES) and
 * return 0 or NNS_ENOMEM; on failure the buffer keeps what it had. After
 * any successful call b->p[b->len] is '\0' (b->p may be NULL while empty).
 * The buffer owns b->p: buf_free() releases it, buf_take() hands it over
 * (the caller free()s it).
 */
#ifndef NNS_COMMON_BUF_H
#define NNS_COMMON_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *p;
	size_t len, cap;
	size_t max; /* cap on len + 1; 0: VEC_MAX_BYTES */
};

void buf_init(struct buf *b, size_t max);
/* Room for n more bytes (and the NUL). */
int buf_reserve(struct buf *b, size_t n);
int buf_append_slow(struct buf *b, const void *s, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);

/* Inline: the tokenizer's repr builder appends a few bytes at a time. */
static inline int buf_append(struct buf *b, const void *s, size_t n)
{
	if (n >= b->cap - b->len || (b->max && b->len + n >= b->max))
		return buf_append_slow(b, s, n); /* also an empty buffer (cap 0) */
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties the buffer, keeping its memory. */
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* The bytes (never NULL: "" when empty, malloc'd); the buffer is left
 * empty. NULL when out of memory. */
char *buf_take(struct buf *b);

/* A malloc'd printf: the caller free()s it; NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
