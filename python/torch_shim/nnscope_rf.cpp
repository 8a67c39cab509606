/*
 * nnscope_rf.cpp - nnscope.torch's RecordFunction shim: records PyTorch
 * operators where torch.profiler records them.
 * python/nnscope/torch.py builds and loads it.
 *
 * A global at::RecordFunction callback (scopes FUNCTION, BACKWARD_FUNCTION,
 * TORCHSCRIPT_FUNCTION, USER_SCOPE: the ones torch.profiler observes) turns
 * every operator, autograd node and record_function() scope into an
 * nnscope range named as torch.profiler names it (RecordFunction::name()),
 * on whichever thread runs it (autograd's device threads included). With
 * shapes on, an instant "input_dims:[[16, 3, 32, 32], [], ...]" follows each
 * push (the .nnst importer attaches it to the range); a tensor gives its
 * sizes, anything else []; for a collective (nccl:*, gloo:*) then
 * "input_type:['float', '', ...]" (Kineto's "Input type": collective bytes
 * need it). An operator or autograd node whose name is not
 * "ns::name" (ConvolutionBackward0, detach) is followed by an instant
 * "kind:cpu_op" that makes the importer list it as an operator, as
 * torch.profiler does.
 *
 * It is compiled against the installed torch's headers (at first use, into a
 * cache, or by `make` when the headers are present) and loaded with ctypes.
 * It does not link libnnscope: nnscope_rf_start() is given the path of the
 * libnnscope.so the Python binding has loaded and looks the event calls up
 * there (dlopen RTLD_NOLOAD), so one cached shim serves every nnscope build.
 *
 * C ABI (the ints return 0 on success, a negative value on failure):
 *   int nnscope_rf_start(int shapes, const char *libnnscope_path)
 *   int nnscope_rf_stop(void)
 *   int nnscope_rf_memory(int on)      allocator memory events (below)
 *   uint64_t nnscope_rf_seq(void)      the thread's next autograd number
 *   void nnscope_rf_module(uint32_t name, uint64_t s0, uint64_t s1)
 *   void nnscope_rf_backward_end(void) (module backward ranges, below)
 *   const char *nnscope_rf_error(void)  reason of the last failure
 *   const char *nnscope_rf_torch_version(void)  TORCH_VERSION compiled for
 *
 * Cost: per operator one thread-local hash probe (pointer, verified with a
 * strcmp: autograd node names live in strings that are freed and reused)
 * and an nns_push / nns_pop; no lock, no allocation once names are cached.
 */
/* torch's release builds define NDEBUG, and RecordFunction's layout
 * depends on it (inputs_valid_): compile as they were compiled */
#ifndef NDEBUG
#define NDEBUG 1
#endif
#include <ATen/SequenceNumber.h>
#include <ATen/record_function.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/version.h>
#if __has_include(<torch/csrc/profiler/orchestration/observer.h>)
#include <torch/csrc/profiler/orchestration/observer.h> /* torch 1.13, 2.x */
#define NNS_RF_STATE_BASE 1
#endif

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <algorithm>
#include <unordered_map>
#include <vector>

