/*
 * cupti_records.c - CUPTI activity records -> struct nnst_gpu
 * (docs/FORMAT.md "GPU records"); cupti_dump.c saves and replays raw
 * buffers through it. cupti.c owns the conversion state (one struct nns_cupti_conv) and calls this
 * from CUPTI's buffer-completed callback, off the hot path.
 *
 * Fields are read by the offsets of cupti_abi.h (the same in every record
 * version of CUPTI 12.x and 13.x, see cupti_layout.c), with memcpy, so a
 * record is never cast to a struct of one version. Mapping:
 *   CONCURRENT_KERNEL -> KERNEL  (grid, block, registers, static and
 *                                 dynamic shared memory, graph id)
 *   MEMCPY, MEMCPY2   -> MEMCPY  (bytes, copy kind, src/dst memory kinds)
 *   MEMSET            -> MEMSET  (bytes, value)
 *   RUNTIME, DRIVER   -> RUNTIME, DRIVER (caller tid and pid, cbid; the
 *                                 name from cuptiGetCallbackName, runtime
 *                                 names without CUPTI's "_v<NNNN>" suffix,
 *                                 as libkineto names them)
 *   SYNCHRONIZATION   -> SYNC    (type, CUDA event id, stream as CUPTI
 *                                 gives it (all ones for context and event
 *                                 syncs); the caller's tid and pid from the
 *                                 API record of the same correlation id,
 *                                 the device from a kernel/copy/memset of
 *                                 the same context; 0 / -1 when not seen)
 *   MEMORY2           -> MEMORY  (allocation / release, address, bytes)
 *   EXTERNAL_CORRELATION -> EXTCORR
 * Other kinds are counted and skipped. CUPTI's invalid ids (0xffffffff)
 * become device -1 / stream 0 on device-side records.
 */
#include "collector/cupti_abi.h"
#include "collector/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t nns_cupti_record_size13(uint32_t kind)
{
	switch (kind) {
	case NNS_CK_CONCURRENT_KERNEL:
		return 216; /* CUpti_ActivityKernel10 */
	case NNS_CK_MEMCPY:
	case NNS_CK_MEMCPY2:
		return 96; /* Memcpy6, MemcpyPtoP4 */
	case NNS_CK_MEMSET:
		return 88; /* Memset4 */
	case NNS_CK_RUNTIME:
	case NNS_CK_DRIVER:
		return 40; /* API */
	case NNS_CK_SYNCHRONIZATION:
		return 56; /* Synchronization2 */
	case NNS_CK_MEMORY2:
		return 128; /* Memory4 */
	case NNS_CK_EXTERNAL_CORRELATION:
		return 24;
	default:
		return 0;
	}
}

/* The cursor is the previous record (*rec, NULL to begin), as in CUPTI. */
int nns_cupti_next13(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = 0, sz;
	uint32_t kind;

	if (*rec) {
		memcpy(&kind, *rec, 4);
		off = (size_t)((uint8_t *)*rec - buf) + nns_cupti_record_size13(kind);
	}
	if (off + 4 > valid)
		return NNS_CUPTI_ERROR_MAX_LIMIT_REACHED;
	memcpy(&kind, buf + off, 4);
	sz = nns_cupti_record_size13(kind);
	if (!sz || off + sz > valid)
		return NNS_CUPTI_ERROR_MAX_LIMIT_REACHED; /* unknown kind: cannot go on */
	*rec = buf + off;
	return NNS_CUPTI_SUCCESS;
}

int nns_cupti_conv_init(struct nns_cupti_conv *c)
{
	memset(c, 0, sizeof(*c));
	c->apin = calloc(2 * NNS_CUPTI_CBID_MAX, sizeof(uint32_t));
	return c->apin ? NNS_OK : NNS_ENOMEM;
}

void nns_cupti_conv_release(struct nns_cupti_conv *c)
{
	free(c->apin);
	c->apin = NULL;
}

static uint32_t u32at(const uint8_t *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r + off, 4);
	return v;
}

static uint64_t u64at(const uint8_t *r, size_t off)
{
	uint64_t v;

	memcpy(&v, r + off, 8);
	return v;
}

