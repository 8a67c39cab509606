/*
 * le.h - little-endian reads of fixed-width integers from a byte pointer.
 *
 * The .nnst format stores every integer little-endian. These read byte by
 * byte, so they work at any alignment and on any host. The caller checks
 * the bounds: p must have 2, 4 or 8 readable bytes.
 */
#ifndef NNS_COMMON_LE_H
#define NNS_COMMON_LE_H

#include <stdint.h>

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

#endif
