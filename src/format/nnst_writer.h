/*
 * nnst_writer.h - the writing half of the .nnst format (nnst.h,
 * docs/FORMAT.md), used only by the collector's writer thread.
 *
 * A writer owns one file descriptor: it writes the 64-byte header, then
 * whole chunks (24-byte header with magic, type, length, CRC32 and sequence
 * number, then the payload) with one writev() each, so that a process
 * killed at any moment leaves a file whose complete chunks are all valid.
 * Payloads are given as iovecs and are not copied. Small payloads are
 * assembled in a struct nnst_buf, a fixed-capacity byte buffer allocated
 * once at open.
 *
 * Not thread-safe: one thread writes a given writer. The first write error
 * is sticky (every later call returns NNS_EIO at once).
 * Ownership: the writer owns fd after nnst_writer_init() and closes it in
 * nnst_writer_close().
 */
#ifndef NNS_FORMAT_NNST_WRITER_H
#define NNS_FORMAT_NNST_WRITER_H

#include "common/err.h"
#include "format/nnst.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .nnst writer stores structs as they lie in memory: little-endian hosts only"
#endif

/* Event flags (struct nnst_event.flags), written by this collector. */
enum {
	NNST_EVF_WARMUP = 1 /* recorded during a schedule's warmup steps: not part of a window */
};

/* LOST chunks for losses that belong to no thread (unregistered threads,
 * events discarded after a write error) use this thread index. */
#define NNST_THREAD_PROCESS 0xffffffffu

struct nnst_writer {
	int fd;		 /* -1 when closed */
	uint64_t seq;	 /* sequence number of the next chunk */
	uint64_t offset; /* bytes written so far */
	int failed;	 /* errno of the first failed write, 0 if none */
};

/* A payload being assembled; n never exceeds cap. */
struct nnst_buf {
	uint8_t *p;
	size_t n, cap;
};

/* Fills h for a file opened now by process pid (flags: NNST_F_*). */
void nnst_header_init(struct nnst_header *h, int64_t pid, uint64_t flags, int64_t realtime_ns,
		      int64_t mono_ns, uint64_t tsc);

/* Takes ownership of fd (open for writing, empty) and writes the header.
 * On failure the fd is still owned: call nnst_writer_close(). */
int nnst_writer_init(struct nnst_writer *w, int fd, const struct nnst_header *h,
		     struct nns_err *err);
/* Writes one chunk whose payload is the concatenation of iov[0..niov).
 * The payload must not exceed NNST_MAX_CHUNK. */
int nnst_writer_chunk(struct nnst_writer *w, uint32_t type, const struct iovec *iov, int niov,
		      struct nns_err *err);
/* Same, one contiguous payload (len may be 0). */
int nnst_writer_chunk1(struct nnst_writer *w, uint32_t type, const void *payload, size_t len,
		       struct nns_err *err);
/* Writes the END chunk (the trace was closed cleanly). */
int nnst_writer_end(struct nnst_writer *w, struct nns_err *err);
/* Closes the file descriptor (idempotent). */
void nnst_writer_close(struct nnst_writer *w);

/* Buffers: nnst_buf_init allocates cap bytes (NNS_ENOMEM). */
int nnst_buf_init(struct nnst_buf *b, size_t cap);
void nnst_buf_release(struct nnst_buf *b);
static inline size_t nnst_buf_room(const struct nnst_buf *b)
{
	return b->cap - b->n;
}
/* Appends; returns 0, or -1 (nothing appended) when it does not fit. */
int nnst_buf_put(struct nnst_buf *b, const void *p, size_t n);
int nnst_buf_u32(struct nnst_buf *b, uint32_t v);
int nnst_buf_i64(struct nnst_buf *b, int64_t v);
int nnst_buf_u64(struct nnst_buf *b, uint64_t v);
/* {u32 len, bytes}: all or nothing. */
int nnst_buf_lstr(struct nnst_buf *b, const char *s, size_t len);

/* Payload record helpers: each appends one record or returns -1. */
int nnst_buf_string(struct nnst_buf *b, uint32_t id, const char *s, size_t len);
int nnst_buf_thread(struct nnst_buf *b, uint32_t thread, int64_t tid, const char *name);
int nnst_buf_meta(struct nnst_buf *b, const char *key, const char *value);

#endif