static int16_t dev16(uint32_t id)
{
	return id == NNS_CUPTI_INVALID_ID || id > INT16_MAX ? -1 : (int16_t)id;
}

static uint32_t stream32(uint32_t id)
{
	return id == NNS_CUPTI_INVALID_ID ? 0 : id;
}

/* A runtime API name as libkineto shows it: CUPTI's callback names carry
 * the version the call appeared in ("cudaLaunchKernel_v7000",
 * "cudaMemcpyAsync_ptsz_v7000"), dropped here ("cudaLaunchKernel",
 * "cudaMemcpyAsync_ptsz"); driver names ("cuMemAlloc_v2") are the real
 * function names and stay. */
static void runtime_name(const char *s, char *dst, size_t size)
{
	const char *v = strrchr(s, '_');
	size_t n = strlen(s), digits = 0;

	if (v && v[1] == 'v' && v != s) {
		for (const char *p = v + 2; *p >= '0' && *p <= '9'; p++)
			digits++;
		if (digits >= 4 && v[2 + digits] == '\0')
			n = (size_t)(v - s);
	}
	snprintf(dst, size, "%.*s", (int)n, s);
}

static uint32_t api_name(struct nns_cupti_conv *c, uint32_t domain, uint32_t cbid)
{
	uint32_t *slot = NULL, id;
	const char *s = NULL;
	char tmp[256];

	if (c->apin && cbid < NNS_CUPTI_CBID_MAX) {
		slot =
		    c->apin + cbid + (domain == NNS_CUPTI_DOMAIN_DRIVER ? 0 : NNS_CUPTI_CBID_MAX);
		if ((id = *slot) != 0)
			return id;
	}
	if (!c->cbname || c->cbname(domain, cbid, &s) != NNS_CUPTI_SUCCESS || !s || !*s) {
		snprintf(tmp, sizeof(tmp), "%s cbid %u",
			 domain == NNS_CUPTI_DOMAIN_DRIVER ? "driver" : "runtime", cbid);
		s = tmp;
	} else if (domain == NNS_CUPTI_DOMAIN_RUNTIME) {
		runtime_name(s, tmp, sizeof(tmp));
		s = tmp;
	}
	id = nns_name(s);
	if (slot)
		*slot = id;
	return id;
}

static void kernel(const uint8_t *r, struct nnst_gpu *g)
{
	const char *name;
	int32_t v[8];

	g->type = NNST_GPU_KERNEL;
	g->start = u64at(r, NNS_KO_START);
	g->end = u64at(r, NNS_KO_END);
	g->device = dev16(u32at(r, NNS_KO_DEVICE));
	g->stream = stream32(u32at(r, NNS_KO_STREAM));
	g->corr = u32at(r, NNS_KO_CORR);
	memcpy(v, r + NNS_KO_GRID, 3 * 4);
	memcpy(v + 3, r + NNS_KO_BLOCK, 3 * 4);
	v[6] = 0;
	memcpy(&v[6], r + NNS_KO_REGS, 2);
	memcpy(&v[7], r + NNS_KO_SSMEM, 4);
	memcpy(g->u, v, sizeof(v));
	g->a = (uint32_t)u32at(r, NNS_KO_DSMEM);
	g->b = u32at(r, NNS_KO_GRAPH);
	memcpy(&name, r + NNS_KO_NAME, sizeof(name));
	g->name = nns_name(name && *name ? name : "<unnamed kernel>");
}

static void api(struct nns_cupti_conv *c, const uint8_t *r, uint32_t kind, struct nnst_gpu *g)
{
	uint32_t corr = u32at(r, NNS_AO_CORR);
	uint32_t domain =
	    kind == NNS_CK_DRIVER ? NNS_CUPTI_DOMAIN_DRIVER : NNS_CUPTI_DOMAIN_RUNTIME;

	g->type = kind == NNS_CK_DRIVER ? NNST_GPU_DRIVER : NNST_GPU_RUNTIME;
	g->start = u64at(r, NNS_AO_START);
	g->end = u64at(r, NNS_AO_END);
	g->device = -1;
	g->corr = corr;
	g->a = u32at(r, NNS_AO_TID);
	g->b = u32at(r, NNS_AO_PID);
	g->u[0] = u32at(r, NNS_AO_CBID);
	g->name = api_name(c, domain, g->u[0]);
}

