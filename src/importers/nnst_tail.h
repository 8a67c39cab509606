/*
 * nnst_tail.h - following a .nnst trace while its collector writes it
 * (docs/LIVE.md): each poll reads only the bytes appended since the last
 * one and hands over the chunks that are complete by then, in file order.
 *
 * A chunk is returned once its 24-byte header and whole payload are on
 * disk and its CRC matches. A chunk still being written (the file ends
 * inside it) is not an error: its bytes are read again by the next poll,
 * and only those. A damaged chunk (bad magic, length over NNST_MAX_CHUNK,
 * CRC mismatch with the whole payload present) ends the following for good
 * (NNS_ETRUNC, sticky, the message names its byte offset), like
 * nnst_reader. An END chunk marks the trace closed (stats.ended); nothing
 * after it is read. A file that shrinks below what was read (replaced or
 * truncated) is NNS_EFORMAT, sticky: the caller starts over.
 *
 * Memory: one buffer, grown to the largest chunk payload (<= 64 MiB).
 * Ownership: the tail owns its descriptor and buffer; payloads handed to
 * the callback are valid during the call only.
 */
#ifndef NNS_IMPORTERS_NNST_TAIL_H
#define NNS_IMPORTERS_NNST_TAIL_H

#include "common/err.h"
#include "format/nnst.h"

#include <stdint.h>

struct fs_root;
struct nnst_tail;

struct nnst_tail_stats {
	uint64_t offset;     /* bytes consumed: header and complete chunks */
	uint64_t bytes_read; /* bytes read from the file, all polls */
	uint64_t last_bytes; /* bytes read by the last poll */
	uint64_t chunks;     /* chunks handed over */
	uint64_t polls;
	int64_t size;	  /* file size at the last poll */
	int64_t mtime_ns; /* file mtime at the last poll */
	int ended;	  /* an END chunk was read: the trace is closed */
};

/* The callback: NNS_OK to go on, else an error code that ends the poll
 * (returned by nnst_tail_poll; the chunk is consumed). */
typedef int (*nnst_tail_fn)(void *arg, uint32_t type, const uint8_t *payload, uint32_t len);

/* Opens path (beneath root when root is not NULL; refused outside it,
 * common/fs.h). The header is read by the first poll that finds it whole. */
int nnst_tail_open(struct nnst_tail **out, const struct fs_root *root, const char *path,
		   struct nns_err *err);
/* Reads what was appended since the last poll; calls fn for each complete
 * chunk. NNS_OK (also when nothing new came), else an error (above). */
int nnst_tail_poll(struct nnst_tail *t, nnst_tail_fn fn, void *arg, struct nns_err *err);
const struct nnst_tail_stats *nnst_tail_stats(const struct nnst_tail *t);
/* The file's header, NULL until a poll has read it. */
const struct nnst_header *nnst_tail_header(const struct nnst_tail *t);
void nnst_tail_close(struct nnst_tail *t);

#endif
