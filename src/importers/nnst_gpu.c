/*
 * nnst_gpu.c - the .nnst importer's GPU records (GPU and GPUCLOCK chunks,
 * docs/FORMAT.md "GPU records") -> the model rows a Kineto trace of the
 * same run gives, so that every analysis reads them unchanged:
 *
 *   KERNEL   MK_KERNEL on thread (pid "<device>", tid "stream <id>"), corr,
 *            dev_args (stream, grid/block "[x, y, z]", registers, static +
 *            dynamic shared memory, blocks per SM and est. achieved
 *            occupancy % computed as libkineto does: model/occupancy.h)
 *   MEMCPY   MK_MEMCPY "Memcpy HtoD (Pageable -> Device)" (libkineto's
 *            memcpyName), bytes;  MEMSET  MK_MEMSET "Memset (Device)", bytes
 *   RUNTIME  MK_RUNTIME / MK_DRIVER on the caller's thread (pid b, tid a:
 *   DRIVER   the model thread its own PUSH/POP ranges land on), corr
 *   SYNC     MK_SYNC named as libkineto names the kind ("Stream Sync",
 *            "Event Sync", "Stream Wait Event", "Context Sync") on the
 *            device/stream thread, as libkineto places it; corr, stream
 *   MEMORY   a counter "cudaMalloc live bytes" per device on thread
 *            (pid "<device>", tid "cudaMalloc"): the driver-level total,
 *            kept apart from the allocator's [memory] rows (no double count)
 *   DEVICE   a model_device row (pass 1, so kernels before it get occupancy)
 *   COLL     a user_annotation "nccl:<op>" (as PyTorch's ProcessGroupNCCL
 *            names it) with Input Dims "[[count]]" and Input type
 *            "['float']", on a track of its own per communicator (pid of
 *            the trace, tid "NCCL comm <hash>"): the plugin times a
 *            collective from its kernel's start to its end, long after the
 *            calling thread moved on, so it cannot nest in that thread's
 *            ranges. Collectives of one communicator run in order; one that
 *            overlaps the next is cut at the next one's start. When the
 *            framework recorded its own nccl:* ranges (PyTorch), those stay
 *            the communication ops (their kernels attach to them) and the
 *            plugin's are renamed "NCCL <Function>" so nothing counts twice.
 *            Rank / world size / backend when the trace has none;
 *            algorithm/protocol counts in META "nccl.algorithms"
 *   EXTCORR  (pass 1) the "External id" of the runtime and device records
 *            with that correlation id (kind CUSTOM0, PyTorch's op id, wins)
 *
 * Clocks: records with NNST_GPUF_HOSTCLOCK carry raw timestamps of the
 * trace. The others carry CUPTI ns, mapped by a least-squares line through
 * the GPUCLOCK points (computed in CLOCK_MONOTONIC ns, so TSC traces fit a
 * slope near 1): one point or a degenerate set gives an offset only, so
 * does a slope off 1 by more than 1 % (said once a record needs the
 * mapping: with CUPTI on the collector's clock the points pair ticks with
 * ticks); no point at all takes CUPTI ns as CLOCK_MONOTONIC ns and says so
 * in diag.first_problem. Malformed records are skipped and counted.
 */
#include "model/occupancy.h"
#include "nnst_internal.h"
#include "common/le.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 80				/* sizeof(struct nnst_gpu) on disk */
#define DAY_NS (86400LL * 1000000000LL) /* longest plausible record: 7 days */
#define FAR_NS (366LL * DAY_NS)		/* plausible distance from the trace start */
#define EXT_CUSTOM0 3			/* CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 */

struct gpu_mem { /* one MEMORY record, sorted by time at the end */
	int64_t ts;
	int64_t delta;
	int16_t device;
};

struct gpu_algo { /* "AllReduce Ring/LL" -> count */
	uint32_t coll, algo, proto;
	int64_t n;
};

struct gpu_coll { /* a COLL range in model.events */
	uint32_t thread;
	int64_t ts;
	uint32_t ev;
	uint32_t fn; /* NCCL's function name, model string id */
};

struct gpu_ext {
	int64_t ext;
	uint32_t kind;
};

struct ni_gpu {
	VEC(struct nnst_gpuclock) pts;
	int fit;		   /* 0 none, 1 offset only, 2 line */
	long double gm, ym, slope; /* mono = ym + slope * (gpu - gm) */
	double refused;		   /* a slope the points gave and the fit refused, else 0 */
	int refused_said;	   /* said once a record in CUPTI time needed the fit */
	struct hmap ext_of;	   /* corr -> index into exts */
	VEC(struct gpu_ext) exts;
	VEC(struct occ_device) occ; /* by index of model.devices */
	VEC(uint32_t) dev_name;	    /* the same: file string id of the name */
	struct hmap dev_thr;	    /* (device, stream) -> model thread */
	struct hmap host_thr;	    /* (pid, tid) -> model thread */
	VEC(struct gpu_mem) mems;
	VEC(struct gpu_algo) algos;
	VEC(struct gpu_coll) colls;
	VEC(uint32_t) added; /* indices in model.events of the events made here */
	uint64_t nrec;	     /* records read in pass 2, for messages */
	int no_clock_said;
	int64_t rank, world; /* of the first COLL, -1 none */
};

