/*
 * nccl_harness.c - plays NCCL's part for the NCCL profiler plugin in
 * libnnscope.so, without a GPU (owner: the collector; run by
 * tests/e2e/nccl_plugin.sh). Like NCCL 2.29 it dlopen()s
 * $NCCL_PROFILER_PLUGIN and looks up ncclProfiler_v6, then v5, v4, v3, v2,
 * v1 (or only the version given), calls init per communicator, then
 * startEvent / stopEvent / recordEventState / finalize in the order NCCL
 * does: a task's Coll (or P2p) event starts and stops on the enqueuing
 * thread, then (v3+) one KernelCh event per channel, child of the task,
 * starts and (v4+: after a KernelChStop state with a GPU time) stops.
 *
 * The GPU timer (v4+), as NCCL's kernel would stamp it: GPU ns = the
 * harness's CLOCK_MONOTONIC + GPU_OFF (an arbitrary epoch); t0 = when the
 * harness starts the KernelCh events: channel 0 began on the GPU at
 * t0 - 1000 us and ended at t0 + 19000 us, channel 1 began at t0 - 500 us
 * and ended at t0 + 20000 us, so the task ran 21000 us on the GPU while
 * the host sees its channels open for KERNEL_US (30000 us).
 * HARNESS_GPU_TIMER=0 gives no GPU times (pTimer 0), =bad a channel that
 * stops before it starts. Prints "t0 func=F hash=0xH seq=N ns=T" per task
 * with KernelCh events (T: t0, CLOCK_MONOTONIC ns).
 *
 *   nccl_harness script [VERSION]   rank $RANK of $WORLD_SIZE (default 0/2):
 *     thread "ar" on communicator 1: 5 x AllReduce 1048576 ncclFloat32
 *       (RING/SIMPLE, seq 0-4);
 *     thread "bc" on communicator 2: 2 x Broadcast 4096 ncclBfloat16 root 0
 *       (TREE/LL, seq 0-1), 1 x AllGather 262144 ncclFloat16 (RING/LL128,
 *       seq 2), 1 x Send 1024 ncclInt8 to peer (rank+1) % world;
 *     each task: ENQ_US between its Coll start and stop, then (v3+) its 2
 *     kernel channels run for KERNEL_US; (v6) after the Send, a CeColl
 *     AllGather 65536 ncclFloat32 (sync "MC", seq 3), and after each task
 *     a ProxyOp start under it, which must get no handle.
 *   nccl_harness bad [VERSION]      NULL and stale handles, unknown types,
 *     a pool flood (5000 "Flood" collectives started, never stopped, on a
 *     communicator of their own), calls on a finalized context, then one
 *     good AllReduce: must not crash.
 * With HARNESS_NO_PROFILER set, tasks may get no handle (nothing collects).
 * As NCCL, the script reports no event whose type the activation mask init
 * gave lacks (mask 0: profile_communication false); it prints "mask=M".
 * Prints the version used ("version=N") and exits 0, or 1 with a reason.
 */
#define _GNU_SOURCE
#include "../../src/collector/nccl_profiler_abi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ENQ_US 2000
#define KERNEL_US 30000
#define NCH 2
#define GPU_OFF 7000000000000000ull /* ns: the GPU clock's epoch, arbitrary */

static int ver;
static void *sym;
static int world = 2, rank_ = 0;
static __thread int amask = -1; /* the script thread's activation mask */

struct op {
	int type; /* NCCL_PROF_COLL, NCCL_PROF_P2P or NCCL_PROF_CE_COLL */
	const char *func, *dtype, *algo, *proto;
	int func1, dtype1, algo1, proto1; /* v1 enums */
	size_t count;
	int root; /* or peer */
	uint64_t seq;
	uint64_t comm_hash;
};

static __thread uint64_t kch_ptimer; /* pTimer of the next KernelCh start */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	while (nanosleep(&ts, &ts))
		;
}