namespace
{

typedef uint32_t (*name_fn)(const char *);
typedef void (*push_fn)(uint32_t);
typedef void (*pop_fn)(void);
typedef void (*mark_fn)(uint32_t);
typedef void (*mem_fn)(const void *, uint64_t, int, int64_t, int64_t);

struct api {
	name_fn name;
	push_fn push;
	pop_fn pop;
	mark_fn mark;
	const uint32_t *hot; /* nns_hot_state */
	mem_fn mem_alloc;    /* nns_mem_alloc, nns_mem_free: null in a */
	mem_fn mem_free;     /* libnnscope without them (memory refused) */
};

api g_api;		/* set before the callback is added */
uint32_t g_kind_op = 0; /* id of "kind:cpu_op" */
std::atomic<int> g_shapes{0};
std::mutex g_mu; /* start/stop */
at::CallbackHandle g_handle = 0;
bool g_active = false;
std::string g_err;

inline bool collecting()
{
	return __atomic_load_n(&g_api.hot[0], __ATOMIC_RELAXED) != 0;
}

/* ---- per-thread name cache: const char* -> id, verified by content ---- */

struct slot {
	const char *key;  /* the pointer torch gave */
	std::string text; /* its content when cached */
	uint32_t id;
	bool plain;  /* not "ns::name": needs the "kind:cpu_op" mark */
	bool evalfn; /* "autograd::engine::evaluate_function: ..." */
	bool comm;   /* a collective (nccl:*, gloo:*): types marked too */
};

constexpr size_t CACHE_SLOTS = 1024; /* power of two; direct-mapped */

struct tcache {
	slot slots[CACHE_SLOTS];
	std::unordered_map<std::string, uint32_t> dims; /* "input_dims:..." ids */
	uint64_t pushed = 0;				/* bit d: the enter at depth d pushed */
	uint32_t depth = 0;
	std::vector<uint32_t> mods; /* module backward ranges open (interval order) */
	uint32_t pending = 0;	    /* evaluate_function range not pushed yet */
	bool pending_dims = false;  /* ... and its "input_dims:[]" mark */
};

/* ---- module backward ranges by autograd sequence numbers ----
 * nnscope.torch's forward hooks register, per module call, the interval
 * [s0, s1) of autograd sequence numbers its forward handed out and the
 * name "nn.Module: X.backward". The backward nodes of that call carry those
 * numbers (RecordFunction::seqNr() of "autograd::engine::evaluate_function:
 * ..."), so before each such range the thread's open module ranges are made
 * the chain of intervals holding its number (outer first): module ranges
 * then nest with the operators instead of being opened by tensor hooks
 * inside one operator range and closed inside another. Nodes with no
 * number (AccumulateGrad) leave the chain as it is. torch 1.13 gives the
 * evaluate_function range no number (-1) but the node range inside it has
 * it, so while module intervals exist the evaluate_function push waits for
 * the node's enter (its start is then late by the engine's pre-hook work,
 * typically well under a microsecond). */
struct interval {
	uint64_t s0, s1;
	uint32_t name, order;
};
std::mutex g_iv_mu;
std::vector<interval> g_iv;
std::atomic<uint32_t> g_iv_n{0};
uint32_t g_iv_order = 0;

void set_modules(tcache *c, const std::vector<const interval *> &want)
{
	size_t k = 0;
	while (k < c->mods.size() && k < want.size() && c->mods[k] == want[k]->order)
		k++;
	while (c->mods.size() > k) {
		g_api.pop();
		c->mods.pop_back();
	}
	for (size_t i = k; i < want.size(); i++) {
		g_api.push(want[i]->name);
		c->mods.push_back(want[i]->order);
	}
}

void enter_node(tcache *c, int64_t seq)
{
	if (seq < 0)
		return;
	std::vector<const interval *> want;
	std::lock_guard<std::mutex> lock(g_iv_mu);
	for (const interval &iv : g_iv)
		if (iv.s0 <= (uint64_t)seq && (uint64_t)seq < iv.s1)
			want.push_back(&iv);
	if (want.empty())
		return; /* not a module's node: keep what is open */
	std::sort(want.begin(), want.end(), [](const interval *a, const interval *b) {
		if (a->s0 != b->s0)
			return a->s0 < b->s0;
		if (a->s1 != b->s1)
			return a->s1 > b->s1;
		return a->order > b->order; /* same span: the outer registered last */
	});
	set_modules(c, want);
}

thread_local tcache *t_cache = nullptr;
thread_local bool t_dead = false; /* the thread is exiting: record nothing */

/* Frees the thread's cache at thread exit; operators run by later
 * thread-local destructors are not recorded. */
struct tcache_owner {
	int used = 0;
	~tcache_owner()
	{
		t_dead = true;
		delete t_cache;
		t_cache = nullptr;
	}
};
thread_local tcache_owner t_owner;

tcache *cache()
{
	tcache *c = t_cache;
	if (!c && !t_dead) {
		c = new (std::nothrow) tcache();
		t_cache = c;
		t_owner.used = 1; /* constructs the owner: registers its destructor */
	}
	return c;
}

/* "ns::name" (aten::conv2d, autograd::engine::...): the .nnst importer
 * makes these operators by their name alone. */
bool qualified(const char *s)
{
	const char *p = s;
	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
		return false;
	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
	       *p == '_')
		p++;
	return p[0] == ':' && p[1] == ':' && p[2] && p[2] != ':';
}