/* A record decoded. */
struct grec {
	uint64_t start, end;
	uint32_t name;
	uint8_t type, flags;
	int16_t device;
	uint32_t corr, stream;
	uint64_t a, b;
	uint32_t u[8];
};

static void decode(const uint8_t *q, struct grec *r)
{
	r->start = le64(q);
	r->end = le64(q + 8);
	r->name = le32(q + 16);
	r->type = q[20];
	r->flags = q[21];
	r->device = (int16_t)(q[22] | q[23] << 8);
	r->corr = le32(q + 24);
	r->stream = le32(q + 28);
	r->a = le64(q + 32);
	r->b = le64(q + 40);
	for (int i = 0; i < 8; i++)
		r->u[i] = le32(q + 48 + 4 * i);
}

static struct ni_gpu *state(struct ni *x)
{
	if (!x->gpu) {
		x->gpu = calloc(1, sizeof(*x->gpu));
		if (!x->gpu)
			return NULL;
		hmap_init(&x->gpu->ext_of);
		hmap_init(&x->gpu->dev_thr);
		hmap_init(&x->gpu->host_thr);
		x->gpu->rank = x->gpu->world = -1;
	}
	return x->gpu;
}

void ni_gpu_release(struct ni *x)
{
	struct ni_gpu *g = x->gpu;

	if (!g)
		return;
	vec_free(&g->pts);
	vec_free(&g->exts);
	vec_free(&g->occ);
	vec_free(&g->dev_name);
	vec_free(&g->mems);
	vec_free(&g->algos);
	vec_free(&g->colls);
	vec_free(&g->added);
	hmap_release(&g->ext_of);
	hmap_release(&g->dev_thr);
	hmap_release(&g->host_thr);
	free(g);
	x->gpu = NULL;
}

static void skip(struct ni *x, const char *why)
{
	x->m->diag.events_skipped++;
	ni_problem(x, "%s: GPU record %" PRIu64 ": %s; skipped", x->name, x->gpu ? x->gpu->nrec : 0,
		   why);
}

/* ---- pass 1 ------------------------------------------------------------------ */

int ni_gpuclock_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	struct ni_gpu *g = state(x);

	if (!g)
		return NNS_ENOMEM;
	if (len % 16) {
		x->m->diag.events_skipped++;
		ni_problem(x,
			   "%s: a GPUCLOCK chunk of %u bytes is not a whole number of 16-byte "
			   "points; the last one skipped",
			   x->name, len);
	}
	for (uint32_t off = 0; len - off >= 16; off += 16) {
		struct nnst_gpuclock c = {le64(p + off), le64(p + off + 8)};

		if (vec_push(&g->pts, c))
			return NNS_ENOMEM;
	}
	return 0;
}

static int device_record(struct ni *x, struct ni_gpu *g, const struct grec *r)
{
	struct model_device d;
	struct occ_device o;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.id = r->device;
	d.name = 0; /* resolved once every STRINGS chunk is read (ni_gpu_prepare) */
	d.total_mem = r->a > INT64_MAX ? INT64_MAX : (int64_t)r->a;
	d.shared_mem_per_sm = r->b > INT32_MAX ? INT32_MAX : (int64_t)r->b;
	d.major = (int32_t)(r->u[0] & 0x7fffffff);
	d.minor = (int32_t)(r->u[1] & 0x7fffffff);
	d.num_sms = (int32_t)(r->u[2] & 0x7fffffff);
	d.max_threads_per_sm = (int32_t)(r->u[3] & 0x7fffffff);
	d.max_threads_per_block = (int32_t)(r->u[4] & 0x7fffffff);
	d.regs_per_sm = (int32_t)(r->u[5] & 0x7fffffff);
	d.warp_size = (int32_t)(r->u[6] & 0x7fffffff);
	occ_device_from_model(&o, &d);
	for (i = 0; i < x->m->devices.n; i++)
		if (x->m->devices.v[i].id == d.id) { /* a repeated record: the last wins */
			x->m->devices.v[i] = d;
			g->occ.v[i] = o;
			g->dev_name.v[i] = r->name;
			return 0;
		}
	if (vec_reserve(&g->occ, x->m->devices.n + 1) ||
	    vec_reserve(&g->dev_name, x->m->devices.n + 1) || model_add_device(x->m, &d))
		return NNS_ENOMEM;
	g->occ.v[x->m->devices.n - 1] = o;
	g->dev_name.v[x->m->devices.n - 1] = r->name;
	g->occ.n = g->dev_name.n = x->m->devices.n;
	return 0;
}

