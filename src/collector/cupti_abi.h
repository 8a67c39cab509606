/*
 * cupti_abi.h - the part of the CUPTI and CUDA driver ABI the collector's
 * CUPTI backend uses (cupti.c, cupti_records.c, cupti_dev.c), declared by
 * hand so libnnscope.so builds without the CUDA toolkit.
 *
 * Activity records are read by byte offset. The offsets below are those
 * of CUDA 13.0's headers and are the same in every record version CUPTI
 * 12.x and 13.x deliver (kernels: CUpti_ActivityKernel4..Kernel10;
 * memcpy: Memcpy3..6 and MemcpyPtoP2..4; memset: Memset2..4; memory:
 * Memory2..4; API, Synchronization/Synchronization2, ExternalCorrelation).
 * cupti_layout.c proves it with _Static_asserts against the real headers
 * when the Makefile finds them (CUDA_INC), so one decoder serves both
 * CUDA 13 (Kernel10) and a torch-bundled CUPTI 12 (Kernel9).
 */
#ifndef NNS_COLLECTOR_CUPTI_ABI_H
#define NNS_COLLECTOR_CUPTI_ABI_H

#include "common/err.h"
#include "format/nnst.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CUpti_ActivityKind values used */
enum {
	NNS_CK_MEMCPY = 1,
	NNS_CK_MEMSET = 2,
	NNS_CK_DRIVER = 4,
	NNS_CK_RUNTIME = 5,
	NNS_CK_CONCURRENT_KERNEL = 10,
	NNS_CK_MEMCPY2 = 22, /* peer-to-peer copies */
	NNS_CK_SYNCHRONIZATION = 38,
	NNS_CK_EXTERNAL_CORRELATION = 39,
	NNS_CK_MEMORY2 = 49
};

/* CUpti_ActivityThreadIdType: CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM (gettid()
 * on Linux) for cuptiSetThreadIdType. */
#define NNS_CUPTI_THREAD_ID_SYSTEM 1

/* CUptiResult values used */
enum {
	NNS_CUPTI_SUCCESS = 0,
	NNS_CUPTI_ERROR_MAX_LIMIT_REACHED = 12, /* end of a buffer's records */
	NNS_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS = 39
};
#define NNS_CUPTI_FLUSH_FORCED 1u    /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
#define NNS_CUPTI_DOMAIN_DRIVER 1    /* CUPTI_CB_DOMAIN_DRIVER_API */
#define NNS_CUPTI_DOMAIN_RUNTIME 2   /* CUPTI_CB_DOMAIN_RUNTIME_API */
#define NNS_CUPTI_MEMOP_ALLOCATION 1 /* CUpti_ActivityMemoryOperationType */
#define NNS_CUPTI_MEMOP_RELEASE 2
#define NNS_CUPTI_INVALID_ID 0xffffffffu /* CUPTI_INVALID_STREAM_ID etc. */

/* Field offsets (bytes from the record's start) */
enum {
	/* CUpti_ActivityKernel4..10 (sizes 144..216) */
	NNS_KO_REGS = 6, /* uint16_t registersPerThread */
	NNS_KO_START = 16,
	NNS_KO_END = 24,
	NNS_KO_DEVICE = 40,
	NNS_KO_CONTEXT = 44,
	NNS_KO_STREAM = 48,
	NNS_KO_GRID = 52,  /* int32 x, y, z */
	NNS_KO_BLOCK = 64, /* int32 x, y, z */
	NNS_KO_SSMEM = 76, /* int32 staticSharedMemory */
	NNS_KO_DSMEM = 80, /* int32 dynamicSharedMemory */
	NNS_KO_CORR = 92,
	NNS_KO_NAME = 104,  /* const char * */
	NNS_KO_GRAPH = 156, /* uint32 graphId (Kernel5 and later) */
	NNS_K_MIN_SIZE = 160,
	/* CUpti_ActivityMemcpy3..6 / MemcpyPtoP2..4 */
	NNS_MO_COPYKIND = 4, /* uint8 copyKind, srcKind, dstKind */
	NNS_MO_BYTES = 8,
	NNS_MO_START = 16,
	NNS_MO_END = 24,
	NNS_MO_DEVICE = 32,
	NNS_MO_CONTEXT = 36,
	NNS_MO_STREAM = 40,
	NNS_MO_CORR = 44,     /* MEMCPY */
	NNS_MO_P2P_CORR = 60, /* MEMCPY2 (peer to peer) */
	/* CUpti_ActivityMemset2..4 */
	NNS_SO_VALUE = 4,
	NNS_SO_BYTES = 8,
	NNS_SO_START = 16,
	NNS_SO_END = 24,
	NNS_SO_DEVICE = 32,
	NNS_SO_CONTEXT = 36,
	NNS_SO_STREAM = 40,
	NNS_SO_CORR = 44,
	/* CUpti_ActivityAPI (40) */
	NNS_AO_CBID = 4,
	NNS_AO_START = 8,
	NNS_AO_END = 16,
	NNS_AO_PID = 24,
	NNS_AO_TID = 28,
	NNS_AO_CORR = 32,
	/* CUpti_ActivitySynchronization (40) / Synchronization2 (56) */
	NNS_YO_TYPE = 4,
	NNS_YO_START = 8,
	NNS_YO_END = 16,
	NNS_YO_CORR = 24,
	NNS_YO_CONTEXT = 28,
	NNS_YO_STREAM = 32,
	NNS_YO_EVENT = 36,
	/* CUpti_ActivityMemory2..4 */
	NNS_YMO_OP = 4,
	NNS_YMO_CORR = 12,
	NNS_YMO_ADDR = 16,
	NNS_YMO_BYTES = 24,
	NNS_YMO_TIME = 32,
	NNS_YMO_DEVICE = 52,
	NNS_YMO_STREAM = 60,
	/* CUpti_ActivityExternalCorrelation (24) */
	NNS_XO_KIND = 4,
	NNS_XO_ID = 8,
	NNS_XO_CORR = 16
};

