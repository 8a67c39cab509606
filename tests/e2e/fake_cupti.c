/*
 * fake_cupti.c - a stand-in for libcupti.so and libcuda.so.1 together, for
 * tests/e2e/cupti_inject.sh (owner: the collector's tests). Loaded through
 * NNSCOPE_CUPTI_LIB and NNSCOPE_CUDA_LIB (one file for both), it exports
 * the CUPTI calls src/collector/cupti.c resolves and the driver calls of
 * cupti_dev.c, and a hook, fake_cupti_launch(), that tests/e2e/cuda_app.c
 * calls where a CUDA program would launch work: it writes what CUPTI
 * would, in CUDA 13.0's record layouts (cupti_activity.h; offsets written
 * out below): a runtime API record (cudaLaunchKernel_v7000, cbid 211, the
 * caller's thread id and pid, a new correlation id) and a kernel record
 * (CUpti_ActivityKernel10, same correlation id), plus, for a copy, a
 * runtime record (cudaMemcpy_v3020, cbid 31) and a CUpti_ActivityMemcpy6.
 * Timestamps come from the registered timestamp callback when there is
 * one, else CLOCK_REALTIME (CUPTI's default on Linux). Thread ids, as real
 * CUPTI writes them: the low 32 bits of pthread_self() by default, the
 * system tid (gettid) after cuptiSetThreadIdType(1).
 *
 * Buffers: records go into the buffer the client's request callback gave;
 * it is handed back (completion callback) when FAKE_CUPTI_BUF_RECORDS
 * records are in it (default: never), when the next record does not fit,
 * or at cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
 * cuptiActivityFlushAll(0) returns nothing (records still "in flight"),
 * so by default only a forced flush delivers them.
 * Environment: FAKE_CUPTI_SUBSCRIBED=1 makes cuptiSubscribe fail with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (39); FAKE_CUPTI_NO_TS=1
 * makes cuptiActivityRegisterTimestampCallback fail; FAKE_CUPTI_DROPPED=k
 * makes cuptiActivityGetNumDroppedRecords report k for every buffer;
 * FAKE_CUPTI_LOG=FILE appends one line per call of interest (subscribe,
 * register_ts, enable K, flush F, unsubscribe, delivered N);
 * FAKE_CUDA_COUNT=n devices (default 2): device i is "Fake GPU i",
 * 80 GiB + i bytes, compute capability 9.0, 132 SMs, 2048 threads per SM,
 * 1024 per block, 65536 registers per SM, warp 32, 32 blocks per SM,
 * 233472 bytes of shared memory per SM.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void (*req_fn)(uint8_t **buf, size_t *size, size_t *max_records);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid);

/* exported (prototypes for -Wmissing-prototypes) */
int cuptiSubscribe(void **sub, void *cb, void *userdata);
int cuptiUnsubscribe(void *sub);
int cuptiActivityRegisterCallbacks(req_fn req, done_fn done);
int cuptiActivityRegisterTimestampCallback(uint64_t (*cb)(void));
int cuptiActivityEnable(uint32_t kind);
int cuptiActivityDisable(uint32_t kind);
int cuptiActivityFlushAll(uint32_t flag);
int cuptiActivityFlushPeriod(uint32_t ms);
int cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, void **rec);
int cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *n);
int cuptiGetTimestamp(uint64_t *ts);
int cuptiGetCallbackName(uint32_t domain, uint32_t cbid, const char **name);
int cuptiGetVersion(uint32_t *v);
int cuptiSetThreadIdType(int type);
int cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t enable);
int cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable);
int cuInit(unsigned flags);
int cuDeviceGetCount(int *n);
int cuDeviceGet(int *dev, int ordinal);
int cuDeviceGetName(char *name, int len, int dev);
int cuDeviceTotalMem_v2(size_t *bytes, int dev);
int cuDeviceGetAttribute(int *v, int attr, int dev);
int fake_cupti_launch(const char *kernel, uint32_t grid, uint32_t block, uint64_t copy_bytes);