static int extcorr_record(struct ni_gpu *g, const struct grec *r)
{
	struct gpu_ext e = {r->a > INT64_MAX ? INT64_MAX : (int64_t)r->a, r->u[0]};
	int is_new = 0;
	uint32_t *slot;

	if (!r->corr)
		return 0;
	slot = hmap_put(&g->ext_of, r->corr, (uint32_t)g->exts.n, &is_new);
	if (!slot)
		return NNS_ENOMEM;
	if (is_new)
		return vec_push(&g->exts, e) ? NNS_ENOMEM : 0;
	/* PyTorch's operator id (CUSTOM0) wins over other kinds */
	if (g->exts.v[*slot].kind != EXT_CUSTOM0 && e.kind == EXT_CUSTOM0)
		g->exts.v[*slot] = e;
	return 0;
}

int ni_gpu_scan(struct ni *x, const uint8_t *p, uint32_t len)
{
	struct ni_gpu *g = state(x);

	if (!g)
		return NNS_ENOMEM;
	for (uint32_t off = 0; len - off >= REC; off += REC) {
		struct grec r;
		int rc = 0;

		decode(p + off, &r);
		if (r.type == NNST_GPU_DEVICE)
			rc = r.device >= 0 ? device_record(x, g, &r) : 0;
		else if (r.type == NNST_GPU_EXTCORR)
			rc = extcorr_record(g, &r);
		if (rc)
			return rc;
	}
	return 0;
}

/* The line through the calibration points, in CLOCK_MONOTONIC ns. */
int ni_gpu_prepare(struct ni *x)
{
	struct ni_gpu *g = x->gpu;
	long double sg = 0, sy = 0, sgg = 0, sgy = 0, n;

	if (!g)
		return 0;
	for (size_t i = 0; i < g->dev_name.n && i < x->m->devices.n; i++) {
		x->m->devices.v[i].name = ni_str(x, g->dev_name.v[i]);
		if (x->m->devices.v[i].name == STRPOOL_NONE)
			return NNS_ENOMEM;
	}
	if (!g->pts.n)
		return 0;
	n = (long double)g->pts.n;
	for (size_t i = 0; i < g->pts.n; i++) {
		sg += (long double)g->pts.v[i].gpu_ns;
		sy += (long double)nnst_clockmap_ns(&x->clock, g->pts.v[i].raw);
	}
	g->gm = sg / n;
	g->ym = sy / n;
	for (size_t i = 0; i < g->pts.n; i++) {
		long double dg = (long double)g->pts.v[i].gpu_ns - g->gm;
		long double dy = (long double)nnst_clockmap_ns(&x->clock, g->pts.v[i].raw) - g->ym;

		sgg += dg * dg;
		sgy += dg * dy;
	}
	g->slope = 1;
	g->fit = 1;
	if (g->pts.n >= 2 && sgg > 0) {
		long double s = sgy / sgg;

		/* two clocks counting ns drift by ppm, not by percents */
		if (s > 0.99L && s < 1.01L) {
			g->slope = s;
			g->fit = 2;
		} else {
			/* said when a record needs the line: with CUPTI on the
			 * collector's clock (HOSTCLOCK records) the points pair
			 * raw ticks with raw ticks and are never used */
			g->refused = (double)s;
		}
	}
	return 0;
}

/* ---- pass 2 ------------------------------------------------------------------ */

/* Model ns of a record time; 0 when it is implausible. */
static int map_time(struct ni *x, struct ni_gpu *g, const struct grec *r, uint64_t t, int64_t *out)
{
	int64_t mono;

	if (r->flags & NNST_GPUF_HOSTCLOCK) {
		*out = ni_time(x, t);
		mono = nnst_clockmap_ns(&x->clock, t);
	} else if (g->fit) {
		long double v = g->ym + g->slope * ((long double)t - g->gm);

		if (g->refused != 0 && !g->refused_said) {
			g->refused_said = 1;
			ni_problem(x,
				   "%s: the GPUCLOCK points give a slope of %g ns per CUPTI ns; "
				   "mapped by their mean offset instead",
				   x->name, g->refused);
		}

		if (!(v > -(long double)INT64_MAX && v < (long double)INT64_MAX))
			return 0;
		mono = (int64_t)llroundl(v);
		*out = ni_mono_time(x, mono);
	} else {
		if (!g->no_clock_said) {
			g->no_clock_said = 1;
			ni_problem(x,
				   "%s: GPU records in CUPTI time but no GPUCLOCK point: their "
				   "times are taken as CLOCK_MONOTONIC ns",
				   x->name);
		}
		mono = t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
		*out = ni_mono_time(x, mono);
	}
	/* a year away from the trace's start: a broken clock, not a record */
	if (mono > x->hdr.start_mono_ns + FAR_NS || mono < x->hdr.start_mono_ns - FAR_NS)
		return 0;
	return 1;
}