const slot *name_slot(tcache *c, const char *s)
{
	uintptr_t h = reinterpret_cast<uintptr_t>(s);
	h = (h >> 3) ^ (h >> 13);
	slot &sl = c->slots[h & (CACHE_SLOTS - 1)];
	if (sl.key == s && sl.id && std::strcmp(sl.text.c_str(), s) == 0)
		return &sl;
	sl.id = g_api.name(s);
	sl.key = s;
	sl.text.assign(s);
	sl.plain = !qualified(s);
	sl.evalfn = std::strncmp(s, "autograd::engine::evaluate_function: ", 37) == 0;
	sl.comm = std::strncmp(s, "nccl:", 5) == 0 || std::strncmp(s, "gloo:", 5) == 0;
	return &sl;
}

void append_dims(std::string &out, const c10::IValue &v)
{
	if (v.isTensor()) {
		const at::Tensor &t = v.toTensor();
		out += '[';
		if (t.defined()) {
			auto sizes = t.sizes();
			for (size_t i = 0; i < sizes.size(); i++) {
				if (i)
					out += ", ";
				out += std::to_string(sizes[i]);
			}
		}
		out += ']';
	} else {
		out += "[]";
	}
}

/* Kineto's "Input type" entry of one input: the dtype's name ("float",
 * "long int", "c10::Half") for a tensor, "Scalar", "TensorList", else "". */
void append_type(std::string &out, const c10::IValue &v)
{
	out += '\'';
	if (v.isTensor()) {
		const at::Tensor &t = v.toTensor();
		if (t.defined()) {
			auto n = t.dtype().name();
			out.append(n.data(), n.size());
		}
	} else if (v.isScalar()) {
		out += "Scalar";
	} else if (v.isTensorList()) {
		out += "TensorList";
	}
	out += '\'';
}

/* Marks the instant named s (an id cached per thread by content). */
void mark_text(tcache *c, std::string &s)
{
	auto it = c->dims.find(s);
	uint32_t id;
	if (it != c->dims.end()) {
		id = it->second;
	} else {
		id = g_api.name(s.c_str());
		if (c->dims.size() < 65536)
			c->dims.emplace(std::move(s), id);
	}
	if (id)
		g_api.mark(id);
}

/* "input_dims:[[16, 3, 32, 32], [], ...]", and for a collective then
 * "input_type:['float', '', ...]" (the .nnst importer attaches both to the
 * range just pushed; the analysis computes collective bytes from them;
 * other operators skip the types: a tenth of a microsecond each). */
void mark_shapes(tcache *c, const at::RecordFunction &fn, bool types)
{
	std::string s("input_dims:[");
	auto inputs = fn.inputs();
	for (size_t i = 0; i < inputs.size(); i++) {
		if (i)
			s += ", ";
		append_dims(s, inputs[i]);
	}
	s += ']';
	mark_text(c, s);
	if (!types)
		return;
	std::string ty("input_type:[");
	for (size_t i = 0; i < inputs.size(); i++) {
		if (i)
			ty += ", ";
		append_type(ty, inputs[i]);
	}
	ty += ']';
	mark_text(c, ty);
}

