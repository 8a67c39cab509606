/*
 * cupti.c - the CUPTI backend: GPU activity (kernels, copies, memsets,
 * runtime and driver API calls, synchronisation, device memory, external
 * correlations) recorded through CUPTI's activity API and handed to the
 * current profiler's writer as GPU records (gpu_out.c). cupti_records.c converts, cupti_dump.c
 * saves buffers, cupti_dev.c reads device properties, this file owns the lifecycle.
 *
 * Entry points:
 *   InitializeInjection()  libcuda calls it for CUDA_INJECTION64_PATH
 *                          (`nnscope run` points that at libnnscope.so);
 *                          starts collection when a profiler exists.
 *   nns_cupti_enable()     the same from the API (in-process use, e.g.
 *                          the Python module on CUDA).
 *   nns_cupti_flush()      forced flush (nns_stop), nns_cupti_detach()
 *                          final flush + unsubscribe (nns_destroy of the
 *                          current profiler), an atexit handler (the
 *                          final flush before libcupti goes away),
 *                          nns_cupti_tick() (the writer thread: a CUPTI
 *                          clock point about every second, device
 *                          records once).
 * libcupti is loaded with dlopen (NNSCOPE_CUPTI_LIB, else one the process
 * already loaded (RTLD_NOLOAD: PyTorch's own), else libcupti.so.13,
 * .12, libcupti.so, also under /usr/local/cuda/extras/CUPTI/lib64 and
 * /usr/local/cuda/lib64), never linked. Nothing is printed: META "cupti"
 * says "collecting (...)" or "unavailable: <why>" (another subscriber
 * such as torch.profiler or Nsight, no library, a symbol missing).
 *
 * Clocks: when CUPTI has cuptiActivityRegisterTimestampCallback (and
 * NNSCOPE_CUPTI_HOSTCLOCK is not 0) it is given the collector's raw clock
 * (tsc.h) and records carry NNST_GPUF_HOSTCLOCK. CUPTI's header asks for
 * nanoseconds; the raw clock is the TSC on x86-64 (as Kineto passes its
 * TSC clock): CUPTI maps GPU time to it by linear interpolation, so the
 * unit does not matter there. GPUCLOCK points are written in every case.
 *
 * Process-wide state: CUPTI allows one subscriber per process and its
 * buffer callbacks carry no context, so the backend is one static struct
 * (cu below). Locks: cu.mu is a leaf (state, buffer pool, counters; never
 * held while calling CUPTI or the collector); cu.call_mu serialises the
 * library's own CUPTI calls (enable, the writer's tick and flush, detach,
 * the exit handler), so the writer is never inside libcupti when the exit
 * handler marks CUPTI gone; cu.conv_mu serialises decoding (completion
 * callbacks may come from CUPTI's worker and from a flushing thread at
 * once) and is taken before reg_mu (it calls nns_gpu_submit):
 * life_mu -> call_mu -> conv_mu -> reg_mu. Nobody calls into CUPTI
 * holding reg_mu or a profiler's mu.
 * NNSCOPE_CUPTI_DUMP=DIR saves each completed buffer (cupti_abi.h);
 * NNSCOPE_CUPTI_KINDS=kernel,memcpy,... enables only the kinds named.
 */
#include "collector/cupti_abi.h"
#include "collector/collector.h"
#include "collector/tsc.h"
#include "common/fs.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_BYTES (4u << 20) /* one activity buffer */
#define POOL_KEEP 4	     /* free buffers kept for reuse */
#define BUFS_MAX 32	     /* buffers out at once (128 MiB): beyond, CUPTI drops */

typedef void (*req_fn)(uint8_t **buf, size_t *size, size_t *max_records);
typedef void (*done_fn)(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid);

struct cupti_fns {
	int (*subscribe)(void **sub, void *cb, void *userdata);
	int (*unsubscribe)(void *sub);
	int (*register_cbs)(req_fn, done_fn);
	int (*enable)(uint32_t kind);
	int (*disable)(uint32_t kind);
	int (*flush_all)(uint32_t flag);
	int (*next)(uint8_t *buf, size_t valid, void **rec);
	int (*dropped)(void *ctx, uint32_t stream, size_t *n);
	int (*timestamp)(uint64_t *ts);
	int (*cbname)(uint32_t domain, uint32_t cbid, const char **name);
	/* optional */
	int (*register_ts)(uint64_t (*)(void));
	int (*flush_period)(uint32_t ms);
	int (*version)(uint32_t *v);
	int (*thread_id_type)(int type);
	int (*runtime_api)(uint32_t cbid, uint8_t enable);
	int (*driver_api)(uint32_t cbid, uint8_t enable);
};