static uint32_t intern_pre(struct ni *x, const char *prefix, int64_t v)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s%" PRId64, prefix, v);

	return model_intern(x->m, buf, (size_t)n);
}

static uint32_t dev_thread(struct ni *x, struct ni_gpu *g, int16_t device, int64_t stream)
{
	uint64_t key = hmap_pair((uint32_t)(uint16_t)device, (uint32_t)stream);
	uint32_t *hit = hmap_get(&g->dev_thr, key), pid, tid, t;

	if (hit)
		return *hit;
	pid = intern_pre(x, "", device);
	tid = intern_pre(x, "stream ", stream);
	if (pid == STRPOOL_NONE || tid == STRPOOL_NONE)
		return MODEL_NOIDX;
	t = model_thread(x->m, pid, tid);
	if (t != MODEL_NOIDX && !hmap_put(&g->dev_thr, key, t, NULL))
		return MODEL_NOIDX;
	return t;
}

/* The model thread of OS tid `tid` in process `pid` (0: the traced one):
 * the one the collector's THREAD records define for that tid. */
static uint32_t host_thread(struct ni *x, struct ni_gpu *g, uint64_t tid, uint64_t pid)
{
	uint64_t key;
	uint32_t *hit, p, t, th;

	if (pid == 0)
		pid = (uint64_t)x->hdr.pid;
	key = hmap_pair((uint32_t)pid, (uint32_t)tid);
	hit = hmap_get(&g->host_thr, key);
	if (hit && pid <= UINT32_MAX && tid <= UINT32_MAX)
		return *hit;
	p = pid == (uint64_t)x->hdr.pid ? x->pid : intern_pre(x, "", (int64_t)pid);
	t = intern_pre(x, "", (int64_t)tid);
	if (p == STRPOOL_NONE || t == STRPOOL_NONE)
		return MODEL_NOIDX;
	th = model_thread(x->m, p, t);
	if (th != MODEL_NOIDX && pid <= UINT32_MAX && tid <= UINT32_MAX &&
	    !hmap_put(&g->host_thr, key, th, NULL))
		return MODEL_NOIDX;
	return th;
}

static int64_t ext_of(struct ni_gpu *g, uint32_t corr)
{
	uint32_t *hit = corr ? hmap_get(&g->ext_of, corr) : NULL;

	return hit ? g->exts.v[*hit].ext : MODEL_NONE;
}

static const char *memcpy_kind(uint32_t k)
{
	static const char *const s[] = {"<unknown>", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					"AtoD",	     "DtoA", "DtoD", "HtoH", "PtoP"};

	return k < sizeof(s) / sizeof(s[0]) ? s[k] : "<unknown>";
}

static const char *memory_kind(uint32_t k)
{
	static const char *const s[] = {"Unknown", "Pageable", "Pinned",	"Device",
					"Array",   "Managed",  "Device Static", "Managed Static"};

	return k < sizeof(s) / sizeof(s[0]) ? s[k] : k == 0x7fffffff ? "Force Int" : "Unrecognized";
}

static const char *sync_name(uint32_t k)
{
	static const char *const s[] = {"Unknown Sync", "Event Sync", "Stream Wait Event",
					"Stream Sync", "Context Sync"};

	return k < sizeof(s) / sizeof(s[0]) ? s[k] : "Unknown Sync";
}

static uint32_t dims3(struct ni *x, const uint32_t *v)
{
	char buf[48];
	int n =
	    snprintf(buf, sizeof(buf), "[%" PRIu32 ", %" PRIu32 ", %" PRIu32 "]", v[0], v[1], v[2]);

	return model_intern(x->m, buf, (size_t)n);
}

static int add(struct ni *x, struct model_event *e, const struct model_dev_args *da)
{
	if (x->m->events.n >= UINT32_MAX || vec_push(&x->gpu->added, (uint32_t)x->m->events.n))
		return NNS_ENOMEM;
	if (da) {
		int64_t idx = model_add_dev_args(x->m, da);

		if (idx < 0)
			return NNS_ENOMEM;
		e->extra = (uint32_t)idx;
	}
	return model_add_event(x->m, e) < 0 ? NNS_ENOMEM : 0;
}

static void kernel_args(struct ni *x, struct ni_gpu *g, const struct grec *r,
			struct model_dev_args *da)
{
	const struct occ_device *o = NULL;
	uint64_t smem = (uint64_t)r->u[7] + r->a;

	da->regs = r->u[6] > INT32_MAX ? INT32_MAX : (int32_t)r->u[6];
	da->shared_mem = smem > INT64_MAX ? INT64_MAX : (int64_t)smem;
	for (size_t i = 0; i < x->m->devices.n && i < g->occ.n; i++)
		if (x->m->devices.v[i].id == r->device)
			o = &g->occ.v[i];
	if (o && o->num_sms > 0) {
		float occ;

		da->blocks_per_sm = occ_blocks_per_sm(r->u[0], r->u[1], r->u[2], o->num_sms);
		/* libkineto's registersPerThread is a uint16_t field */
		occ = occ_achieved(o, (int)(uint16_t)r->u[6], r->u[7],
				   r->a > INT32_MAX ? INT64_MAX : (int64_t)r->a, r->u[3], r->u[4],
				   r->u[5], da->blocks_per_sm);
		if (occ >= 0)
			da->occupancy = (float)occ_percent(occ);
	}
}