void flush_pending(tcache *c)
{
	uint32_t name = c->pending;
	bool dims_on = c->pending_dims;
	c->pending = 0;
	c->pending_dims = false;
	g_api.push(name);
	if (dims_on) {
		static const char dims[] = "input_dims:[]";
		auto it = c->dims.find(dims);
		uint32_t id = it != c->dims.end() ? it->second : g_api.name(dims);
		if (it == c->dims.end())
			c->dims.emplace(dims, id);
		if (id)
			g_api.mark(id);
	}
}

/* on_enter once the range is known to be pushed (may throw: caught). */
void enter(tcache *c, const at::RecordFunction &fn)
{
	if (c->pending) {
		/* the node inside an evaluate_function: its number places the
		 * module ranges, then the deferred evaluate_function opens */
		if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION)
			enter_node(c, fn.seqNr());
		flush_pending(c);
	}
	const char *name = fn.name();
	if (!name) {
		g_api.push(0);
		return;
	}
	const slot *sl = name_slot(c, name);
	if (sl->evalfn && (g_iv_n.load(std::memory_order_relaxed) || !c->mods.empty())) {
		int64_t seq = fn.seqNr();
		if (seq >= 0) {
			enter_node(c, seq);
		} else {
			/* no number yet (torch 1.13): defer the push to the
			 * node's own range, a few instructions later */
			c->pending = sl->id;
			c->pending_dims = g_shapes.load(std::memory_order_relaxed) != 0;
			return;
		}
	}
	g_api.push(sl->id);
	/* torch.profiler lists operators and autograd nodes (FUNCTION and
	 * BACKWARD_FUNCTION scopes) as cpu_op whatever their names */
	if (sl->plain && fn.scope() != at::RecordScope::USER_SCOPE && g_kind_op)
		g_api.mark(g_kind_op);
	if (g_shapes.load(std::memory_order_relaxed))
		mark_shapes(c, fn, sl->comm);
}

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction &fn)
{
	tcache *c = cache();
	if (!c)
		return nullptr;
	uint32_t d = c->depth++;
	bool on = collecting();
	if (d < 64) {
		if (on)
			c->pushed |= (uint64_t)1 << d;
		else
			c->pushed &= ~((uint64_t)1 << d);
	}
	if (!on)
		return nullptr;
	try {
		enter(c, fn);
	} catch (...) {
		/* never let an exception escape into torch (bad_alloc, or a
		 * shape torch refuses to give) */
	}
	return nullptr;
}

void on_exit(const at::RecordFunction &, at::ObserverContext *)
{
	tcache *c = t_cache;
	if (!c || c->depth == 0)
		return;
	if (c->pending) {
		try {
			flush_pending(c); /* an evaluate_function with no node range */
		} catch (...) {
		}
	}
	uint32_t d = --c->depth;
	bool pushed = d < 64 ? (c->pushed >> d) & 1 : collecting();
	if (pushed)
		g_api.pop();
}

/* ---- allocator memory events ----
 * torch's allocators (the CPU allocator's ProfiledCPUMemoryReporter, CUDA's
 * caching allocator) report every allocation and free to the
 * c10::MemoryReportingInfoBase found as the thread's debug info of kind
 * PROFILER_STATE, when its memoryProfilingEnabled() says so; torch carries
 * that debug info to autograd's threads and at::launch tasks
 * (ThreadLocalState). torch.profiler(profile_memory=True) records its
 * memory events this way; so does this reporter, pushed on the thread that
 * starts nnscope.torch (nnscope_rf_memory). It derives from torch's
 * ProfilerStateBase, whose type code that finds a PROFILER_STATE assumes,
 * with a Disabled config: torch.profiler_enabled() stays false and
 * profilerType() is NONE. A report with alloc_size < 0 is a free of
 * -alloc_size bytes; totals are passed as given (the CPU allocator gives
 * total_reserved 0); device: -1 = host, else the device index. */