enum { ST_OFF = 0, ST_ON = 1, ST_EXITED = 2 };

static struct nns_cupti {
	pthread_mutex_t mu, conv_mu, call_mu;
	_Atomic int state; /* ST_* */
	void *lib;
	struct cupti_fns f;
	void *sub;
	uint32_t version;
	struct nns_cupti_conv conv; /* conv_mu */
	uint8_t *pool[POOL_KEEP];
	int npool, nout;
	uint64_t dropped, buffers, refused;
	_Atomic int devices_done;
	_Atomic int records_seen; /* a buffer with records came: CUDA is up */
	int64_t last_tick_ns;
	int atexit_set;
	int cbs_registered; /* buffer callbacks: once per process */
	int hostclock;	    /* timestamp callback: 0 not tried, 1 ours, -1 CUPTI's clock */
	pid_t pid;	    /* the process that subscribed (a forked child does not own CUPTI) */
	char dump_dir[512];
	unsigned dumps;
} cu = {.mu = PTHREAD_MUTEX_INITIALIZER,
	.conv_mu = PTHREAD_MUTEX_INITIALIZER,
	.call_mu = PTHREAD_MUTEX_INITIALIZER};

static int on(void);

/* The activity kinds, by the names NNSCOPE_CUPTI_KINDS takes (a comma-separated
 * subset; unset: all). The GPU check measures what each one costs (docs/GPU.md). */
static const struct {
	uint32_t kind;
	const char *name;
} kinds[] = {{NNS_CK_CONCURRENT_KERNEL, "kernel"},
	     {NNS_CK_MEMCPY, "memcpy"},
	     {NNS_CK_MEMSET, "memset"},
	     {NNS_CK_RUNTIME, "runtime"},
	     {NNS_CK_DRIVER, "driver"},
	     {NNS_CK_SYNCHRONIZATION, "sync"},
	     {NNS_CK_MEMORY2, "memory"},
	     {NNS_CK_EXTERNAL_CORRELATION, "extcorr"}};

/* The API calls whose activity records are not collected (unless
 * NNSCOPE_CUPTI_QUIET=0): queries that launch, copy and wait for nothing and
 * that PyTorch makes by the thousand a step. On an H200 (docs/GPU.md) they
 * were 93 % of a ResNet-18 step's 188k API records (cudaGetDevice alone
 * 94k, cuDevicePrimaryCtxGetState 31k, cuKernelGetName 10k): six times the
 * trace's size for calls no analysis reads (torch.profiler leaves most of
 * them out too). The step time did not measurably change: CUPTI's cost is
 * in its API callbacks, which stay. Callback ids from CUDA 13's
 * cupti_runtime_cbid.h / cupti_driver_cbid.h (append-only enums); where
 * libcupti lacks cuptiActivityEnableRuntimeApi/DriverApi (before 12.x)
 * every call is recorded. */
static const struct {
	uint8_t driver; /* 0 runtime, 1 driver */
	uint16_t cbid;
} quiet_apis[] = {
    {0, 1},   /* cudaDriverGetVersion */
    {0, 2},   /* cudaRuntimeGetVersion */
    {0, 3},   /* cudaGetDeviceCount */
    {0, 10},  /* cudaGetLastError */
    {0, 11},  /* cudaPeekAtLastError */
    {0, 12},  /* cudaGetErrorString */
    {0, 15},  /* cudaFuncGetAttributes */
    {0, 17},  /* cudaGetDevice */
    {0, 200}, /* cudaDeviceGetAttribute */
    {0, 317}, /* cudaStreamIsCapturing */
    {0, 324}, /* cudaStreamGetCaptureInfo */
    {0, 409}, /* cudaStreamGetCaptureInfo_v2 */
    {1, 2},   /* cuDriverGetVersion */
    {1, 3},   /* cuDeviceGet */
    {1, 4},   /* cuDeviceGetCount */
    {1, 9},   /* cuDeviceGetAttribute */
    {1, 16},  /* cuCtxGetDevice */
    {1, 304}, /* cuCtxGetCurrent */
    {1, 372}, /* cuGetErrorString */
    {1, 373}, /* cuGetErrorName */
    {1, 392}, /* cuDevicePrimaryCtxGetState */
    {1, 499}, /* cuStreamIsCapturing */
    {1, 626}, /* cuGetProcAddress */
    {1, 677}, /* cuGetProcAddress_v2 */
    {1, 719}, /* cuKernelGetName */
};

