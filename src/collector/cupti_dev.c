/*
 * cupti_dev.c - device properties from the CUDA driver (dlopen
 * libcuda.so.1, or NNSCOPE_CUDA_LIB), as one NNST_GPU_DEVICE record per
 * device (docs/FORMAT.md "GPU records"): name, total memory, shared memory
 * per SM, compute capability, SMs, thread/register/block limits, warp
 * size - what the analysis needs for occupancy. cupti.c calls it once, when CUDA is up (from the
 * writer's tick after CUPTI delivered records, or at the final flush).
 *
 * The driver is already initialised by then (CUPTI delivers records), so
 * cuInit(0) here only returns. A failing call leaves that field 0; a
 * missing library or symbol gives no record and the reason in *why.
 */
#include "collector/cupti_abi.h"
#include "collector/collector.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);
typedef int (*cu_attr_fn)(int *, int, int);

static void *sym(void *lib, const char *name, char *why, size_t size)
{
	void *p = dlsym(lib, name);

	if (!p)
		snprintf(why, size, "the CUDA driver has no %s", name);
	return p;
}

#define NNS_MAX_DEVICES 64

/* Fills up to max records; returns the count (0 with *why set on failure). */
size_t nns_cupti_devices(struct nnst_gpu *out, size_t max, char *why, size_t whysize)
{
	const char *path = getenv("NNSCOPE_CUDA_LIB");
	void *lib, *p[6];
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_name_fn name;
	cu_mem_fn mem;
	cu_attr_fn attr;
	static const int attrs[8] = {NNS_CU_CC_MAJOR,
				     NNS_CU_CC_MINOR,
				     NNS_CU_SM_COUNT,
				     NNS_CU_MAX_THREADS_PER_SM,
				     NNS_CU_MAX_THREADS_PER_BLOCK,
				     NNS_CU_REGS_PER_SM,
				     NNS_CU_WARP_SIZE,
				     NNS_CU_MAX_BLOCKS_PER_SM};
	int n = 0;
	size_t k = 0;

	if (!path || !*path)
		path = "libcuda.so.1";
	if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();

		snprintf(why, whysize, "%s", e ? e : path);
		return 0;
	}
	if (!(p[0] = sym(lib, "cuInit", why, whysize)) ||
	    !(p[1] = sym(lib, "cuDeviceGetCount", why, whysize)) ||
	    !(p[2] = sym(lib, "cuDeviceGet", why, whysize)) ||
	    !(p[3] = sym(lib, "cuDeviceGetName", why, whysize)) ||
	    !(p[4] = sym(lib, "cuDeviceTotalMem_v2", why, whysize)) ||
	    !(p[5] = sym(lib, "cuDeviceGetAttribute", why, whysize)))
		goto out;
	memcpy(&init, &p[0], sizeof(void *));
	memcpy(&count, &p[1], sizeof(void *));
	memcpy(&get, &p[2], sizeof(void *));
	memcpy(&name, &p[3], sizeof(void *));
	memcpy(&mem, &p[4], sizeof(void *));
	memcpy(&attr, &p[5], sizeof(void *));
	if (init(0) != 0 || count(&n) != 0 || n <= 0) {
		snprintf(why, whysize, "no CUDA device (cuDeviceGetCount: %d)", n);
		goto out;
	}
	for (int i = 0; i < n && k < max && i < NNS_MAX_DEVICES; i++) {
		struct nnst_gpu *g = &out[k];
		char nm[256] = "";
		size_t total = 0;
		int dev, v;

		if (get(&dev, i) != 0)
			continue;
		memset(g, 0, sizeof(*g));
		g->type = NNST_GPU_DEVICE;
		g->device = (int16_t)i;
		if (name(nm, (int)sizeof(nm) - 1, dev) != 0 || !nm[0])
			snprintf(nm, sizeof(nm), "CUDA device %d", i);
		g->name = nns_name(nm);
		if (mem(&total, dev) == 0)
			g->a = total;
		if (attr(&v, NNS_CU_SMEM_PER_SM, dev) == 0 && v > 0)
			g->b = (uint64_t)v;
		for (int j = 0; j < 8; j++)
			if (attr(&v, attrs[j], dev) == 0 && v > 0)
				g->u[j] = (uint32_t)v;
		k++;
	}
out:
	dlclose(lib);
	return k;
}
