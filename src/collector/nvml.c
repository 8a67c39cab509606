/*
 * nvml.c - the NVML sampler: GPU utilization, memory used, SM clock and
 * power as counters on the timeline, read on the sampler thread (sampler.c)
 * at each tick.
 *
 * NVML is loaded with dlopen (libnvidia-ml.so.1, or the path in
 * NNSCOPE_NVML_LIB, which the tests point at a fake), never linked, so one
 * libnnscope.so runs with or without a GPU. The sampler thread owns the
 * struct nns_nvml it opens: nothing else touches it, so it needs no lock.
 * Counters are emitted with nns_counter() from the sampler thread (they obey
 * the state word like any counter), named per device:
 *   gpu<i>.utilization_pct    nvmlDeviceGetUtilizationRates .gpu (percent)
 *   gpu<i>.memory_used_bytes  nvmlDeviceGetMemoryInfo .used (bytes)
 *   gpu<i>.sm_clock_mhz       nvmlDeviceGetClockInfo(NVML_CLOCK_SM) (MHz)
 *   gpu<i>.power_w            nvmlDeviceGetPowerUsage / 1000 (mW -> W)
 * A query that fails is skipped for that device and tick; the others are
 * recorded. No NVML (library absent, a symbol missing, nvmlInit failing,
 * no device) records no counter and prints nothing: META "nvml" says why
 * ("unavailable: ..."), else "<n> devices"; META "gpu<i>.name" holds each
 * device's name. NVML is shut down when the sampler thread ends (profiler
 * destroyed). A forked child starts its own sampler thread, which opens
 * NVML again; the parent's struct is not used in the child.
 */
#include "collector/collector.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few NVML types used here, declared by hand with the ABI of NVIDIA's
 * nvml.h (NVML API reference, "Device Structs" and "Device Enums"):
 * nvmlReturn_t is an int enum with NVML_SUCCESS = 0; nvmlDevice_t an opaque
 * pointer; nvmlUtilization_t {unsigned int gpu, memory}; nvmlMemory_t
 * {unsigned long long total, free, used} (bytes); nvmlClockType_t
 * NVML_CLOCK_GRAPHICS 0, NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2. */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
struct nvml_utilization {
	unsigned int gpu, memory;
};
struct nvml_memory {
	unsigned long long total, free, used;
};
#define NVML_SUCCESS_ 0
#define NVML_CLOCK_SM_ 1
#define NVML_NAME_MAX 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVML_MAX_DEVICES 64

struct nvml_fns {
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*count)(unsigned int *);
	nvml_return (*handle)(unsigned int, nvml_device *);
	nvml_return (*util)(nvml_device, struct nvml_utilization *);
	nvml_return (*mem)(nvml_device, struct nvml_memory *);
	nvml_return (*clock)(nvml_device, int, unsigned int *);
	nvml_return (*power)(nvml_device, unsigned int *);
	nvml_return (*name)(nvml_device, char *, unsigned int);
};

struct nvml_dev {
	nvml_device h; /* NULL: its handle could not be had, skipped */
	uint32_t n_util, n_mem, n_clock, n_power;
};

struct nns_nvml {
	void *lib;
	struct nvml_fns f;
	unsigned ndev;
	struct nvml_dev dev[NVML_MAX_DEVICES];
};

static void say(struct nns_profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct nns_profiler *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nns_set_metadata(p, "nvml", msg);
}

