/*
 * test_collector_nvtx.c - the NVTX injection (src/collector/nvtx.c) driven
 * through the export-table mechanism the NVTX v3 headers use, without the
 * CUDA headers (owner: the collector): InitializeInjectionNvtx2 refuses an
 * export table without a CORE module and fills only the slots a table has;
 * each callback writes the documented events (names, domain prefixes,
 * registered strings, UTF-32 -> UTF-8, payload counters, BEGIN/END handles)
 * field by field; malformed attributes give unnamed events; nothing is
 * recorded or interned while no profiler collects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "test_collector_util.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

/* ---- a fake NVTX instance (layout of nvtx3/nvtxDetail/nvtxImpl.h) ----- */

typedef void (*fn_t)(void);

#define CORE_SIZE 16  /* NVTX_CBID_CORE_SIZE */
#define CORE2_SIZE 16 /* NVTX_CBID_CORE2_SIZE */

static fn_t core_fn[CORE_SIZE + 1], core2_fn[CORE2_SIZE + 1];
static fn_t *core_tab[CORE_SIZE + 1], *core2_tab[CORE2_SIZE + 1];
static unsigned core_size_reported = CORE_SIZE;
static int core_missing;

struct etbl {
	size_t struct_size;
	int (*get_module_table)(int module, fn_t ***table, unsigned *size);
};

static int get_module_table(int module, fn_t ***table, unsigned *size)
{
	if (module == 1 && !core_missing) { /* NVTX_CB_MODULE_CORE */
		*table = core_tab;
		*size = core_size_reported;
		return 1;
	}
	if (module == 5) { /* NVTX_CB_MODULE_CORE2 */
		*table = core2_tab;
		*size = CORE2_SIZE;
		return 1;
	}
	return 0;
}

static struct etbl etbl = {sizeof(struct etbl), get_module_table};

static const void *get_export_table(uint32_t id)
{
	return id == 1 ? &etbl : NULL; /* NVTX_ETID_CALLBACKS */
}

static const void *get_nothing(uint32_t id)
{
	(void)id;
	return NULL;
}

static void reset_tables(void)
{
	memset(core_fn, 0, sizeof(core_fn));
	memset(core2_fn, 0, sizeof(core2_fn));
	for (int i = 0; i <= CORE_SIZE; i++)
		core_tab[i] = &core_fn[i];
	for (int i = 0; i <= CORE2_SIZE; i++)
		core2_tab[i] = &core2_fn[i];
	core_size_reported = CORE_SIZE;
	core_missing = 0;
	etbl.struct_size = sizeof(etbl);
}

/* nvtxEventAttributes_v2 */
struct attr {
	uint16_t version, size;
	uint32_t category;
	int32_t color_type;
	uint32_t color;
	int32_t payload_type, reserved0;
	union {
		uint64_t u64;
		int64_t i64;
		double d;
		int32_t i32;
		float f;
	} payload;
	int32_t message_type;
	union {
		const char *ascii;
		const wchar_t *unicode;
		void *registered;
	} message;
};

static struct attr ascii(const char *s)
{
	struct attr a;

	memset(&a, 0, sizeof(a));
	a.version = 3;
	a.size = sizeof(a);
	a.message_type = 1;
	a.message.ascii = s;
	return a;
}

/* The callbacks, by slot (NVTX_CBID_CORE_*, NVTX_CBID_CORE2_*). */
#define MARK_EX ((void (*)(const struct attr *))core_fn[1])
#define MARK_A ((void (*)(const char *))core_fn[2])
#define MARK_W ((void (*)(const wchar_t *))core_fn[3])
#define START_EX ((uint64_t(*)(const struct attr *))core_fn[4])
#define START_A ((uint64_t(*)(const char *))core_fn[5])
#define END ((void (*)(uint64_t))core_fn[7])
#define PUSH_EX ((int (*)(const struct attr *))core_fn[8])
#define PUSH_A ((int (*)(const char *))core_fn[9])
#define PUSH_W ((int (*)(const wchar_t *))core_fn[10])
#define POP ((int (*)(void))core_fn[11])
#define NAME_THREAD_A ((void (*)(uint32_t, const char *))core_fn[14])
#define D_MARK ((void (*)(void *, const struct attr *))core2_fn[1])
#define D_START ((uint64_t(*)(void *, const struct attr *))core2_fn[2])
#define D_END ((void (*)(void *, uint64_t))core2_fn[3])
#define D_PUSH ((int (*)(void *, const struct attr *))core2_fn[4])
#define D_POP ((int (*)(void *))core2_fn[5])
#define D_REG_A ((void *(*)(void *, const char *))core2_fn[10])
#define D_CREATE_A ((void *(*)(const char *))core2_fn[12])

