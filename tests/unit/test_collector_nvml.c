/*
 * test_collector_nvml.c - the NVML sampler (src/collector/nvml.c) inside one
 * process (owner: the collector): with the fake NVML of tests/e2e/fake_nvml.c
 * (build/tests/libfake_nvml.so, loaded through NNSCOPE_NVML_LIB) a profiler
 * sampling every 20 ms for 200 ms writes the counters gpu<i>.utilization_pct
 * / memory_used_bytes / sm_clock_mhz / power_w of both fake devices with
 * the fake's exact values (device i: 37+i %, 2^30+i bytes, 1410+i MHz,
 * 250+i W), at least 4 of each, and the same number for each name; a device
 * whose queries fail is skipped while the other is recorded; a failing
 * nvmlInit or a missing library records none and says why in META "nvml".
 * Skips (with a message) when the fake library was not built beside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "test_collector_util.h"

#include <limits.h>
#include <time.h>

static char dir[64];
static char fake[PATH_MAX + 32];

struct series {
	char name[64];
	size_t n;
	double first;
	int all_same;
};

static int setup(void **state)
{
	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	return dir[0] ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tt_rmrf(dir);
	unsetenv("NNSCOPE_NVML_LIB");
	unsetenv("FAKE_NVML_INIT_FAIL");
	unsetenv("FAKE_NVML_BAD_DEVICE");
	return 0;
}

/* Profiles 200 ms with a 20 ms sampler, then loads the trace into t. */
static void profile(struct tt_trace *t)
{
	struct nns_options o;
	struct timespec ts = {0, 200 * 1000000L};
	nns_profiler *p;
	char paths[4][512];

	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	o.cpu_sampling_interval_ms = 20;
	assert_int_equal(nns_create(&p, &o), 0);
	nanosleep(&ts, NULL);
	nns_destroy(p);
	assert_int_equal(tt_list(dir, paths, 4), 1);
	assert_int_equal(tt_load(t, paths[0]), 0);
	assert_true(t->ok);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* The gpu* counter series of t (at most max). */
static size_t gpu_series(const struct tt_trace *t, struct series *s, size_t max)
{
	size_t ns = 0;

	for (int th = 0; th < TT_MAX_THREADS; th++) {
		for (size_t i = 0; i < t->nev[th]; i++) {
			const struct nnst_event *e = &t->ev[th][i];
			const char *name;
			double v;
			size_t k;

			if (e->type != NNST_EV_COUNTER || e->name >= t->nstr || !t->str[e->name])
				continue;
			name = t->str[e->name];
			if (strncmp(name, "gpu", 3) != 0)
				continue;
			memcpy(&v, &e->a, sizeof(v));
			for (k = 0; k < ns && strcmp(s[k].name, name) != 0; k++)
				;
			if (k == ns) {
				assert_true(ns < max);
				snprintf(s[ns].name, sizeof(s[ns].name), "%s", name);
				s[ns].first = v;
				s[ns].all_same = 1;
				ns++;
			}
			s[k].n++;
			if (v != s[k].first)
				s[k].all_same = 0;
		}
	}
	return ns;
}

static const struct series *find(const struct series *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	return NULL;
}

static void expect(const struct series *s, size_t n, const char *name, double value)
{
	const struct series *x = find(s, n, name);

	if (!x)
		fail_msg("no counter %s", name);
	if (!x->all_same || x->first != value)
		fail_msg("%s: %g (all equal: %d), wanted %g", name, x->first, x->all_same, value);
	if (x->n < 4 || x->n != s[0].n)
		fail_msg("%s: %zu samples (first series: %zu)", name, x->n, s[0].n);
}

static int have_fake(void)
{
	if (access(fake, R_OK) == 0)
		return 1;
	print_message("SKIP: %s not built (make %s)\n", fake, fake);
	return 0;
}

static void test_two_devices(void **state)
{
	struct series s[16];
	struct tt_trace t;
	size_t n;

	(void)state;
	if (!have_fake())
		return;
	setenv("NNSCOPE_NVML_LIB", fake, 1);
	profile(&t);
	n = gpu_series(&t, s, 16);
	assert_int_equal(n, 8);
	for (int i = 0; i < 2; i++) {
		char name[64];

		snprintf(name, sizeof(name), "gpu%d.utilization_pct", i);
		expect(s, n, name, 37 + i);
		snprintf(name, sizeof(name), "gpu%d.memory_used_bytes", i);
		expect(s, n, name, 1073741824.0 + i);
		snprintf(name, sizeof(name), "gpu%d.sm_clock_mhz", i);
		expect(s, n, name, 1410 + i);
		snprintf(name, sizeof(name), "gpu%d.power_w", i);
		expect(s, n, name, 250 + i);
	}
	assert_non_null(tt_meta(&t, "nvml"));
	assert_string_equal(tt_meta(&t, "nvml"), "2 devices");
	assert_non_null(tt_meta(&t, "gpu0.name"));
	assert_string_equal(tt_meta(&t, "gpu0.name"), "Fake GPU 0");
	tt_free(&t);
}

static void test_bad_device(void **state)
{
	struct series s[16];
	struct tt_trace t;
	size_t n;

	(void)state;
	if (!have_fake())
		return;
	setenv("NNSCOPE_NVML_LIB", fake, 1);
	setenv("FAKE_NVML_BAD_DEVICE", "1", 1);
	profile(&t);
	n = gpu_series(&t, s, 16);
	assert_int_equal(n, 4);
	expect(s, n, "gpu0.utilization_pct", 37);
	expect(s, n, "gpu0.memory_used_bytes", 1073741824.0);
	expect(s, n, "gpu0.sm_clock_mhz", 1410);
	expect(s, n, "gpu0.power_w", 250);
	assert_null(tt_meta(&t, "gpu1.name"));
	tt_free(&t);
}

static void test_no_nvml(void **state)
{
	struct series s[16];
	struct tt_trace t;
	const char *m;

	(void)state;
	if (!have_fake())
		return;
	setenv("NNSCOPE_NVML_LIB", fake, 1);
	setenv("FAKE_NVML_INIT_FAIL", "1", 1);
	profile(&t);
	assert_int_equal(gpu_series(&t, s, 16), 0);
	m = tt_meta(&t, "nvml");
	assert_non_null(m);
	assert_string_equal(m, "unavailable: nvmlInit_v2 returned 999");
	assert_true(t.samples[NNST_SAMPLE_PROCESS] >= 2); /* the CPU sampler still runs */
	tt_free(&t);

	unsetenv("FAKE_NVML_INIT_FAIL");
	setenv("NNSCOPE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	profile(&t);
	assert_int_equal(gpu_series(&t, s, 16), 0);
	m = tt_meta(&t, "nvml");
	assert_non_null(m);
	assert_true(strncmp(m, "unavailable: /nonexistent/libnvidia-ml.so.1", 43) == 0);
	tt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_two_devices, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_nvml, setup, teardown),
	};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(fake, sizeof(fake), "%s/libfake_nvml.so", self);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