static struct {
	pthread_mutex_t mu;
	int subscribed;
	req_fn req;
	done_fn done;
	uint64_t (*ts)(void);
	uint64_t enabled; /* kinds < 64 */
	uint8_t *buf;
	size_t size, used, nrec;
	uint32_t corr;
	int system_tid;	    /* cuptiSetThreadIdType(1) was called */
	int get_device_off; /* cuptiActivityEnableRuntimeApi(17, 0) was called */
} F = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void logf_(const char *fmt, long v)
{
	const char *path = getenv("FAKE_CUPTI_LOG");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, fmt, v);
	fputc('\n', f);
	fclose(f);
}

static uint64_t now(void)
{
	struct timespec t;

	if (F.ts)
		return F.ts();
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int cuptiSubscribe(void **sub, void *cb, void *userdata)
{
	const char *busy = getenv("FAKE_CUPTI_SUBSCRIBED");

	(void)cb;
	(void)userdata;
	if ((busy && strcmp(busy, "1") == 0) || F.subscribed)
		return 39;
	F.subscribed = 1;
	*sub = &F;
	logf_("subscribe", 0);
	return 0;
}

int cuptiUnsubscribe(void *sub)
{
	(void)sub;
	F.subscribed = 0;
	logf_("unsubscribe", 0);
	return 0;
}

int cuptiActivityRegisterCallbacks(req_fn req, done_fn done)
{
	F.req = req;
	F.done = done;
	return 0;
}

int cuptiActivityRegisterTimestampCallback(uint64_t (*cb)(void))
{
	const char *no = getenv("FAKE_CUPTI_NO_TS");

	if (no && strcmp(no, "1") == 0)
		return 1; /* CUPTI_ERROR_INVALID_PARAMETER */
	F.ts = cb;
	logf_("register_ts", 0);
	return 0;
}

int cuptiActivityEnable(uint32_t kind)
{
	if (kind >= 64)
		return 1;
	F.enabled |= 1ull << kind;
	logf_("enable %ld", kind);
	return 0;
}

int cuptiActivityDisable(uint32_t kind)
{
	if (kind < 64)
		F.enabled &= ~(1ull << kind);
	return 0;
}

/* Takes the current buffer out (caller holds mu); deliver outside it. */
static uint8_t *take_locked(size_t *valid, size_t *n)
{
	uint8_t *b = F.buf;

	*valid = F.used;
	*n = F.nrec;
	F.buf = NULL;
	F.used = F.size = F.nrec = 0;
	return b;
}

static void deliver(uint8_t *b, size_t valid, size_t n)
{
	if (!b)
		return;
	logf_("delivered %ld", (long)n);
	F.done(NULL, 0, b, 4u << 20, valid);
}

int cuptiActivityFlushAll(uint32_t flag)
{
	uint8_t *b = NULL;
	size_t valid = 0, n = 0;

	logf_("flush %ld", flag);
	if (!(flag & 1))
		return 0;
	pthread_mutex_lock(&F.mu);
	b = take_locked(&valid, &n);
	pthread_mutex_unlock(&F.mu);
	deliver(b, valid, n);
	return 0;
}

int cuptiActivityFlushPeriod(uint32_t ms)
{
	(void)ms;
	return 0;
}

static size_t rec_size(uint32_t kind)
{
	switch (kind) {
	case 10:
		return 216; /* CUpti_ActivityKernel10 */
	case 1:
		return 96; /* CUpti_ActivityMemcpy6 */
	case 5:
	case 4:
		return 40; /* CUpti_ActivityAPI */
	default:
		return 0;
	}
}

int cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = 0;
	uint32_t kind;

	if (*rec) {
		memcpy(&kind, *rec, 4);
		off = (size_t)((uint8_t *)*rec - buf) + rec_size(kind);
	}
	if (off + 4 > valid)
		return 12; /* CUPTI_ERROR_MAX_LIMIT_REACHED */
	memcpy(&kind, buf + off, 4);
	if (!rec_size(kind) || off + rec_size(kind) > valid)
		return 12;
	*rec = buf + off;
	return 0;
}

int cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *n)
{
	const char *d = getenv("FAKE_CUPTI_DROPPED");

	(void)ctx;
	(void)stream;
	*n = d ? strtoul(d, NULL, 10) : 0;
	return 0;
}

int cuptiGetTimestamp(uint64_t *ts)
{
	*ts = now();
	return 0;
}