static char dir[64];

static int setup(void **state)
{
	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	reset_tables();
	return dir[0] ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tt_rmrf(dir);
	return 0;
}

static nns_profiler *profiler(int start)
{
	struct nns_options o;
	nns_profiler *p = NULL;

	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	o.cpu_sampling_interval_ms = 0;
	o.start = start;
	assert_int_equal(nns_create(&p, &o), 0);
	return p;
}

/* ---- InitializeInjectionNvtx2 ------------------------------------------------ */

static void test_init(void **state)
{
	(void)state;
	assert_int_equal(InitializeInjectionNvtx2(NULL), 0);
	assert_int_equal(InitializeInjectionNvtx2(get_nothing), 0);
	etbl.struct_size = sizeof(size_t); /* older than the function pointer */
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 0);
	etbl.struct_size = sizeof(etbl);
	core_missing = 1;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 0);
	assert_null(core2_fn[4]); /* refused: nothing installed */
	core_missing = 0;

	/* a CORE module with 2 slots: only MarkEx and MarkA are filled */
	core_size_reported = 2;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	assert_non_null(core_fn[1]);
	assert_non_null(core_fn[2]);
	for (int i = 3; i <= CORE_SIZE; i++)
		assert_null(core_fn[i]);
	assert_null(core_fn[0]);
	/* a NULL slot pointer is skipped */
	reset_tables();
	core_tab[9] = NULL;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	assert_null(core_fn[9]);
	assert_non_null(core_fn[8]);
	assert_non_null(core2_fn[12]);

	reset_tables();
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	for (int i = 1; i <= 11; i++)
		assert_non_null(core_fn[i]);
	assert_non_null(core_fn[14]);
	assert_non_null(core_fn[15]);
	assert_null(core_fn[12]); /* NameCategory: not recorded */
	for (int i = 1; i <= 5; i++)
		assert_non_null(core2_fn[i]);
	assert_null(core2_fn[6]); /* resources: not recorded */
}

/* ---- events -------------------------------------------------------------------- */

struct want {
	uint8_t type;
	const char *name; /* NULL: unnamed (id 0) */
};

/* The events of the thread that emitted, without START/STOP/STEP. */
static size_t user_events(const struct tt_trace *t, const struct nnst_event **out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < TT_MAX_THREADS; i++)
		for (size_t e = 0; e < t->nev[i]; e++) {
			uint8_t ty = t->ev[i][e].type;

			if (ty != NNST_EV_START && ty != NNST_EV_STOP && ty != NNST_EV_STEP &&
			    n < max)
				out[n++] = &t->ev[i][e];
		}
	return n;
}

static double counter_value(const struct nnst_event *e)
{
	double v;

	memcpy(&v, &e->a, sizeof(v));
	return v;
}

