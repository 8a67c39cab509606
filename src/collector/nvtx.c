/*
 * nvtx.c - NVTX v3 injection: InitializeInjectionNvtx2(), which an
 * application's NVTX headers call after they dlopen() the library named by
 * NVTX_INJECTION64_PATH (`nnscope run` points it at libnnscope.so), maps
 * NVTX calls onto the collector's event calls.
 *
 * NVTX hands us its callback tables through an export table
 * (NVTX_ETID_CALLBACKS); we write our functions into the slots of the
 * CORE module (marks, ranges, thread names) and, when present, CORE2
 * (domains). Slots we leave alone stay no-ops in the application. The
 * types mirror nvtx3/nvToolsExt.h and nvtxDetail/nvtxTypes.h (a stable
 * ABI), so the library builds without the CUDA headers.
 *
 * Mapping (docs/FORMAT.md, "NVTX"):
 *   nvtxRangePush*, nvtxDomainRangePushEx   -> PUSH (nested on the thread)
 *   nvtxRangePop, nvtxDomainRangePop        -> POP
 *   nvtxRangeStart*, nvtxDomainRangeStartEx -> BEGIN (the range id is the
 *                                              collector's handle)
 *   nvtxRangeEnd, nvtxDomainRangeEnd        -> END (any thread)
 *   nvtxMark*, nvtxDomainMarkEx             -> MARK
 *   an Ex payload                           -> a COUNTER of the same name,
 *                                              just before the range/mark
 *   nvtxNameOsThread*                       -> the thread's name in traces
 * Names in a domain other than the default one are "<domain>: <message>".
 * PyTorch's emit_nvtx pushes ("aten::addmm, seq = 12, op_id = 5, sizes =
 * [[2, 3], [3, 4]], ...", default domain, ASCII) become the operator name
 * and an "input_dims:[[2, 3], [3, 4]]" MARK right after the PUSH, which the
 * importer turns into the range's Input Dims (as nnscope.torch's shapes);
 * seq and op ids are dropped, so the names table stays small.
 * UNICODE (wchar_t, UTF-32 on Linux) messages are converted to UTF-8.
 * Registered strings are interned once, with their domain prefix, and the
 * handle NVTX gives back carries the name id, so using one costs nothing.
 * Categories and colors have no place in the format and are ignored.
 *
 * Robustness: every callback first tests the state word (nothing else
 * happens when the profiler does not collect that category); attributes
 * that are NULL, older than NVTX v2's layout (size < 48 bytes) or of an
 * unknown message type give an unnamed event rather than a crash; domain
 * and string handles are small tagged integers checked against what this
 * file handed out, never dereferenced. Domains are never freed (a handle
 * used after nvtxDomainDestroy still resolves).
 *
 * Process-wide state (the domain table and the thread-name table) is
 * inherent to an injection: NVTX calls have no context argument. This is,
 * with preload.c, the one place the library prints: one warning line when
 * the export table lacks the CORE module.
 */
#include "collector/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- NVTX ABI (nvtx3/nvToolsExt.h, nvtxDetail/nvtxTypes.h) ------------- */

enum {
	NVTX_CB_MODULE_CORE = 1,
	NVTX_CB_MODULE_CORE2 = 5,
	NVTX_ETID_CALLBACKS = 1,

	CORE_MarkEx = 1,
	CORE_MarkA = 2,
	CORE_MarkW = 3,
	CORE_RangeStartEx = 4,
	CORE_RangeStartA = 5,
	CORE_RangeStartW = 6,
	CORE_RangeEnd = 7,
	CORE_RangePushEx = 8,
	CORE_RangePushA = 9,
	CORE_RangePushW = 10,
	CORE_RangePop = 11,
	CORE_NameOsThreadA = 14,
	CORE_NameOsThreadW = 15,

	CORE2_DomainMarkEx = 1,
	CORE2_DomainRangeStartEx = 2,
	CORE2_DomainRangeEnd = 3,
	CORE2_DomainRangePushEx = 4,
	CORE2_DomainRangePop = 5,
	CORE2_DomainRegisterStringA = 10,
	CORE2_DomainRegisterStringW = 11,
	CORE2_DomainCreateA = 12,
	CORE2_DomainCreateW = 13,
	CORE2_DomainDestroy = 14,

	MSG_ASCII = 1,
	MSG_UNICODE = 2,
	MSG_REGISTERED = 3,

	PAY_U64 = 1,
	PAY_I64 = 2,
	PAY_DOUBLE = 3,
	PAY_U32 = 4,
	PAY_I32 = 5,
	PAY_FLOAT = 6
};