static int device_event(struct ni *x, struct ni_gpu *g, const struct grec *r, int64_t ts,
			int64_t end)
{
	struct model_event e;
	struct model_dev_args da;
	char buf[96];

	model_event_init(&e);
	model_dev_args_init(&da);
	e.ts = ts;
	e.dur = end - ts;
	if (model_event_ids(x->m, &e, ext_of(g, r->corr), r->corr ? (int64_t)r->corr : MODEL_NONE))
		return NNS_ENOMEM;
	e.device = r->device;
	da.stream = r->stream;
	e.thread = dev_thread(x, g, r->device, r->stream);
	if (e.thread == MODEL_NOIDX)
		return NNS_ENOMEM;
	switch (r->type) {
	case NNST_GPU_KERNEL:
		e.kind = MK_KERNEL;
		e.name = ni_str(x, r->name);
		da.grid = dims3(x, r->u);
		da.block = dims3(x, r->u + 3);
		if (da.grid == STRPOOL_NONE || da.block == STRPOOL_NONE)
			return NNS_ENOMEM;
		kernel_args(x, g, r, &da);
		break;
	case NNST_GPU_MEMCPY:
		e.kind = MK_MEMCPY;
		snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)", memcpy_kind(r->u[0]),
			 memory_kind(r->u[1]), memory_kind(r->u[2]));
		e.name = model_intern(x->m, buf, strlen(buf));
		da.bytes = r->a > INT64_MAX ? INT64_MAX : (int64_t)r->a;
		break;
	default: /* NNST_GPU_MEMSET */
		e.kind = MK_MEMSET;
		/* the record has no memory kind: CUPTI's memsets of torch are on
		 * device memory */
		e.name = model_intern(x->m, "Memset (Device)", 15);
		da.bytes = r->a > INT64_MAX ? INT64_MAX : (int64_t)r->a;
		break;
	}
	if (e.name == STRPOOL_NONE)
		return NNS_ENOMEM;
	return add(x, &e, &da);
}

static int api_event(struct ni *x, struct ni_gpu *g, const struct grec *r, int64_t ts, int64_t end)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = ts;
	e.dur = end - ts;
	e.kind = r->type == NNST_GPU_RUNTIME ? MK_RUNTIME : MK_DRIVER;
	if (model_event_ids(x->m, &e, ext_of(g, r->corr), r->corr ? (int64_t)r->corr : MODEL_NONE))
		return NNS_ENOMEM;
	e.thread = host_thread(x, g, r->a, r->b);
	if (r->name)
		e.name = ni_str(x, r->name);
	else
		e.name = intern_pre(
		    x, r->type == NNST_GPU_RUNTIME ? "cuda runtime cbid " : "cuda driver cbid ",
		    r->u[0]);
	if (e.thread == MODEL_NOIDX || e.name == STRPOOL_NONE)
		return NNS_ENOMEM;
	return add(x, &e, NULL);
}

static int sync_event(struct ni *x, struct ni_gpu *g, const struct grec *r, int64_t ts, int64_t end)
{
	struct model_event e;
	struct model_dev_args da;
	const char *n = sync_name(r->u[0]);

	model_event_init(&e);
	model_dev_args_init(&da);
	e.ts = ts;
	e.dur = end - ts;
	e.kind = MK_SYNC;
	if (model_event_ids(x->m, &e, ext_of(g, r->corr), r->corr ? (int64_t)r->corr : MODEL_NONE))
		return NNS_ENOMEM;
	e.device = r->device;
	/* CUPTI writes an invalid stream (all ones) for context and event
	 * syncs; libkineto prints it as int32 (-1) */
	da.stream = (int32_t)r->stream;
	e.thread = dev_thread(x, g, r->device, da.stream);
	e.name = model_intern(x->m, n, strlen(n));
	if (e.thread == MODEL_NOIDX || e.name == STRPOOL_NONE)
		return NNS_ENOMEM;
	return add(x, &e, &da);
}