/* Turns the quiet calls' records off after the API kinds were enabled;
 * the number turned off. */
static int quiet_api_records(int runtime_on, int driver_on)
{
	const char *q = getenv("NNSCOPE_CUPTI_QUIET");
	int n = 0;

	if (q && strcmp(q, "0") == 0)
		return 0;
	for (size_t i = 0; i < sizeof(quiet_apis) / sizeof(*quiet_apis); i++) {
		int (*fn)(uint32_t, uint8_t) =
		    quiet_apis[i].driver ? cu.f.driver_api : cu.f.runtime_api;
		int on = quiet_apis[i].driver ? driver_on : runtime_on;

		if (on && fn && fn(quiet_apis[i].cbid, 0) == NNS_CUPTI_SUCCESS)
			n++;
	}
	return n;
}

/* Whether NNSCOPE_CUPTI_KINDS (unset or empty: every kind) names kind i. */
static int kind_wanted(const char *list, size_t i)
{
	size_t n = strlen(kinds[i].name);

	if (!list || !*list)
		return 1;
	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, kinds[i].name, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

static void meta(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void meta(const char *key, const char *fmt, ...)
{
	nns_profiler *p = nns_current();
	char msg[600];
	va_list ap;

	if (!p)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nns_set_metadata(p, key, msg);
}

/* ---- loading -------------------------------------------------------------------- */

static void *open_lib(char *why, size_t size)
{
	static const char *names[] = {
	    "libcupti.so.13",
	    "libcupti.so.12",
	    "libcupti.so",
	    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
	    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.12",
	    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	    "/usr/local/cuda/lib64/libcupti.so.13",
	    "/usr/local/cuda/lib64/libcupti.so.12",
	    "/usr/local/cuda/lib64/libcupti.so",
	};
	const char *env = getenv("NNSCOPE_CUPTI_LIB");
	void *lib;

	if (env && *env) {
		if (!(lib = dlopen(env, RTLD_NOW | RTLD_LOCAL))) {
			const char *e = dlerror();

			snprintf(why, size, "libcupti not found (%s)", e ? e : env);
		}
		return lib;
	}
	/* A CUPTI the process already loaded first (PyTorch's libtorch_cuda
	 * needs the libcupti of its wheel): two CUPTI versions in one process
	 * would each try to own the driver's profiling interface. */
	for (size_t i = 0; i < 3; i++)
		if ((lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)))
			return lib;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if ((lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
			return lib;
	snprintf(why, size,
		 "libcupti not found (libcupti.so.13, .12 or libcupti.so on the library "
		 "path or under /usr/local/cuda; NNSCOPE_CUPTI_LIB names one)");
	return NULL;
}

static int resolve(void *lib, struct cupti_fns *f, char *why, size_t size)
{
	static const char *req[] = {"cuptiSubscribe",
				    "cuptiUnsubscribe",
				    "cuptiActivityRegisterCallbacks",
				    "cuptiActivityEnable",
				    "cuptiActivityDisable",
				    "cuptiActivityFlushAll",
				    "cuptiActivityGetNextRecord",
				    "cuptiActivityGetNumDroppedRecords",
				    "cuptiGetTimestamp",
				    "cuptiGetCallbackName"};
	static const char *opt[] = {"cuptiActivityRegisterTimestampCallback",
				    "cuptiActivityFlushPeriod",
				    "cuptiGetVersion",
				    "cuptiSetThreadIdType",
				    "cuptiActivityEnableRuntimeApi",
				    "cuptiActivityEnableDriverApi"};
	void *s[sizeof(req) / sizeof(*req) + sizeof(opt) / sizeof(*opt)];
	size_t nreq = sizeof(req) / sizeof(*req);

	for (size_t i = 0; i < nreq; i++)
		if (!(s[i] = dlsym(lib, req[i]))) {
			snprintf(why, size, "libcupti has no %s", req[i]);
			return -1;
		}
	for (size_t i = 0; i < sizeof(opt) / sizeof(*opt); i++)
		s[nreq + i] = dlsym(lib, opt[i]);
	/* POSIX dlsym: object pointers convert to function pointers; the
	 * table's members are in the order of req then opt */
	_Static_assert(sizeof(struct cupti_fns) == sizeof(s), "one slot per symbol");
	memcpy(f, s, sizeof(s));
	return 0;
}

/* ---- buffers -------------------------------------------------------------------- */

static void buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&cu.mu);
	if (cu.npool)
		b = cu.pool[--cu.npool];
	else if (cu.nout < BUFS_MAX)
		b = aligned_alloc(8, BUF_BYTES);
	if (b)
		cu.nout++;
	else
		cu.refused++;
	pthread_mutex_unlock(&cu.mu);
	*buf = b;
	*size = b ? BUF_BYTES : 0;
	*max_records = 0; /* as many as fit */
}

static void buffer_release(uint8_t *b)
{
	pthread_mutex_lock(&cu.mu);
	cu.nout--;
	if (cu.npool < POOL_KEEP) {
		cu.pool[cu.npool++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&cu.mu);
	free(b);
}

static void submit(void *arg, const struct nnst_gpu *r, size_t n)
{
	(void)arg;
	nns_gpu_submit(r, n);
}

static void buffer_completed(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	size_t dropped = 0;

	(void)size;
	if (!buf)
		return;
	if (valid) {
		pthread_mutex_lock(&cu.conv_mu);
		if (cu.dump_dir[0]) {
			char path[600];

			snprintf(path, sizeof(path), "%s/cupti_%ld_%u.buf", cu.dump_dir,
				 (long)getpid(), ++cu.dumps);
			nns_cupti_dump(path, cu.version, cu.conv.flags, buf, valid, cu.f.next);
		}
		nns_cupti_decode(&cu.conv, buf, valid, cu.f.next, submit, NULL);
		pthread_mutex_unlock(&cu.conv_mu);
		atomic_store(&cu.records_seen, 1);
	}
	if (cu.f.dropped && cu.f.dropped(ctx, stream, &dropped) == NNS_CUPTI_SUCCESS && dropped) {
		pthread_mutex_lock(&cu.mu);
		cu.dropped += dropped;
		pthread_mutex_unlock(&cu.mu);
	}
	pthread_mutex_lock(&cu.mu);
	cu.buffers++;
	pthread_mutex_unlock(&cu.mu);
	buffer_release(buf);
}

/* ---- clocks and devices ------------------------------------------------------------ */

static uint64_t raw_clock(void)
{
	return nns_now();
}

/* A CUPTI timestamp and the raw clock read together (tightest of five). */
static void clock_point(void)
{
	uint64_t best = UINT64_MAX, gpu = 0, raw = 0;

	for (int i = 0; i < 5; i++) {
		uint64_t g, t0 = nns_now(), t1;

		if (cu.f.timestamp(&g) != NNS_CUPTI_SUCCESS)
			return;
		t1 = nns_now();
		if (t1 - t0 < best) {
			best = t1 - t0;
			gpu = g;
			raw = t0 + (t1 - t0) / 2;
		}
	}
	nns_gpu_clock_point(gpu, raw);
}

/* Device records, once CUDA is known to be up (CUPTI delivered records):
 * querying the driver earlier would initialise CUDA in a process that may
 * not use it yet (and fork later). */
static void devices_once(void)
{
	struct nnst_gpu d[64];
	char why[300] = "";
	size_t n;

	if (!atomic_load(&cu.records_seen) || atomic_exchange(&cu.devices_done, 1))
		return;
	n = nns_cupti_devices(d, sizeof(d) / sizeof(*d), why, sizeof(why));
	if (n)
		nns_gpu_submit(d, n);
	else
		meta("cupti_devices", "unavailable: %s", why);
}

static int64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void nns_cupti_tick(void)
{
	int64_t now;

	if (!on())
		return;
	now = mono_ns();
	pthread_mutex_lock(&cu.mu);
	if (now - cu.last_tick_ns < 1000000000LL) {
		pthread_mutex_unlock(&cu.mu);
		return;
	}
	cu.last_tick_ns = now;
	pthread_mutex_unlock(&cu.mu);
	pthread_mutex_lock(&cu.call_mu);
	if (on()) {
		clock_point();
		devices_once();
	}
	pthread_mutex_unlock(&cu.call_mu);
}

/* Collecting in this process: a forked child inherits the state but not
 * CUPTI (CUDA does not survive fork), so it leaves CUPTI alone. */
static int on(void)
{
	return atomic_load_explicit(&cu.state, memory_order_relaxed) == ST_ON && cu.pid == getpid();
}

/* ---- lifecycle ----------------------------------------------------------------------- */

static void noop_callback(void *userdata, int domain, uint32_t cbid, const void *data)
{
	(void)userdata;
	(void)domain;
	(void)cbid;
	(void)data;
}

static void at_exit(void);

static int start_locked(char *why, size_t size)
{
	const char *dump = getenv("NNSCOPE_CUPTI_DUMP"), *hc = getenv("NNSCOPE_CUPTI_HOSTCLOCK");
	char failed[128] = "";
	int runtime_on = 0, driver_on = 0, quiet;
	int rc;

	if (!cu.lib) {
		if (!(cu.lib = open_lib(why, size)))
			return NNS_ENOTFOUND;
		if (resolve(cu.lib, &cu.f, why, size)) {
			dlclose(cu.lib);
			cu.lib = NULL;
			return NNS_ENOTFOUND;
		}
		if (!cu.f.version || cu.f.version(&cu.version) != NNS_CUPTI_SUCCESS)
			cu.version = 0;
	}
	if (!cu.conv.apin && nns_cupti_conv_init(&cu.conv)) {
		snprintf(why, size, "out of memory");
		return NNS_ENOMEM;
	}
	cu.conv.cbname = cu.f.cbname;
	if ((rc = cu.f.subscribe(&cu.sub, (void *)noop_callback, NULL)) != NNS_CUPTI_SUCCESS) {
		cu.sub = NULL;
		if (rc == NNS_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS)
			snprintf(why, size,
				 "another CUPTI client (torch.profiler, Nsight...) is "
				 "subscribed");
		else
			snprintf(why, size, "cuptiSubscribe returned %d", rc);
		return NNS_EIO;
	}
	/* Both registrations are kept for the life of the process (a later
	 * enable, after nns_destroy unsubscribed, reuses them): the timestamp
	 * callback must come before any kind is ever enabled. */
	if (!cu.cbs_registered) {
		if ((rc = cu.f.register_cbs(buffer_requested, buffer_completed)) !=
		    NNS_CUPTI_SUCCESS) {
			snprintf(why, size, "cuptiActivityRegisterCallbacks returned %d", rc);
			cu.f.unsubscribe(cu.sub);
			cu.sub = NULL;
			return NNS_EIO;
		}
		cu.cbs_registered = 1;
	}
	if (!cu.hostclock)
		cu.hostclock = cu.f.register_ts && !(hc && strcmp(hc, "0") == 0) &&
				       cu.f.register_ts(raw_clock) == NNS_CUPTI_SUCCESS
				   ? 1
				   : -1;
	pthread_mutex_lock(&cu.conv_mu);
	cu.conv.flags = cu.hostclock > 0 ? NNST_GPUF_HOSTCLOCK : 0;
	pthread_mutex_unlock(&cu.conv_mu);
	/* API records carry the caller's system thread id (gettid), the tid
	 * the collector files host events under: by default CUPTI gives the
	 * low 32 bits of pthread_self(), which matches no thread, and no launch
	 * would be found inside its operator (seen on an H200, docs/GPU.md).
	 * As Kineto does; before any kind is enabled. */
	if (cu.f.thread_id_type &&
	    cu.f.thread_id_type(NNS_CUPTI_THREAD_ID_SYSTEM) != NNS_CUPTI_SUCCESS)
		snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed),
			 " thread-id-type");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		if (!kind_wanted(getenv("NNSCOPE_CUPTI_KINDS"), i))
			continue;
		if ((rc = cu.f.enable(kinds[i].kind)) != NNS_CUPTI_SUCCESS)
			snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), " %u=%d",
				 kinds[i].kind, rc);
		else if (kinds[i].kind == NNS_CK_RUNTIME)
			runtime_on = 1;
		else if (kinds[i].kind == NNS_CK_DRIVER)
			driver_on = 1;
	}
	quiet = quiet_api_records(runtime_on, driver_on);
	if (cu.f.flush_period)
		cu.f.flush_period(1000);
	snprintf(cu.dump_dir, sizeof(cu.dump_dir), "%s", dump && *dump ? dump : "");
	if (cu.dump_dir[0])
		fs_mkdirs(cu.dump_dir, NULL);
	cu.pid = getpid();
	atomic_store(&cu.state, ST_ON);
	cu.last_tick_ns = mono_ns();
	if (!cu.atexit_set)
		cu.atexit_set = atexit(at_exit) == 0;
	meta("cupti", "collecting (CUPTI version %u, %s clock%s%s)", cu.version,
	     cu.hostclock > 0 ? "host" : "CUPTI", failed[0] ? "; kinds not enabled:" : "", failed);
	meta("cupti_quiet_apis", "%d", quiet);
	clock_point();
	return NNS_OK;
}