/* Per-call API filters (CUPTI 12.x+): logged; cudaGetDevice (17) is the
 * one the fake emits (a record before each launch while the runtime kind
 * is on). FAKE_CUPTI_NO_API_FILTER=1 answers "not supported". */
int cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t enable)
{
	if (getenv("FAKE_CUPTI_NO_API_FILTER"))
		return 1;
	logf_(enable ? "runtime_api_on %ld" : "runtime_api_off %ld", (long)cbid);
	if (cbid == 17) {
		pthread_mutex_lock(&F.mu);
		F.get_device_off = !enable;
		pthread_mutex_unlock(&F.mu);
	}
	return 0;
}

int cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable)
{
	if (getenv("FAKE_CUPTI_NO_API_FILTER"))
		return 1;
	logf_(enable ? "driver_api_on %ld" : "driver_api_off %ld", (long)cbid);
	return 0;
}

int cuptiGetCallbackName(uint32_t domain, uint32_t cbid, const char **name)
{
	if (domain == 2 && cbid == 17)
		*name = "cudaGetDevice_v3020";
	else if (domain == 2 && cbid == 211)
		*name = "cudaLaunchKernel_v7000";
	else if (domain == 2 && cbid == 31)
		*name = "cudaMemcpy_v3020";
	else if (domain == 1 && cbid == 307)
		*name = "cuLaunchKernel";
	else
		return 1;
	return 0;
}

int cuptiGetVersion(uint32_t *v)
{
	*v = 130001;
	return 0;
}

int cuptiSetThreadIdType(int type)
{
	if (type != 0 && type != 1)
		return 1; /* CUPTI_ERROR_INVALID_PARAMETER */
	F.system_tid = type;
	return 0;
}

/* ---- records ---------------------------------------------------------------- */

static void put32(uint8_t *r, size_t off, uint32_t v)
{
	memcpy(r + off, &v, 4);
}

static void put64(uint8_t *r, size_t off, uint64_t v)
{
	memcpy(r + off, &v, 8);
}

/* Buffers filled during one launch, delivered after the lock is dropped. */
struct full {
	uint8_t *b[4];
	size_t valid[4], n[4], k;
};

/* Room for sz bytes in the current buffer (caller holds mu); a buffer
 * that is full goes to f. NULL when the client gave no buffer. */
static uint8_t *room_locked(size_t sz, struct full *f)
{
	const char *lim = getenv("FAKE_CUPTI_BUF_RECORDS");
	size_t max = lim ? strtoul(lim, NULL, 10) : 0;
	uint8_t *r;

	if (F.buf && (F.used + sz > F.size || (max && F.nrec >= max)) && f->k < 4) {
		f->b[f->k] = take_locked(&f->valid[f->k], &f->n[f->k]);
		f->k++;
	}
	if (!F.buf) {
		size_t maxrec = 0;

		F.req(&F.buf, &F.size, &maxrec);
		F.used = F.nrec = 0;
	}
	if (!F.buf || F.used + sz > F.size)
		return NULL;
	r = F.buf + F.used;
	memset(r, 0, sz);
	F.used += sz;
	F.nrec++;
	return r;
}

static void api_record(uint8_t *r, uint32_t cbid, uint32_t corr, uint64_t t0, uint64_t t1)
{
	put32(r, 0, 5); /* CUPTI_ACTIVITY_KIND_RUNTIME */
	put32(r, 4, cbid);
	put64(r, 8, t0);
	put64(r, 16, t1);
	put32(r, 24, (uint32_t)getpid());
	put32(r, 28,
	      F.system_tid ? (uint32_t)syscall(SYS_gettid) : (uint32_t)(uintptr_t)pthread_self());
	put32(r, 32, corr);
}

static void kernel_record(uint8_t *r, const char *kernel, uint32_t grid, uint32_t block,
			  uint32_t corr, uint64_t t0)
{
	uint16_t regs = 32;

	put32(r, 0, 10); /* CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL */
	memcpy(r + 6, &regs, 2);
	put64(r, 16, t0 + 1000);
	put64(r, 24, t0 + 3000);
	put32(r, 40, 0);    /* deviceId */
	put32(r, 48, 7);    /* streamId */
	put32(r, 52, grid); /* gridX, Y, Z */
	put32(r, 56, 1);
	put32(r, 60, 1);
	put32(r, 64, block); /* blockX, Y, Z */
	put32(r, 68, 1);
	put32(r, 72, 1);
	put32(r, 76, 256); /* staticSharedMemory */
	put32(r, 80, 0);   /* dynamicSharedMemory */
	put32(r, 92, corr);
	memcpy(r + 104, &kernel, sizeof(kernel));
}