/* NCCL's function name -> PyTorch's ProcessGroupNCCL op name. */
static uint32_t coll_name(struct ni *x, const char *fn)
{
	static const struct {
		const char *nccl, *torch;
	} tab[] = {{"AllReduce", "nccl:all_reduce"},
		   {"AllGather", "nccl:all_gather"},
		   {"ReduceScatter", "nccl:reduce_scatter"},
		   {"Broadcast", "nccl:broadcast"},
		   {"Reduce", "nccl:reduce"},
		   {"Send", "nccl:send"},
		   {"Recv", "nccl:recv"},
		   {"AllToAll", "nccl:all_to_all"},
		   {"AlltoAll", "nccl:all_to_all"},
		   {"SendRecv", "nccl:send_recv"}};
	char buf[128];
	size_t n = 5;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(fn, tab[i].nccl) == 0)
			return model_intern(x->m, tab[i].torch, strlen(tab[i].torch));
	/* anything else: "nccl:" + snake_case ("AllGatherV" -> all_gather_v) */
	memcpy(buf, "nccl:", 5);
	for (const char *s = fn; *s && n < sizeof(buf) - 3; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z') {
			if (s != fn && buf[n - 1] != '_')
				buf[n++] = '_';
			c = (char)(c + 32);
		}
		buf[n++] = c;
	}
	if (n == 5)
		buf[n++] = '?';
	return model_intern(x->m, buf, n);
}

/* NCCL datatype text ("ncclFloat32", or "float" ...) -> PyTorch's type
 * text in "Input type" (comm.c sizes these); NULL when unknown. */
static const char *torch_type(const char *dt)
{
	static const struct {
		const char *nccl, *torch;
	} tab[] = {{"ncclInt8", "signed char"},
		   {"ncclChar", "signed char"},
		   {"ncclUint8", "unsigned char"},
		   {"ncclInt32", "int"},
		   {"ncclInt", "int"},
		   {"ncclUint32", "unsigned int"},
		   {"ncclInt64", "long int"},
		   {"ncclUint64", "unsigned long"},
		   {"ncclFloat16", "c10::Half"},
		   {"ncclHalf", "c10::Half"},
		   {"ncclFloat32", "float"},
		   {"ncclFloat", "float"},
		   {"ncclFloat64", "double"},
		   {"ncclDouble", "double"},
		   {"ncclBfloat16", "c10::BFloat16"},
		   {"ncclFloat8e4m3", "c10::Float8_e4m3fn"},
		   {"ncclFloat8e5m2", "c10::Float8_e5m2"}};
	static const char *const plain[] = {"float",	     "double",	    "int",
					    "long int",	     "c10::Half",   "c10::BFloat16",
					    "unsigned char", "signed char", "unsigned int",
					    "unsigned long", NULL};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(dt, tab[i].nccl) == 0)
			return tab[i].torch;
	for (size_t i = 0; plain[i]; i++)
		if (strcmp(dt, plain[i]) == 0)
			return plain[i];
	return NULL;
}

static int note_algo(struct ni_gpu *g, uint32_t coll, uint32_t algo, uint32_t proto)
{
	struct gpu_algo a = {coll, algo, proto, 1};

	for (size_t i = 0; i < g->algos.n; i++)
		if (g->algos.v[i].coll == coll && g->algos.v[i].algo == algo &&
		    g->algos.v[i].proto == proto) {
			g->algos.v[i].n++;
			return 0;
		}
	return g->algos.n < 256 && vec_push(&g->algos, a) ? NNS_ENOMEM : 0;
}

/* The track of communicator `hash`: pid of the trace, tid "NCCL comm
 * <hash>". */
static uint32_t comm_thread(struct ni *x, uint64_t hash)
{
	char buf[40];
	uint32_t tid;

	snprintf(buf, sizeof(buf), "NCCL comm %016" PRIx64, hash);
	tid = model_intern(x->m, buf, strlen(buf));
	return tid == STRPOOL_NONE ? MODEL_NOIDX : model_thread(x->m, x->pid, tid);
}

static int coll_event(struct ni *x, struct ni_gpu *g, const struct grec *r, int64_t ts, int64_t end)
{
	struct model_event e;
	struct model_op_args a;
	uint32_t dts = ni_str(x, r->u[0]), fn = ni_str(x, r->name);
	const char *dt, *tt;
	char buf[64];
	int64_t idx;

	if (dts == STRPOOL_NONE || fn == STRPOOL_NONE)
		return NNS_ENOMEM;
	dt = model_str(x->m, dts);
	tt = torch_type(dt);

	model_event_init(&e);
	model_op_args_init(&a);
	e.ts = ts;
	e.dur = end - ts;
	e.kind = MK_USER_ANNOTATION;
	e.name = coll_name(x, model_str(x->m, fn));
	e.thread = comm_thread(x, r->b);
	if (e.name == STRPOOL_NONE || e.thread == MODEL_NOIDX)
		return NNS_ENOMEM;
	snprintf(buf, sizeof(buf), "[[%" PRIu64 "]]", r->a);
	a.input_dims = model_intern(x->m, buf, strlen(buf));
	if (tt) {
		snprintf(buf, sizeof(buf), "['%s']", tt);
		a.input_type = model_intern(x->m, buf, strlen(buf));
	} else {
		ni_problem(x,
			   "%s: GPU record %" PRIu64 ": an NCCL datatype this nnscope does not "
			   "know: its bytes count 0",
			   x->name, g->nrec);
	}
	if (a.input_dims == STRPOOL_NONE || a.input_type == STRPOOL_NONE)
		return NNS_ENOMEM;
	if ((idx = model_add_op_args(x->m, &a)) < 0)
		return NNS_ENOMEM;
	e.extra = (uint32_t)idx;
	if (g->rank < 0) {
		g->rank = r->u[3];
		g->world = r->u[4];
	}
	{
		uint32_t al = ni_str(x, r->u[1]), pr = ni_str(x, r->u[2]);

		if (al == STRPOOL_NONE || pr == STRPOOL_NONE || note_algo(g, e.name, al, pr))
			return NNS_ENOMEM;
	}
	{
		struct gpu_coll c = {e.thread, e.ts, (uint32_t)x->m->events.n, fn};

		if (x->m->events.n >= UINT32_MAX || vec_push(&g->colls, c))
			return NNS_ENOMEM;
	}
	return add(x, &e, NULL);
}