static int h_init(void **ctx, int *mask, uint64_t hash)
{
	switch (ver) {
	case 6:
		return ((struct nccl_profiler_v6 *)sym)
		    ->init(ctx, hash, mask, "harness", 1, world, rank_, NULL);
	case 5:
		return ((struct nccl_profiler_v5 *)sym)
		    ->init(ctx, hash, mask, "harness", 1, world, rank_, NULL);
	case 4:
		return ((struct nccl_profiler_v4 *)sym)
		    ->init(ctx, mask, "harness", hash, 1, world, rank_, NULL);
	case 3:
		return ((struct nccl_profiler_v3 *)sym)->init(ctx, mask);
	case 2:
		return ((struct nccl_profiler_v2 *)sym)->init(ctx, mask);
	default:
		return ((struct nccl_profiler_v1 *)sym)->init(ctx, mask);
	}
}

static int h_fini(void *ctx)
{
	switch (ver) {
	case 6:
		return ((struct nccl_profiler_v6 *)sym)->finalize(ctx);
	case 5:
		return ((struct nccl_profiler_v5 *)sym)->finalize(ctx);
	case 4:
		return ((struct nccl_profiler_v4 *)sym)->finalize(ctx);
	case 3:
		return ((struct nccl_profiler_v3 *)sym)->finalize(ctx);
	case 2:
		return ((struct nccl_profiler_v2 *)sym)->finalize(ctx);
	default:
		return ((struct nccl_profiler_v1 *)sym)->finalize(ctx);
	}
}

static int h_stop(void *h)
{
	switch (ver) {
	case 6:
		return ((struct nccl_profiler_v6 *)sym)->stopEvent(h);
	case 5:
		return ((struct nccl_profiler_v5 *)sym)->stopEvent(h);
	case 4:
		return ((struct nccl_profiler_v4 *)sym)->stopEvent(h);
	case 3:
		return ((struct nccl_profiler_v3 *)sym)->stopEvent(h);
	case 2:
		return ((struct nccl_profiler_v2 *)sym)->stopEvent(h);
	default:
		return ((struct nccl_profiler_v1 *)sym)->stopEvent(h);
	}
}

/* the KernelChStop state NCCL records before stopping a KernelCh (v4+) */
static int h_kstop_state(void *h, uint64_t ptimer)
{
	union nccl_prof_state_args_v4 a;

	memset(&a, 0, sizeof(a));
	a.kernelCh.pTimer = ptimer;
	if (ver == 6)
		return ((struct nccl_profiler_v6 *)sym)
		    ->recordEventState(h, NCCL_PROF_STATE_KERNELCH_STOP, &a);
	if (ver == 5)
		return ((struct nccl_profiler_v5 *)sym)
		    ->recordEventState(h, NCCL_PROF_STATE_KERNELCH_STOP, &a);
	if (ver == 4)
		return ((struct nccl_profiler_v4 *)sym)
		    ->recordEventState(h, NCCL_PROF_STATE_KERNELCH_STOP, &a);
	return 0;
}

/* startEvent of a task (o) or, with o NULL, of an event of type `type`
 * whose parent is `parent` (KernelCh, or anything for the bad cases). */