typedef void (*nvtx_fn)(void);
typedef nvtx_fn **nvtx_table; /* array of pointers to the application's slots */

struct nvtx_etbl_callbacks {
	size_t struct_size;
	int (*get_module_table)(int module, nvtx_table *out_table, unsigned *out_size);
};

typedef const void *(*nvtx_get_export_table)(uint32_t id);

struct nvtx_attr { /* nvtxEventAttributes_v2, 48 bytes */
	uint16_t version;
	uint16_t size;
	uint32_t category;
	int32_t color_type;
	uint32_t color;
	int32_t payload_type;
	int32_t reserved0;
	union {
		uint64_t u64;
		int64_t i64;
		double d;
		uint32_t u32;
		int32_t i32;
		float f;
	} payload;
	int32_t message_type;
	union {
		const char *ascii;
		const wchar_t *unicode;
		const void *registered;
	} message;
};

_Static_assert(sizeof(struct nvtx_attr) == 48, "nvtxEventAttributes_v2 is 48 bytes");
#define ATTR_END(field) (offsetof(struct nvtx_attr, field) + sizeof(((struct nvtx_attr *)0)->field))

/* ---- names ------------------------------------------------------------- */

#define NAME_MAX_BYTES 1024 /* longer messages are cut (UTF-8 kept whole) */
#define DOMAINS_MAX 256
#define THREAD_NAMES_MAX 256

/* Handles are tagged integers, not pointers. */
#define DOMAIN_TAG 0xd0u
#define STRING_TAG 0x5au

struct domain {
	char *name; /* "" never: the default domain is handle NULL */
};

static pthread_mutex_t nvtx_mu = PTHREAD_MUTEX_INITIALIZER;
static struct domain domains[DOMAINS_MAX]; /* (nvtx_mu); slots are never reused */
static _Atomic uint32_t ndomains;
static _Atomic uint32_t max_string_id; /* largest name id given out as a string handle */