static void remember_caller(struct nns_cupti_conv *c, const uint8_t *r)
{
	uint32_t corr = u32at(r, NNS_AO_CORR);

	if (!corr)
		return;
	c->tidmap[corr % NNS_CUPTI_TIDMAP].corr = corr;
	c->tidmap[corr % NNS_CUPTI_TIDMAP].tid = u32at(r, NNS_AO_TID);
	c->tidmap[corr % NNS_CUPTI_TIDMAP].pid = u32at(r, NNS_AO_PID);
}

/* CUpti_ActivitySynchronizationType: 1 event, 2 stream wait event,
 * 3 stream, 4 context synchronize */
static void remember_context(struct nns_cupti_conv *c, uint32_t ctx, uint32_t device)
{
	size_t i = ctx % NNS_CUPTI_CTXMAP;

	if (ctx != NNS_CUPTI_INVALID_ID && device != NNS_CUPTI_INVALID_ID) {
		c->ctxmap[i].ctx = ctx;
		c->ctxmap[i].device = device + 1;
	}
}

static int16_t context_device(const struct nns_cupti_conv *c, uint32_t ctx)
{
	size_t i = ctx % NNS_CUPTI_CTXMAP;

	if (ctx == NNS_CUPTI_INVALID_ID || !c->ctxmap[i].device || c->ctxmap[i].ctx != ctx)
		return -1;
	return dev16(c->ctxmap[i].device - 1);
}

static const char *sync_name(uint32_t type)
{
	static const char *names[] = {"cudaEventSynchronize", "cudaStreamWaitEvent",
				      "cudaStreamSynchronize", "cudaDeviceSynchronize"};

	return type >= 1 && type <= 4 ? names[type - 1] : "cudaSynchronize";
}