static int enable(char *why, size_t size)
{
	int rc = NNS_OK;

	pthread_mutex_lock(&cu.mu);
	if (atomic_load(&cu.state) == ST_OFF) {
		/* CUPTI calls here may complete buffers (our callbacks take
		 * cu.mu): drop it around them, the state stays OFF meanwhile
		 * and life_mu serialises callers. */
		pthread_mutex_unlock(&cu.mu);
		pthread_mutex_lock(&cu.call_mu);
		rc = start_locked(why, size);
		pthread_mutex_unlock(&cu.call_mu);
		pthread_mutex_lock(&cu.mu);
	} else if (atomic_load(&cu.state) == ST_EXITED) {
		snprintf(why, size, "the process is exiting");
		rc = NNS_EINVAL;
	}
	pthread_mutex_unlock(&cu.mu);
	if (rc)
		meta("cupti", "unavailable: %s", why);
	return rc;
}

NNS_API int nns_cupti_enable(char *err, size_t errlen)
{
	char why[400] = "";
	int rc;

	pthread_mutex_lock(&nns_g.life_mu);
	rc = enable(why, sizeof(why));
	pthread_mutex_unlock(&nns_g.life_mu);
	if (err && errlen)
		snprintf(err, errlen, "%s", rc ? why : "");
	return rc;
}