static int h_start(void *ctx, void **h, const struct op *o, int type, void *parent)
{
	if (ver == 6) {
		struct nccl_prof_descr_v6 d;

		memset(&d, 0, sizeof(d));
		d.type = (uint64_t)(o ? o->type : type);
		d.parentObj = parent;
		d.rank = rank_;
		if (o && o->type == NCCL_PROF_COLL) {
			d.coll.seqNumber = o->seq;
			d.coll.func = o->func;
			d.coll.count = o->count;
			d.coll.root = o->root;
			d.coll.datatype = o->dtype;
			d.coll.nChannels = NCH;
			d.coll.algo = o->algo;
			d.coll.proto = o->proto;
		} else if (o && o->type == NCCL_PROF_CE_COLL) {
			d.ceColl.seqNumber = o->seq;
			d.ceColl.func = o->func;
			d.ceColl.count = o->count;
			d.ceColl.root = o->root;
			d.ceColl.datatype = o->dtype;
			d.ceColl.syncStrategy = o->proto;
			d.ceColl.ceSeqNum = (uint32_t)o->seq;
		} else if (o) {
			d.p2p.func = o->func;
			d.p2p.datatype = o->dtype;
			d.p2p.count = o->count;
			d.p2p.peer = o->root;
			d.p2p.nChannels = NCH;
		} else if (type == NCCL_PROF_KERNEL_CH) {
			d.kernelCh.channelId = 1;
			d.kernelCh.pTimer = kch_ptimer;
		} else if (type == NCCL_PROF_PROXY_OP) {
			d.proxyOp.pid = getpid();
			d.proxyOp.nSteps = 4;
		}
		return ((struct nccl_profiler_v6 *)sym)->startEvent(ctx, h, &d);
	}
	if (ver >= 4) {
		struct nccl_prof_descr_v5 d5;
		struct nccl_prof_descr_v4 d4;

		memset(&d5, 0, sizeof(d5));
		memset(&d4, 0, sizeof(d4));
		d5.type = d4.type = (uint8_t)(o ? o->type : type);
		if (!o && type > 255)
			d5.type = (uint64_t)type;
		d5.parentObj = d4.parentObj = parent;
		d5.rank = d4.rank = rank_;
		if (o && o->type == NCCL_PROF_COLL) {
			d5.coll.seqNumber = d4.coll.seqNumber = o->seq;
			d5.coll.func = d4.coll.func = o->func;
			d5.coll.count = d4.coll.count = o->count;
			d5.coll.root = d4.coll.root = o->root;
			d5.coll.datatype = d4.coll.datatype = o->dtype;
			d5.coll.nChannels = d4.coll.nChannels = NCH;
			d5.coll.algo = d4.coll.algo = o->algo;
			d5.coll.proto = d4.coll.proto = o->proto;
		} else if (o) {
			d5.p2p.func = d4.p2p.func = o->func;
			d5.p2p.datatype = d4.p2p.datatype = o->dtype;
			d5.p2p.count = d4.p2p.count = o->count;
			d5.p2p.peer = d4.p2p.peer = o->root;
			d5.p2p.nChannels = d4.p2p.nChannels = NCH;
		} else if (type == NCCL_PROF_KERNEL_CH) {
			d5.kernelCh.channelId = d4.kernelCh.channelId = 1;
			d5.kernelCh.pTimer = d4.kernelCh.pTimer = kch_ptimer;
		}
		if (ver == 5)
			return ((struct nccl_profiler_v5 *)sym)->startEvent(ctx, h, &d5);
		return ((struct nccl_profiler_v4 *)sym)->startEvent(ctx, h, &d4);
	}
	if (ver == 3 || ver == 2) {
		struct nccl_prof_descr_v3 d3;
		struct nccl_prof_descr_v2 d2;

		memset(&d3, 0, sizeof(d3));
		memset(&d2, 0, sizeof(d2));
		d3.type = d2.type = (uint8_t)(o ? o->type : type);
		d3.parentObj = d2.parentObj = parent;
		d3.rank = d2.rank = rank_;
		if (o && o->type == NCCL_PROF_COLL) {
			d3.coll.name = d2.coll.name = "harness";
			d3.coll.commHash = d2.coll.commHash = o->comm_hash;
			d3.coll.seqNumber = d2.coll.seqNumber = o->seq;
			d3.coll.func = d2.coll.func = o->func;
			d3.coll.count = d2.coll.count = o->count;
			d3.coll.root = d2.coll.root = o->root;
			d3.coll.datatype = d2.coll.datatype = o->dtype;
			d2.coll.trafficBytes = o->count;
			d3.coll.nMaxChannels = d2.coll.nMaxChannels = NCH;
			d3.coll.algo = d2.coll.algo = o->algo;
			d3.coll.proto = d2.coll.proto = o->proto;
		} else if (o) {
			d3.p2p.name = d2.p2p.name = "harness";
			d3.p2p.commHash = d2.p2p.commHash = o->comm_hash;
			d3.p2p.func = d2.p2p.func = o->func;
			d3.p2p.datatype = d2.p2p.datatype = o->dtype;
			d3.p2p.count = d2.p2p.count = o->count;
			d3.p2p.peer = d2.p2p.peer = o->root;
		} else if (type == NCCL_PROF_KERNEL_CH) {
			d3.kernelCh.channelId = 1;
		}
		if (ver == 3)
			return ((struct nccl_profiler_v3 *)sym)->startEvent(ctx, h, &d3);
		return ((struct nccl_profiler_v2 *)sym)->startEvent(ctx, h, &d2);
	}
	{
		struct nccl_prof_descr_v1 d1;

		memset(&d1, 0, sizeof(d1));
		d1.type = (uint8_t)(o ? o->type : type);
		d1.parentObj = parent;
		d1.rank = rank_;
		if (o && o->type == NCCL_PROF_COLL) {
			d1.coll.name = "harness";
			d1.coll.commHash = o->comm_hash;
			d1.coll.seqNumber = o->seq;
			d1.coll.func = (uint8_t)o->func1;
			d1.coll.count = o->count;
			d1.coll.root = o->root;
			d1.coll.datatype = (uint8_t)o->dtype1;
			d1.coll.nMaxChannels = NCH;
			d1.coll.algo = (uint8_t)o->algo1;
			d1.coll.proto = (uint8_t)o->proto1;
		} else if (o) {
			d1.p2p.name = "harness";
			d1.p2p.commHash = o->comm_hash;
			d1.p2p.func = (uint8_t)o->func1;
			d1.p2p.datatype = (uint8_t)o->dtype1;
			d1.p2p.count = o->count;
			d1.p2p.peer = o->root;
		}
		return ((struct nccl_profiler_v1 *)sym)->startEvent(ctx, h, &d1);
	}
}

