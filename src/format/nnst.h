/*
 * nnst.h - the .nnst trace format nnscope's collector writes and its
 * importer reads (specification: docs/FORMAT.md).
 *
 * A file is a 64-byte header followed by self-delimiting chunks. Each chunk
 * has a 24-byte header with a magic, a type, the payload length and a CRC32
 * of the payload, so a reader can stop cleanly at the first incomplete or
 * damaged chunk: a run killed mid-write stays readable up to its last
 * complete chunk. All integers are little-endian.
 *
 * Writer (collector side, no allocation after open, no analyzer code) and
 * reader (analysis side) share these definitions.
 */
#ifndef NNS_FORMAT_NNST_H
#define NNS_FORMAT_NNST_H

#include <stddef.h>
#include <stdint.h>

#define NNST_MAGIC "NNSTRACE"	     /* 8 bytes at offset 0 */
#define NNST_VERSION 1		     /* this writer */
#define NNST_MIN_VERSION 1	     /* oldest reader that can read it */
#define NNST_CHUNK_MAGIC 0x4b434e4eu /* "NNCK" */
#define NNST_MAX_CHUNK (64u << 20)   /* a reader refuses larger payloads */
#define NNST_HEADER_SIZE 64	     /* bytes of struct nnst_header in the file */
#define NNST_HEADER_MAX (1u << 20)   /* a larger header_size is not a header */
#define NNST_CHUNK_HEADER_SIZE 24    /* bytes of struct nnst_chunk_header */

struct nnst_header { /* 64 bytes */
	char magic[8];
	uint16_t version;
	uint16_t min_version;
	uint32_t header_size; /* 64 */
	int64_t pid;
	int64_t start_realtime_ns; /* CLOCK_REALTIME at open */
	int64_t start_mono_ns;	   /* CLOCK_MONOTONIC at open */
	uint64_t start_tsc;	   /* raw timestamp counter at open */
	uint64_t flags;		   /* NNST_F_* */
	uint64_t reserved;
};

enum { NNST_F_TSC = 1 /* timestamps are raw TSC ticks (else CLOCK_MONOTONIC ns) */ };

struct nnst_chunk_header { /* 24 bytes */
	uint32_t magic;	   /* NNST_CHUNK_MAGIC */
	uint32_t type;	   /* enum nnst_chunk_type */
	uint32_t length;   /* payload bytes */
	uint32_t crc32;	   /* of the payload (zlib polynomial) */
	uint64_t seq;	   /* chunk sequence number, from 0 */
};

enum nnst_chunk_type {
	NNST_CHUNK_STRINGS = 1,	 /* repeated {u32 id, u32 len, bytes[len]} */
	NNST_CHUNK_THREAD = 2,	 /* repeated {u32 thread, i64 tid, u32 name_len, name} */
	NNST_CHUNK_EVENTS = 3,	 /* {u32 thread, u32 count} then count x struct nnst_event */
	NNST_CHUNK_CLOCK = 4,	 /* repeated struct nnst_clock: tsc <-> ns calibration points */
	NNST_CHUNK_META = 5,	 /* repeated {u32 klen, key, u32 vlen, value} */
	NNST_CHUNK_SAMPLES = 6,	 /* repeated struct nnst_sample (CPU/memory samplers) */
	NNST_CHUNK_LOST = 7,	 /* {u32 thread, u64 lost} events dropped so far */
	NNST_CHUNK_END = 8,	 /* empty: the trace was closed cleanly */
	NNST_CHUNK_GPU = 9,	 /* repeated struct nnst_gpu (CUPTI activity, NCCL collectives) */
	NNST_CHUNK_GPUCLOCK = 10 /* repeated struct nnst_gpuclock: CUPTI clock <-> raw ts */
};

/* One event, 32 bytes. ts is raw (see header flags); a/b by type. */
struct nnst_event {
	uint64_t ts;
	uint32_t name; /* string id, 0 = none */
	uint8_t type;  /* enum nnst_event_type */
	uint8_t flags;
	int16_t device; /* memory events: -1 host, else device id */
	uint64_t a;
	uint64_t b;
};

enum nnst_event_type {
	NNST_EV_PUSH = 1,      /* range begin on this thread, name */
	NNST_EV_POP = 2,       /* end of the innermost open range */
	NNST_EV_BEGIN = 3,     /* cross-thread range begin, a = handle */
	NNST_EV_END = 4,       /* cross-thread range end, a = handle */
	NNST_EV_MARK = 5,      /* instant, name */
	NNST_EV_COUNTER = 6,   /* name, a = double bits of the value */
	NNST_EV_FLOW = 7,      /* name, a = id, b = phase char */
	NNST_EV_ALLOC = 8,     /* a = ptr, b = bytes; device */
	NNST_EV_FREE = 9,      /* a = ptr, b = bytes; device */
	NNST_EV_MEMTOTAL = 10, /* follows ALLOC/FREE: a = total allocated, b = total reserved
				  (int64, -1 unknown) */
	NNST_EV_QUEUE = 11,    /* name = queue, a = size, b = capacity */
	NNST_EV_STEP = 12,     /* step boundary, a = step number that begins */
	NNST_EV_START = 13,    /* collection (re)started */
	NNST_EV_STOP = 14      /* collection stopped */
};

struct nnst_clock { /* 24 bytes */
	uint64_t tsc;
	int64_t mono_ns;
	int64_t realtime_ns;
};

enum nnst_sample_kind {
	NNST_SAMPLE_MACHINE = 1, /* whole machine from /proc/stat */
	NNST_SAMPLE_PROCESS = 2, /* this process from /proc/self/stat, status */
	NNST_SAMPLE_THREAD = 3	 /* one thread from /proc/self/task/<tid>/stat */
};