#ifdef NNS_RF_STATE_BASE
namespace tpi = torch::profiler::impl;
struct mem_reporter : public tpi::ProfilerStateBase {
	mem_reporter()
	    : tpi::ProfilerStateBase(tpi::ProfilerConfig(tpi::ProfilerState::Disabled,
							 /*report_input_shapes=*/false,
							 /*profile_memory=*/true))
	{
	}
	tpi::ActiveProfilerType profilerType() override
	{
		return tpi::ActiveProfilerType::NONE;
	}
#else
struct mem_reporter : public c10::MemoryReportingInfoBase {
#endif
	std::atomic<bool> on{false};

	void report(void *ptr, int64_t size, int64_t total_alloc, int64_t total_res,
		    c10::Device device)
	{
		if (!on.load(std::memory_order_relaxed) || !collecting() || !ptr)
			return;
		int dev = device.is_cpu() ? -1 : (int)device.index();
		if (size >= 0)
			g_api.mem_alloc(ptr, (uint64_t)size, dev, total_alloc, total_res);
		else
			g_api.mem_free(ptr, (uint64_t)(-size), dev, total_alloc, total_res);
	}
	/* torch 1.13 passes the totals as int64_t, torch 2.x as size_t: one
	 * of these two overrides the pure virtual, the other is unused */
	void reportMemoryUsage(void *ptr, int64_t size, int64_t total_alloc, int64_t total_res,
			       c10::Device device)
	{
		report(ptr, size, total_alloc, total_res, device);
	}
	void reportMemoryUsage(void *ptr, int64_t size, size_t total_alloc, size_t total_res,
			       c10::Device device)
	{
		report(ptr, size, (int64_t)total_alloc, (int64_t)total_res, device);
	}
	/* stays true while started, even between collected steps: the CPU
	 * allocator keeps its size table only while this is true, and a free
	 * it cannot size is not reported */
	bool memoryProfilingEnabled() const override
	{
		return on.load(std::memory_order_relaxed);
	}
};

/* one reporter for the process; each start pushes it on its thread */
std::shared_ptr<mem_reporter> g_mem;
thread_local bool t_mem_pushed = false; /* this thread pushed g_mem */

int mem_start()
{
	if (!g_api.mem_alloc || !g_api.mem_free) {
		g_err = "libnnscope has no nns_mem_alloc/nns_mem_free";
		return -1;
	}
	if (!g_mem)
		g_mem = std::make_shared<mem_reporter>();
	c10::DebugInfoBase *cur =
	    c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE);
	if (cur && cur != g_mem.get()) {
		g_err = "another profiler's state (torch.profiler?) is set on this thread: "
			"its allocator memory events cannot be observed";
		return -1;
	}
	if (!cur) {
		c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, g_mem);
		t_mem_pushed = true;
	}
	g_mem->on.store(true);
	return 0;
}

void mem_stop()
{
	if (!g_mem)
		return;
	g_mem->on.store(false);
	/* pop only what this thread pushed, and only while it is the last
	 * debug info pushed here; otherwise it stays (inert) until a later
	 * start on this thread reuses it */
	if (t_mem_pushed &&
	    c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) == g_mem.get()) {
		try {
			c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
			t_mem_pushed = false;
		} catch (...) {
		}
	}
}