static int record(struct ni *x, struct ni_gpu *g, const uint8_t *q)
{
	struct grec r;
	int64_t ts = 0, end = 0;

	decode(q, &r);
	g->nrec++;
	if (r.type < NNST_GPU_KERNEL || r.type > NNST_GPU_EXTCORR) {
		x->m->diag.events_skipped++;
		ni_problem(x, "%s: GPU record %" PRIu64 ": unknown type %u skipped", x->name,
			   g->nrec, r.type);
		return 0;
	}
	if (r.type == NNST_GPU_DEVICE && r.device < 0) {
		skip(x, "a DEVICE record of device -1");
		return 0;
	}
	if (r.type == NNST_GPU_DEVICE || r.type == NNST_GPU_EXTCORR)
		return 0; /* read in pass 1 */
	if (!map_time(x, g, &r, r.start, &ts) || !map_time(x, g, &r, r.end, &end)) {
		skip(x, "a timestamp a year away from the trace's start");
		return 0;
	}
	if (end < ts) {
		skip(x, "it ends before it starts");
		return 0;
	}
	if (end - ts > 7 * DAY_NS) {
		skip(x, "it lasts more than a week");
		return 0;
	}
	if (r.name && !hmap_get(&x->strs, r.name))
		ni_problem(x, "%s: GPU record %" PRIu64 ": string id %u never defined", x->name,
			   g->nrec, r.name);
	switch (r.type) {
	case NNST_GPU_KERNEL:
	case NNST_GPU_MEMCPY:
	case NNST_GPU_MEMSET:
		return device_event(x, g, &r, ts, end);
	case NNST_GPU_RUNTIME:
	case NNST_GPU_DRIVER:
		return api_event(x, g, &r, ts, end);
	case NNST_GPU_SYNC:
		return sync_event(x, g, &r, ts, end);
	case NNST_GPU_COLL:
		return coll_event(x, g, &r, ts, end);
	case NNST_GPU_MEMORY: {
		struct gpu_mem mr = {ts, 0, r.device};
		int64_t b = r.b > INT64_MAX ? INT64_MAX : (int64_t)r.b;

		if (r.u[0] != 1 && r.u[0] != 2) {
			skip(x, "a MEMORY record neither alloc (1) nor free (2)");
			return 0;
		}
		mr.delta = r.u[0] == 1 ? b : -b;
		return vec_push(&g->mems, mr) ? NNS_ENOMEM : 0;
	}
	}
	return 0;
}