struct nnst_sample { /* 64 bytes; utilizations in percent */
	int64_t mono_ns;
	int64_t tid;   /* thread samples: the tid, else 0 */
	uint32_t kind; /* enum nnst_sample_kind */
	float user, sys, idle, iowait;
	uint32_t running;      /* machine: runnable processes */
	uint64_t ctx_switches; /* machine: since the previous sample */
	uint64_t rss_kb;       /* process: VmRSS */
	uint64_t reserved;
};

/* One GPU-side record, 80 bytes (docs/FORMAT.md "GPU records"). start/end
 * are raw timestamps of the trace (like nnst_event.ts) when flags has
 * NNST_GPUF_HOSTCLOCK, else CUPTI timestamps (ns) that GPUCLOCK points map
 * to raw timestamps. u, a, b by type. */
struct nnst_gpu {
	uint64_t start;
	uint64_t end;
	uint32_t name; /* string id: kernel, API function, device, collective */
	uint8_t type;  /* enum nnst_gpu_type */
	uint8_t flags; /* NNST_GPUF_* */
	int16_t device;
	uint32_t corr;	 /* CUPTI correlation id, 0 = none */
	uint32_t stream; /* CUDA stream id (device-side records), else 0 */
	uint64_t a;
	uint64_t b;
	uint32_t u[8];
};

enum nnst_gpu_type {
	/* a = dynamic shared memory bytes; b = CUDA graph id (0 none);
	 * u = grid x,y,z, block x,y,z, registers per thread, static shared bytes */
	NNST_GPU_KERNEL = 1,
	/* a = bytes; u[0] = CUpti_ActivityMemcpyKind, u[1] = src, u[2] = dst
	 * CUpti_ActivityMemoryKind */
	NNST_GPU_MEMCPY = 2,
	NNST_GPU_MEMSET = 3, /* a = bytes; u[0] = value */
	/* host-side API calls: a = OS tid of the caller, b = pid; u[0] = cbid */
	NNST_GPU_RUNTIME = 4,
	NNST_GPU_DRIVER = 5,
	/* name = "cudaStreamSynchronize"-like; a = tid, b = pid; u[0] =
	 * CUpti_ActivitySynchronizationType, u[1] = CUDA event id (0 none) */
	NNST_GPU_SYNC = 6,
	/* device memory (cudaMalloc level), start = end = time: a = address,
	 * b = bytes; u[0] = 1 alloc, 2 free */
	NNST_GPU_MEMORY = 7,
	/* device properties, start = end = 0, name = device name: a = total
	 * global memory bytes, b = shared memory per SM bytes; u = major, minor,
	 * SMs, max threads per SM, max threads per block, registers per SM,
	 * warp size, max blocks per SM */
	NNST_GPU_DEVICE = 8,
	/* an NCCL collective (profiler plugin), host clock: name = function
	 * ("AllReduce"); a = element count, b = communicator hash; u[0..2] =
	 * string ids of datatype, algorithm, protocol; u[3] = rank, u[4] =
	 * number of ranks, u[5] = root, u[6] = NCCL sequence number, u[7] = OS
	 * tid of the thread that started it */
	NNST_GPU_COLL = 9,
	/* an external correlation: corr = CUPTI correlation id, a = external
	 * id, u[0] = CUpti_ExternalCorrelationKind */
	NNST_GPU_EXTCORR = 10
};

enum {
	NNST_GPUF_HOSTCLOCK = 1 /* start/end are the trace's raw timestamps */
};

struct nnst_gpuclock {	 /* 16 bytes: one reading of both clocks */
	uint64_t gpu_ns; /* cuptiGetTimestamp() */
	uint64_t raw;	 /* the trace's raw timestamp at the same moment */
};

/* ---- reader (analysis side) ---------------------------------------------- */

struct nnst_reader;

/* Opens a .nnst file; NNS_EIO / NNS_EFORMAT with a message in err. */
int nnst_reader_open(struct nnst_reader **out, const char *path, char *err, size_t errlen);
/* The same on an open descriptor, read from its current offset; the
 * reader owns fd from then on (nnst_reader_close closes it, a failure
 * closes it too). */
int nnst_reader_fdopen(struct nnst_reader **out, int fd, char *err, size_t errlen);
const struct nnst_header *nnst_reader_header(const struct nnst_reader *r);
/* Decodes and checks the file header in b[0..got): NNS_OK, or
 * NNS_EFORMAT with a message (no magic, cut short, a newer format, a bad
 * version or header_size). */
int nnst_header_parse(struct nnst_header *h, const uint8_t *b, size_t got, char *err,
		      size_t errlen);
/* Next chunk: 1 and *type, *payload, *len (valid until the next call), 0 at a
 * clean end, NNS_ETRUNC when the file stops inside a chunk or a chunk is
 * damaged (err says at which byte offset). */
int nnst_reader_next(struct nnst_reader *r, uint32_t *type, const uint8_t **payload, uint32_t *len,
		     char *err, size_t errlen);
void nnst_reader_close(struct nnst_reader *r);

/* Converts a raw timestamp to CLOCK_MONOTONIC ns with the calibration
 * points seen (linear interpolation between the two nearest points,
 * extrapolation beyond). */
struct nnst_clockmap {
	struct nnst_clock *pts;
	size_t n, cap;
	int tsc; /* header flag NNST_F_TSC */
};
int nnst_clockmap_add(struct nnst_clockmap *c, const struct nnst_clock *pt);
int64_t nnst_clockmap_ns(const struct nnst_clockmap *c, uint64_t ts);
void nnst_clockmap_release(struct nnst_clockmap *c);

/* CRC32 (zlib polynomial) used by chunks. */
uint32_t nnst_crc32(uint32_t crc, const void *buf, size_t len);

#endif