static void test_events(void **state)
{
	static const struct want want[] = {
	    {NNST_EV_PUSH, "a"},
	    {NNST_EV_COUNTER, "b"},
	    {NNST_EV_PUSH, "b"},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_BEGIN, "s"},
	    {NNST_EV_END, NULL},
	    {NNST_EV_MARK, "w\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd"},
	    {NNST_EV_PUSH, "wide"},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, "D: r"},
	    {NNST_EV_COUNTER, "D: m"},
	    {NNST_EV_MARK, "D: m"},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_BEGIN, "D: r"},
	    {NNST_EV_END, NULL},
	    {NNST_EV_PUSH, NULL}, /* size 0 */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, NULL}, /* NULL attributes */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, NULL}, /* message type 7 */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, NULL}, /* a registered handle nobody gave out */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, "x"}, /* a bad domain handle: the default domain */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_MARK, NULL}, /* markA(NULL) */
	    {NNST_EV_MARK, NULL}, /* size too small for the message */
	    /* PyTorch emit_nvtx names: the operator, its shapes as a mark */
	    {NNST_EV_PUSH, "aten::addmm"},
	    {NNST_EV_MARK, "input_dims:[[2, 3], [3, 4], []]"},
	    {NNST_EV_PUSH, "AddmmBackward0"},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, "aten::relu"}, /* pushEx, sizes without ids */
	    {NNST_EV_MARK, "input_dims:[[8]]"},
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, "a, b"}, /* not one of them */
	    {NNST_EV_POP, NULL},
	    {NNST_EV_PUSH, "D: aten::mm, seq = 3"}, /* another domain: kept whole */
	    {NNST_EV_POP, NULL},
	};
	const struct nnst_event *ev[64];
	struct tt_trace t;
	struct attr a;
	nns_profiler *p;
	uint64_t h1, h2;
	void *dom, *reg;
	char paths[2][512];
	size_t n;

	(void)state;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	p = profiler(1);

	assert_int_equal(PUSH_A("a"), 0);
	a = ascii("b");
	a.payload_type = 2; /* INT64 */
	a.payload.i64 = -5;
	assert_int_equal(PUSH_EX(&a), 0);
	assert_int_equal(POP(), 0);
	POP();
	h1 = START_A("s");
	assert_true(h1 != 0);
	END(h1);
	MARK_W(L"w\u20ac\U0001F600\xd800"); /* a lone surrogate becomes U+FFFD */
	PUSH_W(L"wide");
	POP();

	dom = D_CREATE_A("D");
	assert_non_null(dom);
	assert_ptr_equal(D_CREATE_A("D"), dom);
	assert_null(D_CREATE_A(""));
	reg = D_REG_A(dom, "r");
	assert_non_null(reg);
	memset(&a, 0, sizeof(a));
	a.version = 3;
	a.size = sizeof(a);
	a.message_type = 3; /* REGISTERED */
	a.message.registered = reg;
	D_PUSH(dom, &a);
	{
		struct attr m = ascii("m");

		m.payload_type = 6; /* FLOAT */
		m.payload.f = 0.25f;
		D_MARK(dom, &m);
	}
	D_POP(dom);
	h2 = D_START(dom, &a);
	assert_true(h2 != 0 && h2 != h1);
	D_END(dom, h2);

	a = ascii("size_zero");
	a.size = 0;
	PUSH_EX(&a);
	POP();
	PUSH_EX(NULL);
	POP();
	a = ascii("bad_type");
	a.message_type = 7;
	PUSH_EX(&a);
	POP();
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.message_type = 3;
	a.message.registered = (void *)(uintptr_t)0x7fff5a;
	PUSH_EX(&a);
	POP();
	a = ascii("x");
	D_PUSH((void *)(uintptr_t)0x12345d0, &a);
	D_POP((void *)(uintptr_t)0x12345d0);
	MARK_A(NULL);
	a = ascii("short");
	a.size = offsetof(struct attr, message); /* ends before the message */
	MARK_EX(&a);
	END(0); /* ignored */
	PUSH_A("aten::addmm, seq = 12, op_id = 5, sizes = [[2, 3], [3, 4], []], input_op_ids = "
	       "[(1, 0)]");
	PUSH_A("AddmmBackward0, seq = 12");
	POP();
	POP();
	a = ascii("aten::relu, sizes = [[8]]");
	PUSH_EX(&a);
	POP();
	PUSH_A("a, b");
	POP();
	a = ascii("aten::mm, seq = 3");
	D_PUSH(dom, &a);
	D_POP(dom);
	nns_destroy(p);

	assert_int_equal(tt_list(dir, paths, 2), 1);
	assert_int_equal(tt_load(&t, paths[0]), 0);
	assert_true(t.ok);
	assert_true(t.strings_before_use);
	n = user_events(&t, ev, 64);
	assert_int_equal(n, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < n; i++) {
		const char *s = ev[i]->name < t.nstr ? t.str[ev[i]->name] : NULL;

		if (ev[i]->type != want[i].type)
			fail_msg("event %zu: type %u, want %u", i, ev[i]->type, want[i].type);
		if (want[i].name ? !s || strcmp(s, want[i].name) : ev[i]->name != 0)
			fail_msg("event %zu: name '%s', want '%s'", i, s ? s : "(none)",
				 want[i].name ? want[i].name : "(none)");
	}
	assert_true(counter_value(ev[1]) == -5.0);
	assert_true(counter_value(ev[11]) == 0.25);
	assert_int_equal(ev[5]->a, h1);
	assert_int_equal(ev[6]->a, h1);
	assert_int_equal(ev[14]->a, h2);
	assert_int_equal(ev[15]->a, h2);
	tt_free(&t);
}