template <typename T> bool sym(void *h, const char *name, T &out)
{
	out = reinterpret_cast<T>(dlsym(h, name));
	if (!out)
		g_err = std::string("symbol ") + name + " not found in libnnscope";
	return out != nullptr;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int nnscope_rf_start(int shapes, const char *lib)
{
	std::lock_guard<std::mutex> lock(g_mu);
	if (g_active && g_shapes.load() == (shapes ? 1 : 0))
		return 0;
	if (g_active) { /* needsInputs changes: add the callback again */
		try {
			at::removeCallback(g_handle);
		} catch (const std::exception &e) {
			g_err = std::string("removeCallback: ") + e.what();
			return -1;
		}
		g_active = false;
	}
	g_shapes.store(shapes ? 1 : 0);
	if (!g_api.push) {
		void *h = lib && *lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;
		if (!h) {
			g_err =
			    std::string("libnnscope is not loaded: ") + (lib ? lib : "(no path)");
			return -1;
		}
		api a{};
		if (!sym(h, "nns_name", a.name) || !sym(h, "nns_push", a.push) ||
		    !sym(h, "nns_pop", a.pop) || !sym(h, "nns_mark", a.mark))
			return -1;
		a.hot = reinterpret_cast<const uint32_t *>(dlsym(h, "nns_hot_state"));
		if (!a.hot) {
			g_err = "symbol nns_hot_state not found in libnnscope";
			return -1;
		}
		/* optional: only nnscope_rf_memory needs them */
		a.mem_alloc = reinterpret_cast<mem_fn>(dlsym(h, "nns_mem_alloc"));
		a.mem_free = reinterpret_cast<mem_fn>(dlsym(h, "nns_mem_free"));
		g_kind_op = a.name("kind:cpu_op");
		g_api = a; /* the handle stays open: libnnscope stays loaded */
	}
	try {
		g_handle = at::addGlobalCallback(
		    at::RecordFunctionCallback(on_enter, on_exit)
			.needsInputs(shapes != 0)
			.scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
				 at::RecordScope::TORCHSCRIPT_FUNCTION,
				 at::RecordScope::USER_SCOPE}));
	} catch (const std::exception &e) {
		g_err = std::string("addGlobalCallback: ") + e.what();
		return -1;
	}
	g_active = true;
	return 0;
}

__attribute__((visibility("default"))) int nnscope_rf_stop(void)
{
	std::lock_guard<std::mutex> lock(g_mu);
	if (!g_active)
		return 0;
	try {
		at::removeCallback(g_handle);
	} catch (const std::exception &e) {
		g_err = std::string("removeCallback: ") + e.what();
		return -1;
	}
	g_active = false;
	g_handle = 0;
	return 0;
}

/* Memory events from torch's allocators on (on != 0; after
 * nnscope_rf_start, on the thread that runs the model: torch carries it to
 * the threads that thread starts work on) or off (on the same thread, or
 * it only stops reporting). Fails when another profiler state, e.g.
 * torch.profiler's, is set on the calling thread. */
__attribute__((visibility("default"))) int nnscope_rf_memory(int on)
{
	std::lock_guard<std::mutex> lock(g_mu);
	try {
		if (on) {
			if (!g_api.push) {
				g_err = "nnscope_rf_memory before nnscope_rf_start";
				return -1;
			}
			return mem_start();
		}
		mem_stop();
	} catch (const std::exception &e) {
		g_err = std::string("memory events: ") + e.what();
		return -1;
	}
	return 0;
}

/* The calling thread's next autograd sequence number. */
__attribute__((visibility("default"))) uint64_t nnscope_rf_seq(void)
{
	return at::sequence_number::peek();
}

/* A module call whose forward created the autograd nodes [s0, s1): its
 * backward range `name` spans their evaluation. */
__attribute__((visibility("default"))) void nnscope_rf_module(uint32_t name, uint64_t s0,
							      uint64_t s1)
{
	if (s1 <= s0 || !name)
		return;
	std::lock_guard<std::mutex> lock(g_iv_mu);
	if (g_iv.size() >= 65536)
		return;
	g_iv.push_back(interval{s0, s1, name, ++g_iv_order});
	g_iv_n.store((uint32_t)g_iv.size());
}

/* Backward is over (or a step ends): closes the calling thread's module
 * backward ranges and forgets the intervals. */
__attribute__((visibility("default"))) void nnscope_rf_backward_end(void)
{
	tcache *c = t_cache;
	if (c && !c->mods.empty() && g_api.pop) {
		std::vector<const interval *> none;
		set_modules(c, none);
	}
	std::lock_guard<std::mutex> lock(g_iv_mu);
	g_iv.clear();
	g_iv_n.store(0);
}

__attribute__((visibility("default"))) const char *nnscope_rf_error(void)
{
	return g_err.c_str();
}

__attribute__((visibility("default"))) const char *nnscope_rf_torch_version(void)
{
	return TORCH_VERSION;
}

} /* extern "C" */