/* GPU times of channel c of a task whose KernelCh events start at t0
 * (the file's header), per HARNESS_GPU_TIMER */
static void gpu_times(uint64_t t0, int c, uint64_t *start, uint64_t *stop)
{
	const char *m = getenv("HARNESS_GPU_TIMER");

	*start = t0 + GPU_OFF - (c ? 500000 : 1000000);
	*stop = t0 + GPU_OFF + (c ? 20000000 : 19000000);
	if (m && strcmp(m, "0") == 0)
		*start = *stop = 0;
	else if (m && strcmp(m, "bad") == 0 && c == 1)
		*stop = *start - 1000;
}

/* One task as NCCL reports it. Returns 0, else 1 with a message. */
static int run_task(void *ctx, const struct op *o)
{
	void *h = NULL, *kh[NCH] = {0}, *ph = NULL;
	uint64_t t0, gs[NCH], ge[NCH];

	if (!(amask & o->type)) /* NCCL starts no event the mask lacks */
		return 0;
	if (h_start(ctx, &h, o, 0, NULL))
		return 1;
	if (!h && getenv("HARNESS_NO_PROFILER"))
		return 0; /* nothing collects: the plugin records nothing */
	if (!h) {
		fprintf(stderr, "nccl_harness: %s: startEvent gave no handle\n", o->func);
		return 1;
	}
	sleep_us(ENQ_US);
	if (h_stop(h))
		return 1;
	if (ver >= 6) { /* a ProxyOp under the task: not asked for, not recorded */
		if (h_start(ctx, &ph, NULL, NCCL_PROF_PROXY_OP, h) || ph) {
			fprintf(stderr, "nccl_harness: %s: a ProxyOp got a handle\n", o->func);
			return 1;
		}
	}
	if (ver < 3 || o->type == NCCL_PROF_CE_COLL)
		return 0;
	t0 = mono_ns();
	printf("t0 func=%s hash=0x%llx seq=%llu ns=%llu\n", o->func,
	       (unsigned long long)o->comm_hash, (unsigned long long)o->seq,
	       (unsigned long long)t0);
	for (int c = 0; c < NCH; c++) {
		gpu_times(t0, c, &gs[c], &ge[c]);
		kch_ptimer = ver >= 4 ? gs[c] : 0;
		if (h_start(ctx, &kh[c], NULL, NCCL_PROF_KERNEL_CH, h) || !kh[c]) {
			fprintf(stderr, "nccl_harness: %s: no KernelCh handle\n", o->func);
			return 1;
		}
	}
	sleep_us(KERNEL_US);
	for (int c = 0; c < NCH; c++) {
		h_kstop_state(kh[c], ge[c]);
		h_stop(kh[c]);
	}
	return 0;
}