int ni_gpu_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	struct ni_gpu *g = state(x);

	if (!g)
		return NNS_ENOMEM;
	if (len % REC) {
		x->m->diag.events_skipped++;
		ni_problem(x,
			   "%s: a GPU chunk of %u bytes is not a whole number of %d-byte records; "
			   "its last %u bytes skipped",
			   x->name, len, REC, len % REC);
	}
	for (uint32_t off = 0; len - off >= REC; off += REC) {
		int rc = record(x, g, p + off);

		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the end ------------------------------------------------------------------ */

static int mem_cmp(const void *a, const void *b)
{
	const struct gpu_mem *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int mem_counters(struct ni *x, struct ni_gpu *g)
{
	uint32_t name = model_intern(x->m, "cudaMalloc live bytes", 21), tid;
	int64_t total = 0;

	if (!g->mems.n)
		return 0;
	tid = model_intern(x->m, "cudaMalloc", 10);
	if (name == STRPOOL_NONE || tid == STRPOOL_NONE)
		return NNS_ENOMEM;
	qsort(g->mems.v, g->mems.n, sizeof(*g->mems.v), mem_cmp);
	for (size_t i = 0; i < g->mems.n; i++) {
		struct model_counter c;
		uint32_t pid;

		if (i == 0 || g->mems.v[i].device != g->mems.v[i - 1].device)
			total = 0;
		total += g->mems.v[i].delta;
		pid = intern_pre(x, "", g->mems.v[i].device);
		if (pid == STRPOOL_NONE)
			return NNS_ENOMEM;
		c.ts = g->mems.v[i].ts;
		c.value = (double)total;
		c.name = name;
		c.thread = model_thread(x->m, pid, tid);
		if (c.thread == MODEL_NOIDX || model_add_counter(x->m, &c))
			return NNS_ENOMEM;
	}
	return 0;
}

/* META "nccl.algorithms": "nccl:all_reduce Ring/LL x12; ..." */
static int algo_meta(struct ni *x, struct ni_gpu *g)
{
	char buf[4096];
	size_t n = 0;

	if (!g->algos.n)
		return 0;
	buf[0] = 0;
	for (size_t i = 0; i < g->algos.n && n < sizeof(buf) - 1; i++) {
		const struct gpu_algo *a = &g->algos.v[i];
		int k = snprintf(buf + n, sizeof(buf) - n, "%s%s %s/%s x%" PRId64, i ? "; " : "",
				 model_str(x->m, a->coll), model_str(x->m, a->algo),
				 model_str(x->m, a->proto), a->n);

		if (k < 0)
			break;
		n += (size_t)k < sizeof(buf) - n ? (size_t)k : sizeof(buf) - n - 1;
	}
	return model_add_meta(x->m, "nccl.algorithms", buf);
}

static int coll_cmp(const void *a, const void *b)
{
	const struct gpu_coll *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Collectives of one communicator run in order: one that overlaps the
 * next (kernel-event times are the proxy thread's, late by its polling)
 * ends at the next one's start, so the track nests. */
static void clip_colls(struct ni *x, struct ni_gpu *g)
{
	if (!g->colls.n)
		return;
	qsort(g->colls.v, g->colls.n, sizeof(*g->colls.v), coll_cmp);
	for (size_t k = 0; k + 1 < g->colls.n; k++) {
		const struct gpu_coll *c = &g->colls.v[k], *d = &g->colls.v[k + 1];
		struct model_event *e = &x->m->events.v[c->ev];

		if (d->thread == c->thread && e->ts + e->dur > d->ts)
			e->dur = d->ts - e->ts;
	}
}

static int is_nccl_name(const char *s)
{
	return s && s[0] == 'n' && s[1] == 'c' && s[2] == 'c' && s[3] == 'l' && s[4] == ':';
}

/* Whether a host range named nccl:* lies on a thread that is not a
 * communicator track: the framework recorded its own collectives. */
static int framework_colls(const struct ni *x, const struct ni_gpu *g)
{
	const struct model *m = x->m;
	uint8_t *track;
	int found = 0;

	if (!g->colls.n)
		return 0;
	track = calloc(m->threads.n ? m->threads.n : 1, 1);
	if (!track)
		return 0;
	for (size_t k = 0; k < g->colls.n; k++)
		track[g->colls.v[k].thread] = 1;
	for (size_t i = 0; i < m->events.n && !found; i++) {
		const struct model_event *e = &m->events.v[i];

		found = (e->kind == MK_CPU_OP || e->kind == MK_USER_ANNOTATION) &&
			e->thread < m->threads.n && !track[e->thread] &&
			is_nccl_name(model_str(m, e->name));
	}
	free(track);
	return found;
}

/* "NCCL AllReduce" for the plugin's ranges when the framework's count. */
static int rename_colls(struct ni *x, struct ni_gpu *g)
{
	char buf[160];

	for (size_t k = 0; k < g->colls.n; k++) {
		uint32_t id;

		snprintf(buf, sizeof(buf), "NCCL %s", model_str(x->m, g->colls.v[k].fn));
		if ((id = model_intern(x->m, buf, strlen(buf))) == STRPOOL_NONE)
			return NNS_ENOMEM;
		x->m->events.v[g->colls.v[k].ev].name = id;
	}
	return 0;
}

int ni_gpu_finish(struct ni *x)
{
	struct ni_gpu *g = x->gpu;
	char v[32];

	if (!g)
		return 0;
	clip_colls(x, g);
	if (framework_colls(x, g) && rename_colls(x, g))
		return NNS_ENOMEM;
	if (mem_counters(x, g) || algo_meta(x, g))
		return NNS_ENOMEM;
	if (g->rank >= 0) {
		if (x->m->dist_rank < 0) {
			snprintf(v, sizeof(v), "%" PRId64, g->rank);
			if (model_add_meta(x->m, "rank", v))
				return NNS_ENOMEM;
		}
		if (x->m->dist_world_size <= 0 && g->world > 0) {
			snprintf(v, sizeof(v), "%" PRId64, g->world);
			if (model_add_meta(x->m, "world_size", v))
				return NNS_ENOMEM;
		}
		if (!x->m->dist_backend) {
			x->m->dist_backend = model_intern(x->m, "nccl", 4);
			if (x->m->dist_backend == STRPOOL_NONE)
				return NNS_ENOMEM;
		}
	}
	/* last: it moves events, and colls hold their indices */
	return ni_gpu_keep_windows(x, g->added.v, g->added.n);
}
