/*
 * fake_nvml.c - a stand-in for libnvidia-ml.so.1 for tests/e2e/nvml_sampler.sh
 * (owner: the collector's tests), built there with cc -shared -fPIC and
 * loaded through NNSCOPE_NVML_LIB. It exports the NVML calls nvml.c uses,
 * with the ABI of NVIDIA's nvml.h (see the comment in src/collector/nvml.c),
 * and answers with fixed values, device i of FAKE_NVML_COUNT (default 2):
 *   utilization.gpu  37 + i         percent
 *   memory.used      2^30 + i       bytes (total 80 GiB)
 *   SM clock         1410 + i       MHz (NVML_CLOCK_SM = 1; other types fail)
 *   power            250000 + 1000 i  mW (250 W, 251 W)
 *   name             "Fake GPU <i>"
 * Environment: FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 return 999
 * (NVML_ERROR_UNKNOWN); FAKE_NVML_BAD_DEVICE=k makes every query of device
 * k return 3 (NVML_ERROR_NOT_SUPPORTED); FAKE_NVML_LOG=FILE appends "init"
 * and "shutdown" lines to FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_dev *nvmlDevice_t;
typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

/* the exported calls (prototypes, for -Wmissing-prototypes) */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);

struct fake_dev {
	unsigned idx;
};
static struct fake_dev devs[16];

static void logline(const char *what)
{
	const char *path = getenv("FAKE_NVML_LOG");
	FILE *f;

	if (path && (f = fopen(path, "a"))) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
}

static unsigned count(void)
{
	const char *s = getenv("FAKE_NVML_COUNT");
	unsigned n = s ? (unsigned)atoi(s) : 2;

	return n > 16 ? 16 : n;
}

static int bad(nvmlDevice_t d)
{
	const char *s = getenv("FAKE_NVML_BAD_DEVICE");

	return !d || (s && *s && (unsigned)atoi(s) == d->idx);
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *s = getenv("FAKE_NVML_INIT_FAIL");

	if (s && *s == '1')
		return 999;
	logline("init");
	return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	logline("shutdown");
	return 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
	*n = count();
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	if (i >= count())
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	devs[i].idx = i;
	*d = &devs[i];
	return 0;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	if (bad(d))
		return 3;
	u->gpu = 37 + d->idx;
	u->memory = 50;
	return 0;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	if (bad(d))
		return 3;
	m->total = 80ull << 30;
	m->used = (1ull << 30) + d->idx;
	m->free = m->total - m->used;
	return 0;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz)
{
	if (bad(d) || type != 1)
		return 3;
	*mhz = 1410 + d->idx;
	return 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
	if (bad(d))
		return 3;
	*mw = 250000 + 1000 * d->idx;
	return 0;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
	if (bad(d))
		return 3;
	snprintf(name, len, "Fake GPU %u", d->idx);
	return 0;
}