/* Not collecting: no event, no interning, 0 handles. */
static void test_inactive(void **state)
{
	struct tt_trace t;
	struct attr a = ascii("never_interned_b");
	nns_profiler *p;
	char paths[2][512];
	uint32_t names;
	const struct nnst_event *ev[8];

	(void)state;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	p = profiler(0);
	names = nns_names_count();
	PUSH_A("never_interned_a");
	PUSH_EX(&a);
	POP();
	POP();
	assert_int_equal(START_A("never_interned_c"), 0);
	assert_int_equal(START_EX(&a), 0);
	MARK_A("never_interned_d");
	MARK_EX(&a);
	PUSH_W(L"never_interned_e");
	assert_int_equal(nns_names_count(), names);
	nns_destroy(p);
	assert_int_equal(tt_list(dir, paths, 2), 1);
	assert_int_equal(tt_load(&t, paths[0]), 0);
	assert_int_equal(user_events(&t, ev, 8), 0);
	tt_free(&t);
}

/* ---- thread names ----------------------------------------------------------- */

/* The names of THREAD records for tid in the trace at path, in file order,
 * joined by '|'. */
static void thread_names(const char *path, pid_t tid, char *dst, size_t size)
{
	struct nnst_reader *r;
	char err[256];
	uint32_t type, len;
	const uint8_t *q;
	size_t n = 0;

	dst[0] = '\0';
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), 0);
	while (nnst_reader_next(r, &type, &q, &len, err, sizeof(err)) == 1) {
		for (uint32_t off = 0; type == NNST_CHUNK_THREAD && len - off >= 16;) {
			int64_t t;
			uint32_t nl = tt_u32(q + off + 12);

			memcpy(&t, q + off + 4, 8);
			assert_true(nl <= len - off - 16);
			if (t == tid)
				n += (size_t)snprintf(dst + n, size - n, "%s%.*s", n ? "|" : "",
						      (int)nl, (const char *)q + off + 16);
			off += 16 + nl;
		}
	}
	nnst_reader_close(r);
}

static pid_t early_tid;

static void *early_thread(void *arg)
{
	(void)arg;
	early_tid = (pid_t)syscall(SYS_gettid);
	NAME_THREAD_A((uint32_t)early_tid, "nvtx-early");
	PUSH_A("e");
	POP();
	return NULL;
}

/* nvtxNameOsThread before a thread's first event names it in its first
 * THREAD record; after it was announced, a second record renames it. */
static void test_thread_names(void **state)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	char paths[2][512], names[256];
	nns_profiler *p;
	pthread_t th;

	(void)state;
	assert_int_equal(InitializeInjectionNvtx2(get_export_table), 1);
	p = profiler(1);
	PUSH_A("before");
	POP();
	assert_int_equal(nns_sync_flush(p, 5000), 0); /* main announced by its comm */
	NAME_THREAD_A((uint32_t)me, "nvtx-renamed");
	NAME_THREAD_A(0, "ignored");
	NAME_THREAD_A((uint32_t)me, NULL);
	PUSH_A("after");
	POP();
	assert_int_equal(pthread_create(&th, NULL, early_thread, NULL), 0);
	pthread_join(th, NULL);
	nns_destroy(p);

	assert_int_equal(tt_list(dir, paths, 2), 1);
	thread_names(paths[0], me, names, sizeof(names));
	assert_non_null(strchr(names, '|'));
	assert_string_equal(strrchr(names, '|') + 1, "nvtx-renamed");
	assert_true(strncmp(names, "nvtx-renamed", 12) != 0);
	thread_names(paths[0], early_tid, names, sizeof(names));
	assert_string_equal(names, "nvtx-early");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_init, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_inactive, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_thread_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
