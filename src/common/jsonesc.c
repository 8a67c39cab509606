/* jsonesc.c - JSON string escaping and UTF-8 validation (jsonesc.h). */
#include "jsonesc.h"

#include <string.h>

size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlong */
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* <= U+10FFFF */
	} else
		return 0;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* The escape of the ASCII byte c (a control character, '"' or '\\'). */
static size_t escape_ascii(unsigned c, char esc[8])
{
	static const char hex[] = "0123456789abcdef";

	esc[0] = '\\';
	switch (c) {
	case '"':
	case '\\':
		esc[1] = (char)c;
		return 2;
	case '\n':
		esc[1] = 'n';
		return 2;
	case '\t':
		esc[1] = 't';
		return 2;
	case '\r':
		esc[1] = 'r';
		return 2;
	case '\b':
		esc[1] = 'b';
		return 2;
	case '\f':
		esc[1] = 'f';
		return 2;
	default:
		memcpy(esc, "\\u00", 4);
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 15];
		return 6;
	}
}

static unsigned decode_cp(const unsigned char *s, size_t len)
{
	static const unsigned lead_mask[5] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	unsigned cp = s[0] & lead_mask[len];

	for (size_t k = 1; k < len; k++)
		cp = cp << 6 | (s[k] & 0x3f);
	return cp;
}

/* \uXXXX of cp, a surrogate pair above U+FFFF (Python's ensure_ascii). */
static void escape_cp(unsigned cp, json_put_fn put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	char esc[12];
	unsigned u[2];
	int n = 1;

	u[0] = cp;
	if (cp > 0xffff) {
		cp -= 0x10000;
		u[0] = 0xd800 | cp >> 10;
		u[1] = 0xdc00 | (cp & 0x3ff);
		n = 2;
	}
	for (int k = 0; k < n; k++) {
		esc[0] = '\\';
		esc[1] = 'u';
		for (int d = 0; d < 4; d++)
			esc[2 + d] = hex[(u[k] >> (12 - 4 * d)) & 15];
		put(ctx, esc, 6);
	}
}

void json_escape(const char *str, size_t n, unsigned flags, json_put_fn put, void *ctx)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t len;
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\' &&
		    (c < 0x7f || (c == 0x7f && !(flags & JSON_ESC_ASCII)))) {
			run++;
			i++;
			continue;
		}
		len = c < 0x80 ? 1 : utf8_seq(s + i, n - i);
		if ((flags & JSON_ESC_ASCII) && (len > 1 || c == 0x7f)) {
			put(ctx, (const char *)s + i - run, run);
			run = 0;
			escape_cp(decode_cp(s + i, len), put, ctx);
			i += len;
			continue;
		}
		if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
		    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			put(ctx, (const char *)s + i - run, run);
			run = 0;
			put(ctx, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			i += 3;
			continue;
		}
		if (len > 1 || (len == 0 && (flags & JSON_ESC_KEEP_BYTES))) {
			len = len ? len : 1;
			run += len;
			i += len;
			continue;
		}
		put(ctx, (const char *)s + i - run, run);
		run = 0;
		if (len == 0)
			put(ctx, "\\ufffd", 6);
		else
			put(ctx, esc, escape_ascii(c, esc));
		i++;
	}
	put(ctx, (const char *)s + i - run, run);
}

struct fixed {
	char *dst;
	size_t size, n;
	int full;
};

static void put_fixed(void *ctx, const char *s, size_t n)
{
	struct fixed *f = ctx;

	if (f->full || f->n + n >= f->size) {
		f->full = 1;
		return;
	}
	memcpy(f->dst + f->n, s, n);
	f->n += n;
}

int json_escape_str(char *dst, size_t size, const char *s, unsigned flags)
{
	struct fixed f = {dst, size, 0, 0};

	if (size == 0)
		return -1;
	json_escape(s, strlen(s), flags, put_fixed, &f);
	dst[f.n] = '\0';
	return f.full ? -1 : 0;
}