static void memcpy_record(uint8_t *r, uint64_t bytes, uint32_t corr, uint64_t t0)
{
	put32(r, 0, 1); /* CUPTI_ACTIVITY_KIND_MEMCPY */
	r[4] = 1;	/* copyKind HTOD */
	r[5] = 2;	/* srcKind PINNED */
	r[6] = 3;	/* dstKind DEVICE */
	put64(r, 8, bytes);
	put64(r, 16, t0 + 100);
	put64(r, 24, t0 + 700);
	put32(r, 32, 0); /* deviceId */
	put32(r, 40, 8); /* streamId */
	put32(r, 44, corr);
}

int fake_cupti_launch(const char *kernel, uint32_t grid, uint32_t block, uint64_t copy_bytes)
{
	struct full f = {{NULL}, {0}, {0}, 0};
	uint8_t *r;
	int ok = 1;

	pthread_mutex_lock(&F.mu);
	if ((F.enabled & (1ull << 5)) && !F.get_device_off) { /* RUNTIME: PyTorch's cudaGetDevice */
		uint64_t t0 = now();

		if ((r = room_locked(40, &f)))
			api_record(r, 17, ++F.corr, t0, now());
	}
	if (F.enabled & (1ull << 10)) { /* CONCURRENT_KERNEL */
		uint32_t corr = ++F.corr;
		uint64_t t0 = now();
		/* the API record ends when the call returns, as CUPTI's does
		 * (a fixed 500 ns outlasted the caller's range on a fast
		 * machine): its room first, filled last */
		uint8_t *api = room_locked(40, &f);

		if ((r = room_locked(216, &f)))
			kernel_record(r, kernel, grid, block, corr, t0);
		if (api)
			api_record(api, 211, corr, t0, now());
		ok = r != NULL;
	}
	if (copy_bytes && (F.enabled & (1ull << 1))) { /* MEMCPY */
		uint32_t corr = ++F.corr;
		uint64_t t0 = now();

		uint8_t *api = room_locked(40, &f);

		if ((r = room_locked(96, &f)))
			memcpy_record(r, copy_bytes, corr, t0);
		if (api)
			api_record(api, 31, corr, t0, now());
		ok = ok && r != NULL;
	}
	pthread_mutex_unlock(&F.mu);
	for (size_t i = 0; i < f.k; i++)
		deliver(f.b[i], f.valid[i], f.n[i]);
	return ok ? 0 : -1;
}

/* ---- driver -------------------------------------------------------------------- */

static int count(void)
{
	const char *s = getenv("FAKE_CUDA_COUNT");

	return s ? atoi(s) : 2;
}

int cuInit(unsigned flags)
{
	(void)flags;
	return 0;
}

int cuDeviceGetCount(int *n)
{
	*n = count();
	return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
	if (ordinal < 0 || ordinal >= count())
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*dev = ordinal;
	return 0;
}

int cuDeviceGetName(char *name, int len, int dev)
{
	snprintf(name, (size_t)len, "Fake GPU %d", dev);
	return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
	*bytes = (80ull << 30) + (size_t)dev;
	return 0;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	switch (attr) {
	case 75:
		*v = 9;
		break; /* compute capability major */
	case 76:
		*v = 0;
		break; /* minor */
	case 16:
		*v = 132;
		break; /* SMs */
	case 39:
		*v = 2048;
		break; /* max threads per SM */
	case 1:
		*v = 1024;
		break; /* max threads per block */
	case 82:
		*v = 65536;
		break; /* registers per SM */
	case 10:
		*v = 32;
		break; /* warp size */
	case 106:
		*v = 32;
		break; /* max blocks per SM */
	case 81:
		*v = 233472;
		break; /* shared memory per SM */
	default:
		return 1;
	}
	return 0;
}