struct thr {
	const char *name;
	uint64_t hash;
	int rc;
};

static void *thread_ar(void *arg)
{
	struct thr *t = arg;
	void *ctx = NULL;
	int mask = 0;

	pthread_setname_np(pthread_self(), t->name);
	t->rc = 1;
	if (h_init(&ctx, &mask, t->hash) || !ctx)
		return NULL;
	amask = mask;
	printf("mask=%d\n", mask);
	for (int i = 0; i < 5; i++) {
		struct op o = {
		    NCCL_PROF_COLL, "AllReduce", "ncclFloat32", "RING", "SIMPLE", 4, 7, 1, 2,
		    1048576,	    0,		 (uint64_t)i,	t->hash};
		if (run_task(ctx, &o))
			return NULL;
	}
	t->rc = h_fini(ctx);
	return NULL;
}

static void *thread_bc(void *arg)
{
	struct thr *t = arg;
	void *ctx = NULL;
	int mask = 0;
	struct op send = {NCCL_PROF_P2P,       "Send", "ncclInt8", NULL, NULL, 6, 0, 0, 0, 1024,
			  (rank_ + 1) % world, 0,      t->hash};
	struct op ag = {
	    NCCL_PROF_COLL, "AllGather", "ncclFloat16", "RING", "LL128", 2, 6, 1, 1, 262144, 0, 2,
	    t->hash};

	pthread_setname_np(pthread_self(), t->name);
	t->rc = 1;
	if (h_init(&ctx, &mask, t->hash) || !ctx)
		return NULL;
	amask = mask;
	for (int i = 0; i < 2; i++) {
		struct op o = {
		    NCCL_PROF_COLL, "Broadcast", "ncclBfloat16", "TREE", "LL", 0, 9, 0, 0,
		    4096,	    0,		 (uint64_t)i,	 t->hash};
		if (run_task(ctx, &o))
			return NULL;
	}
	if (run_task(ctx, &ag) || run_task(ctx, &send))
		return NULL;
	if (ver >= 6) {
		struct op ce = {NCCL_PROF_CE_COLL,
				"AllGather",
				"ncclFloat32",
				"CE",
				"MC",
				0,
				0,
				0,
				0,
				65536,
				0,
				3,
				t->hash};
		if (run_task(ctx, &ce))
			return NULL;
	}
	t->rc = h_fini(ctx);
	return NULL;
}

static int script(void)
{
	struct thr a = {"ar", 0xa11ed0ce00000001ull, 1}, b = {"bc", 0xa11ed0ce00000002ull, 1};
	pthread_t ta, tb;

	if (pthread_create(&ta, NULL, thread_ar, &a) || pthread_create(&tb, NULL, thread_bc, &b))
		return 1;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return a.rc || b.rc;
}