/* Sizes of CUDA 13.0's records: the built-in walker (replay without
 * libcupti, unit tests) uses them; the real walk is libcupti's. */
size_t nns_cupti_record_size13(uint32_t kind);

/* CUDA driver attribute numbers (CUdevice_attribute) */
enum {
	NNS_CU_MAX_THREADS_PER_BLOCK = 1,
	NNS_CU_WARP_SIZE = 10,
	NNS_CU_SM_COUNT = 16,
	NNS_CU_MAX_THREADS_PER_SM = 39,
	NNS_CU_CC_MAJOR = 75,
	NNS_CU_CC_MINOR = 76,
	NNS_CU_SMEM_PER_SM = 81,
	NNS_CU_REGS_PER_SM = 82,
	NNS_CU_MAX_BLOCKS_PER_SM = 106
};

/* cuptiActivityGetNextRecord's shape: 0 and *rec set, else an error
 * (NNS_CUPTI_ERROR_MAX_LIMIT_REACHED at the end). */
typedef int (*nns_cupti_next_fn)(uint8_t *buf, size_t valid, void **rec);
/* The built-in walker over CUDA 13.0's record sizes. */
int nns_cupti_next13(uint8_t *buf, size_t valid, void **rec);

/* ---- record conversion: cupti_records.c ----------------------------------- */

#define NNS_CUPTI_CBID_MAX 2048 /* API names cached per domain */
#define NNS_CUPTI_TIDMAP 4096	/* correlation id -> caller tid, for SYNC */
#define NNS_CUPTI_CTXMAP 64	/* context id -> device, for SYNC */

struct nns_cupti_conv {
	/* cuptiGetCallbackName (may be NULL: names become "cbid <n>") */
	int (*cbname)(uint32_t domain, uint32_t cbid, const char **name);
	uint8_t flags;	/* NNST_GPUF_* put on time-stamped records */
	uint32_t *apin; /* [2][NNS_CUPTI_CBID_MAX] name ids, 0 = not yet */
	struct {
		uint32_t corr, tid, pid;
	} tidmap[NNS_CUPTI_TIDMAP]; /* recent API calls by correlation */
	struct {
		uint32_t ctx, device; /* device + 1: 0 = free slot */
	} ctxmap[NNS_CUPTI_CTXMAP];   /* contexts seen on device-side records */
	uint64_t records, skipped;    /* converted, of kinds not recorded */
};

/* The sink converted records go to (nns_gpu_submit in the collector). */
typedef void (*nns_gpu_sink)(void *arg, const struct nnst_gpu *r, size_t n);

int nns_cupti_conv_init(struct nns_cupti_conv *c);
void nns_cupti_conv_release(struct nns_cupti_conv *c);
/* One record into *out: 1 converted, 0 a kind not recorded. Names are
 * interned with nns_name(). */
int nns_cupti_convert(struct nns_cupti_conv *c, const uint8_t *rec, struct nnst_gpu *out);
/* Every record of a completed buffer, walked with next, to sink in
 * batches; returns the records converted. */
size_t nns_cupti_decode(struct nns_cupti_conv *c, uint8_t *buf, size_t valid,
			nns_cupti_next_fn next, nns_gpu_sink sink, void *arg);

/* ---- device properties: cupti_dev.c ---------------------------------------- */

/* NNST_GPU_DEVICE records of up to max devices from the CUDA driver
 * (NNSCOPE_CUDA_LIB, else libcuda.so.1); 0 with the reason in why. */
size_t nns_cupti_devices(struct nnst_gpu *out, size_t max, char *why, size_t whysize);

/* ---- raw buffer dumps: cupti_dump.c ------------------------------------ */

/* NNSCOPE_CUPTI_DUMP=DIR: one file per completed buffer,
 * DIR/cupti_<pid>_<n>.buf: "NNSCUPTI1\n", u32 CUPTI version, u32 the
 * NNST_GPUF_* flags its records get, u64 valid bytes, the bytes, u32 count of kernel names, then
 * per name u32 record offset, u32 length, the bytes (pointers do not survive the process). */
int nns_cupti_dump(const char *path, uint32_t version, uint32_t flags, const uint8_t *buf,
		   size_t valid, nns_cupti_next_fn next);
/* Decodes a dump file through nns_cupti_decode (next NULL: the built-in
 * CUDA 13 walker) with the dump's flags; NNS_EIO / NNS_EFORMAT with a
 * message in err. */
int nns_cupti_replay(const char *path, struct nns_cupti_conv *c, nns_cupti_next_fn next,
		     nns_gpu_sink sink, void *arg, struct nns_err *err);

#endif