static int resolve(struct nns_nvml *n, struct nns_profiler *p)
{
	static const char *names[] = {"nvmlInit_v2",
				      "nvmlShutdown",
				      "nvmlDeviceGetCount_v2",
				      "nvmlDeviceGetHandleByIndex_v2",
				      "nvmlDeviceGetUtilizationRates",
				      "nvmlDeviceGetMemoryInfo",
				      "nvmlDeviceGetClockInfo",
				      "nvmlDeviceGetPowerUsage",
				      "nvmlDeviceGetName"};
	void *sym[sizeof(names) / sizeof(names[0])];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(sym[i] = dlsym(n->lib, names[i]))) {
			say(p, "unavailable: NVML has no %s", names[i]);
			return -1;
		}
	}
	/* POSIX dlsym: object pointers convert to function pointers */
	memcpy(&n->f.init, &sym[0], sizeof(void *));
	memcpy(&n->f.shutdown, &sym[1], sizeof(void *));
	memcpy(&n->f.count, &sym[2], sizeof(void *));
	memcpy(&n->f.handle, &sym[3], sizeof(void *));
	memcpy(&n->f.util, &sym[4], sizeof(void *));
	memcpy(&n->f.mem, &sym[5], sizeof(void *));
	memcpy(&n->f.clock, &sym[6], sizeof(void *));
	memcpy(&n->f.power, &sym[7], sizeof(void *));
	memcpy(&n->f.name, &sym[8], sizeof(void *));
	return 0;
}

static uint32_t counter_name(unsigned i, const char *what)
{
	char s[64];

	snprintf(s, sizeof(s), "gpu%u.%s", i, what);
	return nns_name(s);
}

struct nns_nvml *nns_nvml_open(struct nns_profiler *p)
{
	const char *path = getenv("NNSCOPE_NVML_LIB");
	struct nns_nvml *n;
	unsigned count = 0;
	nvml_return rc;
	char key[48], name[NVML_NAME_MAX + 1];

	if (!path || !*path)
		path = "libnvidia-ml.so.1";
	if (!(n = calloc(1, sizeof(*n))))
		return NULL;
	if (!(n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();

		say(p, "unavailable: %s", e ? e : path);
		free(n);
		return NULL;
	}
	if (resolve(n, p))
		goto fail;
	if ((rc = n->f.init()) != NVML_SUCCESS_) {
		say(p, "unavailable: nvmlInit_v2 returned %d", rc);
		goto fail;
	}
	if ((rc = n->f.count(&count)) != NVML_SUCCESS_ || count == 0) {
		say(p, "unavailable: no device (nvmlDeviceGetCount_v2 returned %d)", rc);
		n->f.shutdown();
		goto fail;
	}
	n->ndev = count < NVML_MAX_DEVICES ? count : NVML_MAX_DEVICES;
	for (unsigned i = 0; i < n->ndev; i++) {
		struct nvml_dev *d = &n->dev[i];

		if (n->f.handle(i, &d->h) != NVML_SUCCESS_) {
			d->h = NULL;
			continue;
		}
		d->n_util = counter_name(i, "utilization_pct");
		d->n_mem = counter_name(i, "memory_used_bytes");
		d->n_clock = counter_name(i, "sm_clock_mhz");
		d->n_power = counter_name(i, "power_w");
		memset(name, 0, sizeof(name));
		if (n->f.name(d->h, name, NVML_NAME_MAX) == NVML_SUCCESS_) {
			snprintf(key, sizeof(key), "gpu%u.name", i);
			nns_set_metadata(p, key, name);
		}
	}
	say(p, "%u device%s", n->ndev, n->ndev == 1 ? "" : "s");
	return n;
fail:
	dlclose(n->lib);
	free(n);
	return NULL;
}

void nns_nvml_sample(struct nns_nvml *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->ndev; i++) {
		struct nvml_dev *d = &n->dev[i];
		struct nvml_utilization u;
		struct nvml_memory m;
		unsigned v;

		if (!d->h)
			continue;
		if (n->f.util(d->h, &u) == NVML_SUCCESS_)
			nns_counter(d->n_util, (double)u.gpu);
		if (n->f.mem(d->h, &m) == NVML_SUCCESS_)
			nns_counter(d->n_mem, (double)m.used);
		if (n->f.clock(d->h, NVML_CLOCK_SM_, &v) == NVML_SUCCESS_)
			nns_counter(d->n_clock, (double)v);
		if (n->f.power(d->h, &v) == NVML_SUCCESS_)
			nns_counter(d->n_power, (double)v / 1000.0);
	}
}

void nns_nvml_close(struct nns_nvml *n)
{
	if (!n)
		return;
	n->f.shutdown();
	dlclose(n->lib);
	free(n);
}