/* libcuda calls this when CUDA_INJECTION64_PATH names the library. */
NNS_API int InitializeInjection(void)
{
	if (nns_current())
		nns_cupti_enable(NULL, 0);
	return 1;
}

void nns_cupti_flush(void)
{
	if (!on())
		return;
	pthread_mutex_lock(&cu.call_mu);
	if (on())
		cu.f.flush_all(NNS_CUPTI_FLUSH_FORCED);
	pthread_mutex_unlock(&cu.call_mu);
}

/* Everything CUPTI holds, device records, a last clock point and the
 * counts into the current profiler. */
static void final_flush(void)
{
	uint64_t dropped, refused;

	cu.f.flush_all(NNS_CUPTI_FLUSH_FORCED);
	devices_once();
	clock_point();
	pthread_mutex_lock(&cu.mu);
	dropped = cu.dropped;
	refused = cu.refused;
	pthread_mutex_unlock(&cu.mu);
	meta("cupti_records_dropped", "%llu", (unsigned long long)dropped);
	if (refused)
		meta("cupti_buffers_refused", "%llu", (unsigned long long)refused);
}

void nns_cupti_detach(struct nns_profiler *p)
{
	if (!on() || nns_current() != p)
		return;
	pthread_mutex_lock(&cu.call_mu);
	final_flush();
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		cu.f.disable(kinds[i].kind);
	cu.f.flush_all(NNS_CUPTI_FLUSH_FORCED);
	cu.f.unsubscribe(cu.sub);
	cu.sub = NULL;
	atomic_store(&cu.state, ST_OFF);
	atomic_store(&cu.devices_done, 0);
	atomic_store(&cu.records_seen, 0);
	pthread_mutex_unlock(&cu.call_mu);
}

/* Runs before libcupti's own teardown (registered after it was loaded);
 * the preload destructor's nns_destroy comes later and must not call
 * CUPTI again. */
static void at_exit(void)
{
	pthread_mutex_lock(&nns_g.life_mu);
	pthread_mutex_lock(&cu.call_mu);
	if (on()) {
		final_flush();
		atomic_store(&cu.state, ST_EXITED);
	}
	pthread_mutex_unlock(&cu.call_mu);
	pthread_mutex_unlock(&nns_g.life_mu);
}