static int bad(void)
{
	void *ctx = NULL, *ctx2 = NULL, *flood = NULL, *h = NULL, *h2 = NULL, *kh = NULL;
	int mask = 0;
	struct op o = {NCCL_PROF_COLL,
		       "AllReduce",
		       "ncclFloat32",
		       "RING",
		       "SIMPLE",
		       4,
		       7,
		       1,
		       2,
		       256,
		       0,
		       0,
		       0xbad0000000000001ull};
	struct op f = o;

	if (h_init(&ctx, &mask, o.comm_hash) || !ctx)
		return 1;
	/* stops of nothing, of garbage, twice */
	h_stop(NULL);
	h_stop((void *)(uintptr_t)0x12345);
	h_stop((void *)(uintptr_t)0xffffffffffffffffull);
	h_kstop_state(NULL, 0);
	h_kstop_state((void *)(uintptr_t)0x777, 0);
	/* NULL descriptor-less and handle-less starts; unknown types */
	h_start(ctx, NULL, &o, 0, NULL);
	h_start(ctx, &h, NULL, 1 << 20, NULL);
	if (h)
		return fprintf(stderr, "nccl_harness: a handle for an unknown type\n"), 1;
	h_start(ctx, &h, NULL, NCCL_PROF_GROUP, NULL);
	h_start(ctx, &h, NULL, NCCL_PROF_PROXY_OP, NULL);
	h_start(NULL, &h, &o, 0, NULL);
	if (h)
		return fprintf(stderr, "nccl_harness: a handle for a NULL context\n"), 1;
	/* a KernelCh whose parent is garbage, or already gone */
	h_start(ctx, &kh, NULL, NCCL_PROF_KERNEL_CH, (void *)(uintptr_t)0x4242);
	if (kh)
		return fprintf(stderr, "nccl_harness: a KernelCh handle for a bad parent\n"), 1;
	/* stopped twice: one record, the second stop ignored */
	o.func = "Twice";
	o.func1 = 3; /* ReduceScatter in v1 */
	if (h_start(ctx, &h2, &o, 0, NULL) || !h2)
		return 1;
	h_stop(h2);
	h_stop(h2);
	/* the pool flood, on a communicator of its own, finalized unstopped */
	f.func = "Flood";
	f.func1 = 1; /* Reduce in v1 */
	f.comm_hash = 0xf100d00000000000ull;
	if (h_init(&flood, &mask, f.comm_hash) || !flood)
		return 1;
	for (int i = 0; i < 5000; i++) {
		void *fh = NULL;

		f.seq = (uint64_t)i;
		h_start(flood, &fh, &f, 0, NULL);
	}
	h_fini(flood);
	/* calls with a finalized context while another one lives */
	h = NULL;
	h_start(flood, &h, &f, 0, NULL);
	if (h)
		return fprintf(stderr, "nccl_harness: a handle from a finalized context\n"), 1;
	h_fini(flood);
	h_fini(NULL);
	/* still works: one good AllReduce */
	o.func = "AllReduce";
	o.func1 = 4;
	if (h_init(&ctx2, &mask, o.comm_hash + 1) || !ctx2)
		return 1;
	if (run_task(ctx2, &o))
		return 1;
	h_fini(ctx2);
	h_fini(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	const char *lib = getenv("NCCL_PROFILER_PLUGIN"), *e;
	static const char *const names[] = {"ncclProfiler_v6", "ncclProfiler_v5",
					    "ncclProfiler_v4", "ncclProfiler_v3",
					    "ncclProfiler_v2", "ncclProfiler_v1"};
	int want = argc > 2 ? atoi(argv[2]) : 0;
	void *dl;

	if (argc < 2 || (strcmp(argv[1], "script") && strcmp(argv[1], "bad"))) {
		fprintf(stderr, "usage: nccl_harness script|bad [VERSION]\n");
		return 2;
	}
	if ((e = getenv("RANK")))
		rank_ = atoi(e);
	if ((e = getenv("WORLD_SIZE")))
		world = atoi(e);
	if (!lib || !(dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "nccl_harness: cannot load NCCL_PROFILER_PLUGIN=%s: %s\n",
			lib ? lib : "(unset)", dlerror());
		return 1;
	}
	for (int i = 0; i < 6 && !sym; i++) { /* newest first, as NCCL 2.29 */
		if (want && want != 6 - i)
			continue;
		sym = dlsym(dl, names[i]);
		ver = 6 - i;
	}
	if (!sym) {
		fprintf(stderr, "nccl_harness: no ncclProfiler_v%d in %s\n", want, lib);
		return 1;
	}
	printf("version=%d name=%s\n", ver, *(const char *const *)sym);
	fflush(stdout);
	return strcmp(argv[1], "script") == 0 ? script() : bad();
}
