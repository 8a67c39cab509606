/*
 * nnstb.h - building .nnst files byte by byte in tests (the reader's and
 * importer's unit tests): a header, chunks with their CRC32, and payload
 * records, all little-endian, independent of the collector's writer so
 * the tests check the format as documented (src/format/nnst.h).
 */
#ifndef NNS_TESTS_NNSTB_H
#define NNS_TESTS_NNSTB_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer (aborts the test process when out of memory). */
struct nb {
	uint8_t *p;
	size_t n, cap;
	uint64_t seq; /* next chunk sequence number */
};

void nb_free(struct nb *b);
void nb_bytes(struct nb *b, const void *s, size_t n);
void nb_u16(struct nb *b, uint16_t v);
void nb_u32(struct nb *b, uint32_t v);
void nb_u64(struct nb *b, uint64_t v);
void nb_f32(struct nb *b, float v);

/* The 64-byte header (version 1, min_version 1, header_size 64). */
void nb_header(struct nb *b, int64_t pid, uint64_t flags, int64_t realtime_ns, int64_t mono_ns,
	       uint64_t tsc);
/* Any header fields (header_size > 64 pads with zeros). */
void nb_header_ex(struct nb *b, uint16_t version, uint16_t min_version, uint32_t header_size,
		  int64_t pid, uint64_t flags, int64_t realtime_ns, int64_t mono_ns, uint64_t tsc);
/* A chunk: 24-byte header (magic, type, length, CRC32, seq) + payload. */
void nb_chunk(struct nb *b, uint32_t type, const void *payload, size_t len);

/* One-record chunks. */
void nb_string(struct nb *b, uint32_t id, const char *s);
void nb_thread(struct nb *b, uint32_t thread, int64_t tid, const char *name);
void nb_clock(struct nb *b, uint64_t tsc, int64_t mono_ns, int64_t realtime_ns);
void nb_meta(struct nb *b, const char *key, const char *value);
void nb_lost(struct nb *b, uint32_t thread, uint64_t lost);
void nb_end(struct nb *b);

/* An event (32 bytes) appended to an events payload. */
void nb_ev(struct nb *payload, uint64_t ts, uint8_t type, uint8_t flags, uint32_t name,
	   int16_t device, uint64_t a, uint64_t bb);
/* An EVENTS chunk of thread from a payload built with nb_ev (count from its size). */
void nb_events(struct nb *b, uint32_t thread, const struct nb *payload);
/* A SAMPLES record appended to a payload. */
void nb_sample(struct nb *payload, int64_t mono_ns, int64_t tid, uint32_t kind, float user,
	       float sys, float idle, float iowait, uint32_t running, uint64_t ctx, uint64_t rss);

/* Writes b[0..n) to path; 0 on success. */
int nb_write(const struct nb *b, const char *path, size_t n);
/* A temporary file name under /tmp (mkstemp), into buf. */
void nb_tmpname(char *buf, size_t size);

#endif
