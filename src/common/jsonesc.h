/*
 * jsonesc.h - the one JSON string escaper.
 *
 * json_escape() writes the body of a JSON string (no quotes) for the bytes
 * s[0..n) through put(ctx, bytes, len), in runs: '"' and '\\' are escaped,
 * control characters as \n \t \r \b \f or \u00XX, and U+2028 / U+2029 as
 * \u2028 / \u2029 (valid JSON that breaks JavaScript). Bytes that are not
 * valid UTF-8 become \ufffd, so the output is valid UTF-8 JSON, unless
 * JSON_ESC_KEEP_BYTES is set: then they pass through unchanged, for text
 * that must read back byte for byte (a file path given to the collector).
 *
 * json_escape_str() is the same into dst[size], NUL-terminated; it returns
 * 0, or -1 when the text did not fit (dst then holds the escapes that fit
 * whole).
 */
#ifndef NNS_COMMON_JSONESC_H
#define NNS_COMMON_JSONESC_H

#include <stddef.h>

/* JSON_ESC_ASCII: as Python's json.dumps (ensure_ascii): every byte outside
 * ' '..'~' escaped, non-ASCII characters as \uXXXX (a surrogate pair above
 * U+FFFF), DEL as \u007f. */
enum { JSON_ESC_KEEP_BYTES = 1, JSON_ESC_ASCII = 2 };

typedef void (*json_put_fn)(void *ctx, const char *s, size_t n);

void json_escape(const char *s, size_t n, unsigned flags, json_put_fn put, void *ctx);
int json_escape_str(char *dst, size_t size, const char *s, unsigned flags);

/* Length of the valid UTF-8 sequence at s (n >= 1 bytes left), 0 if the
 * bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF). */
size_t utf8_seq(const unsigned char *s, size_t n);

#endif
