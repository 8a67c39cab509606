/*
 * nnst_crc.c - CRC32 of .nnst chunk payloads (nnst.h): zlib's crc32, fed in
 * pieces so that lengths above UINT_MAX are handled.
 *
 * Linked into both the analyzer and
 * libnnscope.so, so it depends on nothing but zlib.
 */
#include "format/nnst.h"

#include <limits.h>
#include <zlib.h>

uint32_t nnst_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uLong c = crc;

	while (len > 0) {
		uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;

		c = crc32(c, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t)c;
}