int nns_cupti_convert(struct nns_cupti_conv *c, const uint8_t *r, struct nnst_gpu *g)
{
	uint32_t kind = u32at(r, 0), v;

	memset(g, 0, sizeof(*g));
	g->flags = c->flags;
	switch (kind) {
	case NNS_CK_CONCURRENT_KERNEL:
		kernel(r, g);
		break;
	case NNS_CK_MEMCPY:
	case NNS_CK_MEMCPY2:
		g->type = NNST_GPU_MEMCPY;
		g->start = u64at(r, NNS_MO_START);
		g->end = u64at(r, NNS_MO_END);
		g->device = dev16(u32at(r, NNS_MO_DEVICE));
		g->stream = stream32(u32at(r, NNS_MO_STREAM));
		g->corr = u32at(r, kind == NNS_CK_MEMCPY ? NNS_MO_CORR : NNS_MO_P2P_CORR);
		g->a = u64at(r, NNS_MO_BYTES);
		g->u[0] = r[NNS_MO_COPYKIND];
		g->u[1] = r[NNS_MO_COPYKIND + 1];
		g->u[2] = r[NNS_MO_COPYKIND + 2];
		g->name = nns_name(kind == NNS_CK_MEMCPY ? "Memcpy" : "Memcpy PtoP");
		break;
	case NNS_CK_MEMSET:
		g->type = NNST_GPU_MEMSET;
		g->start = u64at(r, NNS_SO_START);
		g->end = u64at(r, NNS_SO_END);
		g->device = dev16(u32at(r, NNS_SO_DEVICE));
		g->stream = stream32(u32at(r, NNS_SO_STREAM));
		g->corr = u32at(r, NNS_SO_CORR);
		g->a = u64at(r, NNS_SO_BYTES);
		g->u[0] = u32at(r, NNS_SO_VALUE);
		g->name = nns_name("Memset");
		break;
	case NNS_CK_RUNTIME:
	case NNS_CK_DRIVER:
		api(c, r, kind, g);
		break;
	case NNS_CK_SYNCHRONIZATION:
		g->type = NNST_GPU_SYNC;
		g->start = u64at(r, NNS_YO_START);
		g->end = u64at(r, NNS_YO_END);
		g->device = context_device(c, u32at(r, NNS_YO_CONTEXT));
		g->corr = u32at(r, NNS_YO_CORR);
		g->stream = u32at(r, NNS_YO_STREAM);
		g->u[0] = u32at(r, NNS_YO_TYPE);
		v = u32at(r, NNS_YO_EVENT);
		g->u[1] = v == NNS_CUPTI_INVALID_ID ? 0 : v;
		if (g->corr && c->tidmap[g->corr % NNS_CUPTI_TIDMAP].corr == g->corr) {
			g->a = c->tidmap[g->corr % NNS_CUPTI_TIDMAP].tid;
			g->b = c->tidmap[g->corr % NNS_CUPTI_TIDMAP].pid;
		}
		g->name = nns_name(sync_name(g->u[0]));
		break;
	case NNS_CK_MEMORY2:
		v = u32at(r, NNS_YMO_OP);
		if (v != NNS_CUPTI_MEMOP_ALLOCATION && v != NNS_CUPTI_MEMOP_RELEASE) {
			c->skipped++;
			return 0;
		}
		g->type = NNST_GPU_MEMORY;
		g->start = g->end = u64at(r, NNS_YMO_TIME);
		g->device = dev16(u32at(r, NNS_YMO_DEVICE));
		g->stream = stream32(u32at(r, NNS_YMO_STREAM));
		g->corr = u32at(r, NNS_YMO_CORR);
		g->a = u64at(r, NNS_YMO_ADDR);
		g->b = u64at(r, NNS_YMO_BYTES);
		g->u[0] = v == NNS_CUPTI_MEMOP_ALLOCATION ? 1 : 2;
		g->name = nns_name(v == NNS_CUPTI_MEMOP_ALLOCATION ? "cudaMalloc" : "cudaFree");
		break;
	case NNS_CK_EXTERNAL_CORRELATION:
		g->type = NNST_GPU_EXTCORR;
		g->flags = 0; /* no time */
		g->device = -1;
		g->corr = u32at(r, NNS_XO_CORR);
		g->a = u64at(r, NNS_XO_ID);
		g->u[0] = u32at(r, NNS_XO_KIND);
		break;
	default:
		c->skipped++;
		return 0;
	}
	c->records++;
	return 1;
}

#define BATCH 256

size_t nns_cupti_decode(struct nns_cupti_conv *c, uint8_t *buf, size_t valid,
			nns_cupti_next_fn next, nns_gpu_sink sink, void *arg)
{
	struct nnst_gpu out[BATCH];
	size_t n = 0, total = 0;
	void *rec = NULL;

	if (!next)
		next = nns_cupti_next13;
	/* pass 1: API callers and contexts, for SYNC records that come first */
	while (next(buf, valid, &rec) == NNS_CUPTI_SUCCESS) {
		uint32_t kind = u32at(rec, 0);

		if (kind == NNS_CK_RUNTIME || kind == NNS_CK_DRIVER)
			remember_caller(c, rec);
		else if (kind == NNS_CK_CONCURRENT_KERNEL)
			remember_context(c, u32at(rec, NNS_KO_CONTEXT), u32at(rec, NNS_KO_DEVICE));
		else if (kind == NNS_CK_MEMCPY || kind == NNS_CK_MEMCPY2)
			remember_context(c, u32at(rec, NNS_MO_CONTEXT), u32at(rec, NNS_MO_DEVICE));
		else if (kind == NNS_CK_MEMSET)
			remember_context(c, u32at(rec, NNS_SO_CONTEXT), u32at(rec, NNS_SO_DEVICE));
	}
	rec = NULL;
	while (next(buf, valid, &rec) == NNS_CUPTI_SUCCESS) {
		if (!nns_cupti_convert(c, rec, &out[n]))
			continue;
		if (++n == BATCH) {
			sink(arg, out, n);
			total += n;
			n = 0;
		}
	}
	if (n)
		sink(arg, out, n);
	return total + n;
}