/* UTF-32 -> UTF-8 into dst (NUL-terminated, cut at a character boundary). */
static size_t wide_to_utf8(const wchar_t *w, char *dst, size_t size)
{
	size_t n = 0;

	for (; *w; w++) {
		uint32_t c = (uint32_t)*w;
		char b[4];
		size_t k;

		if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			c = 0xfffd;
		if (c < 0x80) {
			b[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xc0 | c >> 6);
			b[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xe0 | c >> 12);
			b[1] = (char)(0x80 | (c >> 6 & 0x3f));
			b[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			b[0] = (char)(0xf0 | c >> 18);
			b[1] = (char)(0x80 | (c >> 12 & 0x3f));
			b[2] = (char)(0x80 | (c >> 6 & 0x3f));
			b[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (n + k >= size)
			break;
		memcpy(dst + n, b, k);
		n += k;
	}
	dst[n] = '\0';
	return n;
}

/* Domain index + 1 of handle h, 0 for the default domain or a bad handle. */
static uint32_t domain_of(const void *h)
{
	uintptr_t v = (uintptr_t)h;
	uint32_t i;

	if (!h || (v & 0xff) != DOMAIN_TAG)
		return 0;
	i = (uint32_t)(v >> 8);
	return i >= 1 && i <= atomic_load_explicit(&ndomains, memory_order_acquire) ? i : 0;
}

/* Lock-free: a slot's name is set before ndomains counts it (release),
 * domain_of() read ndomains (acquire), and names are never freed. */
static const char *domain_name(uint32_t d)
{
	return d ? domains[d - 1].name : NULL;
}

/* Interns "<domain>: <text>" (or text in the default domain). */
static uint32_t intern_in(uint32_t d, const char *text)
{
	char buf[NAME_MAX_BYTES + 128];
	const char *dn = domain_name(d);

	if (!text)
		text = "";
	if (!dn)
		return nns_name(text);
	snprintf(buf, sizeof(buf), "%s: %s", dn, text);
	return nns_name(buf);
}

static uint32_t intern_wide_in(uint32_t d, const wchar_t *w)
{
	char buf[NAME_MAX_BYTES];

	if (!w)
		return intern_in(d, NULL);
	wide_to_utf8(w, buf, sizeof(buf));
	return intern_in(d, buf);
}

static uint32_t string_id(const void *h)
{
	uintptr_t v = (uintptr_t)h;
	uint64_t id = (uint64_t)(v >> 8);

	if ((v & 0xff) != STRING_TAG || id == 0 ||
	    id > atomic_load_explicit(&max_string_id, memory_order_acquire))
		return 0;
	return (uint32_t)id;
}

/* Attributes usable up to `end` bytes? (NULL, or size too small: no) */
static int attr_has(const struct nvtx_attr *a, size_t end)
{
	return a && a->size >= end;
}

/* The name of an event with attributes a in domain d (0 = unnamed). */
static uint32_t attr_name(uint32_t d, const struct nvtx_attr *a)
{
	if (!attr_has(a, ATTR_END(message)))
		return 0;
	switch (a->message_type) {
	case MSG_ASCII:
		return a->message.ascii ? intern_in(d, a->message.ascii) : 0;
	case MSG_UNICODE:
		return a->message.unicode ? intern_wide_in(d, a->message.unicode) : 0;
	case MSG_REGISTERED:
		return string_id(a->message.registered);
	default:
		return 0;
	}
}

/* The payload as a counter of the event's name, if there is one. */
static void attr_payload(uint32_t name, const struct nvtx_attr *a)
{
	double v;

	if (!name || !attr_has(a, ATTR_END(payload)))
		return;
	switch (a->payload_type) {
	case PAY_U64:
		v = (double)a->payload.u64;
		break;
	case PAY_I64:
		v = (double)a->payload.i64;
		break;
	case PAY_DOUBLE:
		v = a->payload.d;
		break;
	case PAY_U32:
		v = (double)a->payload.u32;
		break;
	case PAY_I32:
		v = (double)a->payload.i32;
		break;
	case PAY_FLOAT:
		v = (double)a->payload.f;
		break;
	default:
		return;
	}
	nns_counter(name, v);
}

static int on(uint32_t cat)
{
	return NNS_UNLIKELY((nns_state_load() & cat) != 0);
}

/* ---- the callbacks ------------------------------------------------------ */

static void mark_ex_in(uint32_t d, const struct nvtx_attr *a)
{
	uint32_t name;

	if (!on(NNS_CAT_MARK))
		return;
	name = attr_name(d, a);
	attr_payload(name, a);
	nns_mark(name);
}

static void cb_mark_ex(const struct nvtx_attr *a)
{
	mark_ex_in(0, a);
}

static void cb_mark_a(const char *s)
{
	if (on(NNS_CAT_MARK))
		nns_mark(s ? nns_name(s) : 0);
}

static void cb_mark_w(const wchar_t *s)
{
	if (on(NNS_CAT_MARK))
		nns_mark(intern_wide_in(0, s));
}

static uint64_t start_ex_in(uint32_t d, const struct nvtx_attr *a)
{
	uint32_t name;

	if (!on(NNS_CAT_RANGE))
		return 0;
	name = attr_name(d, a);
	attr_payload(name, a);
	return nns_begin(name);
}

static uint64_t cb_start_ex(const struct nvtx_attr *a)
{
	return start_ex_in(0, a);
}

static uint64_t cb_start_a(const char *s)
{
	return on(NNS_CAT_RANGE) ? nns_begin(s ? nns_name(s) : 0) : 0;
}

static uint64_t cb_start_w(const wchar_t *s)
{
	return on(NNS_CAT_RANGE) ? nns_begin(intern_wide_in(0, s)) : 0;
}

static void cb_end(uint64_t id)
{
	nns_end(id);
}

/* PyTorch's emit_nvtx names (torch/csrc/profiler/util.cpp getNvtxStr):
 * "<op>[, seq = N][, op_id = K][, sizes = [[2, 3], []]][, input_op_ids = ...]".
 * Splits one into base (the operator) and dims ("input_dims:<sizes>", or
 * "" without sizes); 0 when s is not one. */
static int torch_split(const char *s, char *base, size_t bsize, char *dims, size_t dsize)
{
	static const char *const keys[] = {
	    ", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};
	const char *cut = NULL, *sz, *end;
	size_t n;

	if (!strstr(s, ", "))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		const char *k = strstr(s, keys[i]);

		if (k && (!cut || k < cut))
			cut = k;
	}
	if (!cut || cut == s)
		return 0;
	n = (size_t)(cut - s);
	snprintf(base, bsize, "%.*s", n < bsize ? (int)n : (int)bsize - 1, s);
	dims[0] = '\0';
	if ((sz = strstr(cut, ", sizes = ")) != NULL) {
		sz += 10;
		end = strstr(sz, ", input_op_ids = ");
		n = end ? (size_t)(end - sz) : strlen(sz);
		if (n && n + 12 < dsize)
			snprintf(dims, dsize, "input_dims:%.*s", (int)n, sz);
	}
	return 1;
}

/* A push of an ASCII name in domain d (0: the default one). */
static void push_ascii(uint32_t d, const char *s)
{
	char base[NAME_MAX_BYTES], dims[NAME_MAX_BYTES];

	if (!d && s && torch_split(s, base, sizeof(base), dims, sizeof(dims))) {
		nns_push(nns_name(base));
		if (dims[0])
			nns_mark(nns_name(dims)); /* the importer's Input Dims of the range */
		return;
	}
	nns_push(s ? intern_in(d, s) : 0);
}

static int push_ex_in(uint32_t d, const struct nvtx_attr *a)
{
	uint32_t name;

	if (!on(NNS_CAT_RANGE))
		return 0;
	if (attr_has(a, ATTR_END(message)) && a->message_type == MSG_ASCII && !d &&
	    (!attr_has(a, ATTR_END(payload)) || a->payload_type == 0)) {
		push_ascii(d, a->message.ascii);
		return 0;
	}
	name = attr_name(d, a);
	attr_payload(name, a);
	nns_push(name);
	return 0;
}

static int cb_push_ex(const struct nvtx_attr *a)
{
	return push_ex_in(0, a);
}

static int cb_push_a(const char *s)
{
	if (on(NNS_CAT_RANGE))
		push_ascii(0, s);
	return 0;
}

static int cb_push_w(const wchar_t *s)
{
	if (on(NNS_CAT_RANGE))
		nns_push(intern_wide_in(0, s));
	return 0;
}

static int cb_pop(void)
{
	nns_pop();
	return 0;
}

/* ---- thread names -------------------------------------------------------- */

struct tname {
	pid_t tid;
	char name[64];
};
static struct tname tnames[THREAD_NAMES_MAX]; /* (nvtx_mu) */
static unsigned ntnames;
static _Atomic uint32_t tnames_gen; /* bumps at each rename: the writer re-announces */

static void name_thread(uint32_t tid, const char *name)
{
	unsigned i;

	if (!tid || !name || !*name)
		return;
	pthread_mutex_lock(&nvtx_mu);
	for (i = 0; i < ntnames && tnames[i].tid != (pid_t)tid; i++)
		;
	if (i < THREAD_NAMES_MAX) {
		tnames[i].tid = (pid_t)tid;
		snprintf(tnames[i].name, sizeof(tnames[i].name), "%s", name);
		if (i == ntnames)
			ntnames++;
		atomic_fetch_add_explicit(&tnames_gen, 1, memory_order_release);
	}
	pthread_mutex_unlock(&nvtx_mu);
}

int nns_nvtx_thread_name(pid_t tid, char *dst, size_t size)
{
	int found = 0;

	if (!atomic_load_explicit(&tnames_gen, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&nvtx_mu);
	for (unsigned i = 0; i < ntnames; i++) {
		if (tnames[i].tid == tid) {
			snprintf(dst, size, "%s", tnames[i].name);
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&nvtx_mu);
	return found;
}

uint32_t nns_nvtx_thread_names_gen(void)
{
	return atomic_load_explicit(&tnames_gen, memory_order_acquire);
}

void nns_nvtx_atfork(int release)
{
	if (release)
		pthread_mutex_unlock(&nvtx_mu);
	else
		pthread_mutex_lock(&nvtx_mu);
}

static void cb_name_thread_a(uint32_t tid, const char *name)
{
	name_thread(tid, name);
}

static void cb_name_thread_w(uint32_t tid, const wchar_t *name)
{
	char buf[64];

	if (!name)
		return;
	wide_to_utf8(name, buf, sizeof(buf));
	name_thread(tid, buf);
}

/* ---- domains (CORE2) ---------------------------------------------------------- */

static void *domain_create(const char *name)
{
	uint32_t n, i;
	void *h = NULL;

	if (!name || !*name)
		return NULL; /* the default domain */
	pthread_mutex_lock(&nvtx_mu);
	n = atomic_load_explicit(&ndomains, memory_order_relaxed);
	for (i = 0; i < n && strcmp(domains[i].name, name) != 0; i++)
		;
	if (i == n && n < DOMAINS_MAX && (domains[n].name = strdup(name)) != NULL)
		atomic_store_explicit(&ndomains, n + 1, memory_order_release);
	if (i < atomic_load_explicit(&ndomains, memory_order_relaxed))
		h = (void *)((uintptr_t)(i + 1) << 8 | DOMAIN_TAG);
	pthread_mutex_unlock(&nvtx_mu);
	return h;
}

static void *cb_domain_create_a(const char *name)
{
	return domain_create(name);
}

static void *cb_domain_create_w(const wchar_t *name)
{
	char buf[NAME_MAX_BYTES];

	if (!name)
		return NULL;
	wide_to_utf8(name, buf, sizeof(buf));
	return domain_create(buf);
}

static void cb_domain_destroy(void *d)
{
	(void)d; /* kept: events recorded later with its handle still resolve */
}

static void *string_handle(uint32_t id)
{
	uint32_t m = atomic_load_explicit(&max_string_id, memory_order_relaxed);

	if (!id)
		return NULL;
	while (id > m && !atomic_compare_exchange_weak_explicit(
			     &max_string_id, &m, id, memory_order_release, memory_order_relaxed))
		;
	return (void *)((uintptr_t)id << 8 | STRING_TAG);
}

static void *cb_register_a(void *d, const char *s)
{
	return s ? string_handle(intern_in(domain_of(d), s)) : NULL;
}

static void *cb_register_w(void *d, const wchar_t *s)
{
	return s ? string_handle(intern_wide_in(domain_of(d), s)) : NULL;
}

static void cb_domain_mark(void *d, const struct nvtx_attr *a)
{
	mark_ex_in(domain_of(d), a);
}

static uint64_t cb_domain_start(void *d, const struct nvtx_attr *a)
{
	return start_ex_in(domain_of(d), a);
}

static void cb_domain_end(void *d, uint64_t id)
{
	(void)d;
	nns_end(id);
}

static int cb_domain_push(void *d, const struct nvtx_attr *a)
{
	return push_ex_in(domain_of(d), a);
}

static int cb_domain_pop(void *d)
{
	(void)d;
	nns_pop();
	return 0;
}

/* ---- the entry point ------------------------------------------------------------ */

struct slot {
	unsigned id;
	nvtx_fn fn;
};

#define FN(f) ((nvtx_fn)(void (*)(void))(f))

static const struct slot core_slots[] = {
    {CORE_MarkEx, FN(cb_mark_ex)},
    {CORE_MarkA, FN(cb_mark_a)},
    {CORE_MarkW, FN(cb_mark_w)},
    {CORE_RangeStartEx, FN(cb_start_ex)},
    {CORE_RangeStartA, FN(cb_start_a)},
    {CORE_RangeStartW, FN(cb_start_w)},
    {CORE_RangeEnd, FN(cb_end)},
    {CORE_RangePushEx, FN(cb_push_ex)},
    {CORE_RangePushA, FN(cb_push_a)},
    {CORE_RangePushW, FN(cb_push_w)},
    {CORE_RangePop, FN(cb_pop)},
    {CORE_NameOsThreadA, FN(cb_name_thread_a)},
    {CORE_NameOsThreadW, FN(cb_name_thread_w)},
};

static const struct slot core2_slots[] = {
    {CORE2_DomainMarkEx, FN(cb_domain_mark)},
    {CORE2_DomainRangeStartEx, FN(cb_domain_start)},
    {CORE2_DomainRangeEnd, FN(cb_domain_end)},
    {CORE2_DomainRangePushEx, FN(cb_domain_push)},
    {CORE2_DomainRangePop, FN(cb_domain_pop)},
    {CORE2_DomainRegisterStringA, FN(cb_register_a)},
    {CORE2_DomainRegisterStringW, FN(cb_register_w)},
    {CORE2_DomainCreateA, FN(cb_domain_create_a)},
    {CORE2_DomainCreateW, FN(cb_domain_create_w)},
    {CORE2_DomainDestroy, FN(cb_domain_destroy)},
};

/* Fills the slots of one module; the number of slots written. */
static unsigned install(const struct nvtx_etbl_callbacks *cb, int module, const struct slot *s,
			size_t n)
{
	nvtx_table table = NULL;
	unsigned size = 0, done = 0;

	if (!cb->get_module_table(module, &table, &size) || !table)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].id <= size && table[s[i].id]) { /* size + 1 slots, [0] unused */
			*table[s[i].id] = s[i].fn;
			done++;
		}
	}
	return done;
}

NNS_API int InitializeInjectionNvtx2(nvtx_get_export_table get)
{
	const struct nvtx_etbl_callbacks *cb = get ? get(NVTX_ETID_CALLBACKS) : NULL;

	if (!cb || cb->struct_size < sizeof(*cb) || !cb->get_module_table ||
	    !install(cb, NVTX_CB_MODULE_CORE, core_slots,
		     sizeof(core_slots) / sizeof(*core_slots))) {
		fprintf(stderr, "nnscope: the NVTX export table has no CORE callback module; "
				"NVTX ranges are not recorded\n");
		return 0;
	}
	install(cb, NVTX_CB_MODULE_CORE2, core2_slots, sizeof(core2_slots) / sizeof(*core2_slots));
	return 1;
}
