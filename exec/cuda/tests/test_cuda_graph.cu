// Tests of the CUDA graph executor (trackgen::cuda_exec) with plain CUDA kernels:
// capture and replay, replay reading new inputs, conditional skip (capture_if),
// bounded loops lowered as one conditional node per window, recording into a
// caller's own capture, and graph-owned lifetimes (retain).
//
// Cases tagged [device] need a GPU. Without one, main() prints a note and runs
// only the host-side cases (argument checks, empty handles, support probe), so the
// binary exits 0 on a build machine. Kernels are launched from named free
// functions, never inside test macros.
//
// Long file (about 630 lines), kept whole on purpose: the executor's tests build
// into one standalone binary (its own main(), its kernels shared by every case)
// that cmake/check-cuda.sh compiles and runs without the rest of TrackGen.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <trackgen/exec/cuda/graph.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cx = trackgen::cuda_exec;

namespace {

bool g_device_available = false;

#define TG_REQUIRE_DEVICE()                                  \
  do {                                                       \
    if (!g_device_available) {                               \
      WARN("no CUDA device: this [device] case is skipped"); \
      return;                                                \
    }                                                        \
  } while (false)

// ---------------------------------------------------------------------------
// Device buffers (allocated and freed outside captures only).

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    cx::check(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T)), "cudaMalloc");
    cx::check(cudaMemset(ptr_, 0, n * sizeof(T)), "cudaMemset");
    cx::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { (void)cudaFree(ptr_); }

  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  /// Outside captures only. The device synchronization orders the copy (legacy
  /// stream; a pageable H2D copy may return before its DMA landed) before work on
  /// the tests' non-blocking streams.
  void upload(const std::vector<T>& values) {
    cx::check(cudaMemcpy(ptr_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    cx::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  void set(T value) { upload(std::vector<T>(n_, value)); }
  std::vector<T> download() const {
    std::vector<T> out(n_);
    cx::check(cudaMemcpy(out.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return out;
  }
  T value() const { return download().at(0); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

// ---------------------------------------------------------------------------
// Kernels and their launchers.

constexpr int block_size = 128;
int blocks(int n) { return (n + block_size - 1) / block_size; }
void check_launch(const char* what) { cx::check(cudaGetLastError(), what); }

__global__ void iota_kernel(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.5f * static_cast<float>(i);
}
__global__ void axpy_kernel(float* y, const float* x, float alpha, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}
__global__ void square_minus_one_kernel(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * y[i] - 1.0f;
}
__global__ void affine_kernel(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i] + 1;
}
__global__ void set_flag_kernel(int* flag, const int* source) { *flag = *source != 0 ? 1 : 0; }
__global__ void add_kernel(int* y, int v) { *y += v; }
__global__ void set_int_kernel(int* p, int v) { *p = v; }
__global__ void init_active_kernel(int* active, const int* x, const int* cap) { *active = *x < *cap ? 1 : 0; }
// The absorbing body: x = min(x + 1, cap), active = x < cap. Once active is 0 every
// further step leaves x unchanged. `iters` counts executed steps (a diagnostic that
// is not part of the result).
__global__ void absorbing_step_kernel(int* x, int* active, int* iters, const int* cap) {
  *x = min(*x + 1, *cap);
  *active = *x < *cap ? 1 : 0;
  *iters += 1;
}

/// a = 0.5 i; b = 0; b += 2 a; b = b*b - 1; b -= a.
void launch_sequence(cudaStream_t s, float* a, float* b, int n) {
  iota_kernel<<<blocks(n), block_size, 0, s>>>(a, n);
  check_launch("iota_kernel");
  cx::check(cudaMemsetAsync(b, 0, n * sizeof(float), s), "cudaMemsetAsync");
  axpy_kernel<<<blocks(n), block_size, 0, s>>>(b, a, 2.0f, n);
  check_launch("axpy_kernel");
  square_minus_one_kernel<<<blocks(n), block_size, 0, s>>>(b, n);
  check_launch("square_minus_one_kernel");
  axpy_kernel<<<blocks(n), block_size, 0, s>>>(b, a, -1.0f, n);
  check_launch("axpy_kernel");
}
void launch_affine(cudaStream_t s, int* out, const int* in, int n) {
  affine_kernel<<<blocks(n), block_size, 0, s>>>(out, in, n);
  check_launch("affine_kernel");
}
void launch_set_flag(cudaStream_t s, int* flag, const int* source) {
  set_flag_kernel<<<1, 1, 0, s>>>(flag, source);
  check_launch("set_flag_kernel");
}
void launch_add(cudaStream_t s, int* y, int v) {
  add_kernel<<<1, 1, 0, s>>>(y, v);
  check_launch("add_kernel");
}
void launch_set(cudaStream_t s, int* p, int v) {
  set_int_kernel<<<1, 1, 0, s>>>(p, v);
  check_launch("set_int_kernel");
}
void launch_init_active(cudaStream_t s, int* active, const int* x, const int* cap) {
  init_active_kernel<<<1, 1, 0, s>>>(active, x, cap);
  check_launch("init_active_kernel");
}
void launch_absorbing_step(cudaStream_t s, int* x, int* active, int* iters, const int* cap) {
  absorbing_step_kernel<<<1, 1, 0, s>>>(x, active, iters, cap);
  check_launch("absorbing_step_kernel");
}

/// Releases retained owners until `w` expired (CUDA runs user-object destructors
/// asynchronously); false after about 10 s.
template <class T>
bool wait_released(const std::weak_ptr<T>& w) {
  for (int i = 0; i < 10000; ++i) {
    cx::release_retained_owners();
    if (w.expired()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// ---------------------------------------------------------------------------
// A bounded loop, as the execution layer lowers it: iterations [0, first_check)
// always run, then windows of check_every iterations, each guarded by `active`:
// (b) one conditional node per window (capture_if) or (c) every window recorded or
// run unconditionally. Returns the number of conditional nodes recorded.

enum class Lowering { conditional, unconditional };

struct LoopState {
  DeviceBuffer<int> x{1}, active{1}, iters{1}, cap{1};
};

int enqueue_bounded_loop(cudaStream_t s, LoopState& st, int n_iters, int first_check, int check_every,
                         Lowering lowering) {
  launch_set(s, st.x.get(), 0);
  launch_set(s, st.iters.get(), 0);
  launch_init_active(s, st.active.get(), st.x.get(), st.cap.get());
  auto body = [&](int) { launch_absorbing_step(s, st.x.get(), st.active.get(), st.iters.get(), st.cap.get()); };
  const int unchecked = std::min(first_check, n_iters);
  for (int it = 0; it < unchecked; ++it) body(it);
  int nodes = 0;
  for (int lo = unchecked; lo < n_iters; lo += check_every) {
    const int hi = std::min(lo + check_every, n_iters);
    auto window = [&] {
      for (int it = lo; it < hi; ++it) body(it);
    };
    if (lowering == Lowering::conditional) {
      nodes += cx::capture_if(s, st.active.get(), window) ? 1 : 0;
    } else {
      window();
    }
  }
  return nodes;
}

/// Host model: how many steps run when every window whose check reads 0 is skipped.
int expected_steps(int n_iters, int first_check, int check_every, int cap) {
  int x = 0, steps = 0;
  auto step = [&] {
    x = std::min(x + 1, cap);
    ++steps;
  };
  const int unchecked = std::min(first_check, n_iters);
  for (int it = 0; it < unchecked; ++it) step();
  for (int lo = unchecked; lo < n_iters; lo += check_every) {
    if (!(x < cap)) break;
    for (int it = lo; it < std::min(lo + check_every, n_iters); ++it) step();
  }
  return steps;
}

// ---------------------------------------------------------------------------
// A producer recorded into a caller's capture: owns device memory (freed in its
// destructor, which must therefore run outside captures, on a user thread).

std::atomic<int> g_producers_destroyed{0};

struct Producer : std::enable_shared_from_this<Producer> {
  int* state = nullptr;  // a running counter, advanced by every replay
  int* flag = nullptr;   // computed on device from the counter
  Producer() {
    cx::check(cudaMalloc(reinterpret_cast<void**>(&state), 2 * sizeof(int)), "cudaMalloc");
    flag = state + 1;
    cx::check(cudaMemset(state, 0, 2 * sizeof(int)), "cudaMemset");
    cx::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;
  ~Producer() {
    (void)cudaFree(state);
    ++g_producers_destroyed;
  }
  /// Enqueues on `s` only: state += 1; flag = state is odd; if (flag) out += 100;
  /// out += state. When `s` is capturing, anchors itself to the capture's graph.
  bool enqueue(cudaStream_t s, int* out) {
    launch_add(s, state, 1);
    launch_set_flag_odd(s);
    const bool conditional = cx::capture_if(
        s, flag, [&] { launch_add(s, out, 100); }, cudaStreamCaptureModeGlobal);
    launch_add_from(s, out);
    if (cudaGraph_t g = cx::capture_graph(s)) cx::retain(g, shared_from_this());
    return conditional;
  }

 private:
  void launch_set_flag_odd(cudaStream_t s);
  void launch_add_from(cudaStream_t s, int* out);
};

__global__ void odd_flag_kernel(int* flag, const int* state) { *flag = (*state & 1) != 0 ? 1 : 0; }
__global__ void add_from_kernel(int* out, const int* state) { *out += *state; }
void Producer::launch_set_flag_odd(cudaStream_t s) {
  odd_flag_kernel<<<1, 1, 0, s>>>(flag, state);
  check_launch("odd_flag_kernel");
}
void Producer::launch_add_from(cudaStream_t s, int* out) {
  add_from_kernel<<<1, 1, 0, s>>>(out, state);
  check_launch("add_from_kernel");
}

}  // namespace

// ===========================================================================
// Host-side cases (run everywhere).

TEST_CASE("check() passes cudaSuccess and throws naming the API and the error", "[cuda][host]") {
  CHECK_NOTHROW(cx::check(cudaSuccess, "cudaNothing"));
  try {
    cx::check(cudaErrorInvalidValue, "cudaGraphInstantiate");
    FAIL("check did not throw");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find("cudaGraphInstantiate") != std::string::npos);
    CHECK(what.find("cudaErrorInvalidValue") != std::string::npos);
    CHECK(what.find(cudaGetErrorString(cudaErrorInvalidValue)) != std::string::npos);
  }
}

TEST_CASE("empty handles are inert and refuse use", "[cuda][host]") {
  cx::Graph g;
  CHECK_FALSE(g);
  CHECK(g.get() == nullptr);
  cx::Graph moved(std::move(g));
  CHECK_FALSE(moved);
  moved.reset();
  CHECK(moved.release() == nullptr);
  CHECK_THROWS_AS(moved.node_count(), std::invalid_argument);
  CHECK_THROWS_AS(cx::instantiate(moved), std::invalid_argument);

  cx::GraphExec e;
  CHECK_FALSE(e);
  cx::GraphExec e2;
  e2 = std::move(e);
  CHECK_FALSE(e2);
  CHECK_THROWS_AS(e2.launch(nullptr), std::invalid_argument);

  cx::Stream s{static_cast<cudaStream_t>(nullptr)};  // adopts nothing, destroys nothing
  CHECK(s.get() == nullptr);
}

TEST_CASE("argument errors are raised before any CUDA call", "[cuda][host]") {
  bool ran = false;
  CHECK_THROWS_AS(cx::capture_if(nullptr, nullptr, [&] { ran = true; }), std::invalid_argument);
  CHECK_FALSE(ran);
  int dummy = 0;
  CHECK_THROWS_AS(cx::capture_if(nullptr, &dummy, std::function<void()>()), std::invalid_argument);

  auto owner = std::make_shared<int>(1);
  std::weak_ptr<int> weak = owner;
  CHECK_THROWS_AS(cx::retain(nullptr, owner), std::invalid_argument);
  CHECK_THROWS_AS(cx::retain(nullptr, nullptr), std::invalid_argument);
  owner.reset();
  CHECK(weak.expired());  // a refused owner is not kept
  CHECK(cx::release_retained_owners() == 0);
}

TEST_CASE("conditional-node support is false for missing devices", "[cuda][host]") {
  CHECK_FALSE(cx::conditional_nodes_supported(-1));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  CHECK_FALSE(cx::conditional_nodes_supported(count));  // one past the last device
  if (count == 0) {
    CHECK_FALSE(cx::conditional_nodes_supported());
  } else {
    CHECK(cudaGetLastError() == cudaSuccess);  // the probes leave no error behind
  }
}

// ===========================================================================
// Device cases.

TEST_CASE("capture records without running, and replay equals the eager result", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  const int n = 1000;
  cx::Stream stream;
  DeviceBuffer<float> a(n), b(n);

  launch_sequence(stream.get(), a.get(), b.get(), n);
  stream.synchronize();
  const std::vector<float> eager = b.download();

  b.set(-7.0f);
  a.set(-7.0f);
  cx::StreamCapture capture(stream.get());
  CHECK(cx::is_capturing(stream.get()));
  CHECK(cx::capture_graph(stream.get()) != nullptr);
  launch_sequence(stream.get(), a.get(), b.get(), n);
  cx::Graph graph = capture.end();
  CHECK_FALSE(capture.active());
  CHECK_FALSE(cx::is_capturing(stream.get()));
  CHECK(cx::capture_graph(stream.get()) == nullptr);
  CHECK(graph.node_count() == 5);
  CHECK(graph.node_count(cudaGraphNodeTypeKernel) == 4);
  CHECK(graph.node_count(cudaGraphNodeTypeMemset) == 1);
  CHECK(b.download() == std::vector<float>(n, -7.0f));  // nothing ran while capturing

  cx::GraphExec exec = cx::instantiate(graph);
  graph.reset();  // the executable graph does not need it
  for (int replay = 0; replay < 3; ++replay) {
    b.set(-7.0f);
    exec.launch(stream.get());
    stream.synchronize();
    CHECK(b.download() == eager);  // bitwise: same kernels, same order
  }
}

TEST_CASE("a replay reads the current contents of a stable input buffer", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  const int n = 256;
  cx::Stream stream;
  DeviceBuffer<int> in(n), out(n);
  cx::GraphExec exec =
      cx::instantiate(cx::capture(stream.get(), [&] { launch_affine(stream.get(), out.get(), in.get(), n); }));
  for (int value : {0, 5, -3, 41}) {
    in.set(value);  // outside the capture: a plain upload into the captured address
    exec.launch(stream.get());
    stream.synchronize();
    CHECK(out.download() == std::vector<int>(n, 3 * value + 1));
  }
}

TEST_CASE("capture_if skips its body when the flag is 0 and runs it when 1", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<int> source(1), flag(1), y(1);
  const bool supported = cx::conditional_nodes_supported();
  INFO("conditional nodes supported: " << supported);

  bool recorded = false;
  cx::Graph graph = cx::capture(s, [&] {
    launch_set_flag(s, flag.get(), source.get());  // the flag comes from a kernel of this capture
    recorded = cx::capture_if(s, flag.get(), [&] { launch_add(s, y.get(), 10); });
    launch_add(s, y.get(), 1);
  });
  CHECK(recorded == supported);
  CHECK(graph.node_count(cudaGraphNodeTypeConditional) == (supported ? 1u : 0u));
  cx::GraphExec exec = cx::instantiate(graph);

  y.set(0);
  int expected = 0;
  for (int src : {0, 1, 0, 7, 0}) {
    source.set(src);
    exec.launch(s);
    stream.synchronize();
    expected += 1 + ((src != 0 || !supported) ? 10 : 0);
    INFO("source " << src);
    CHECK(y.value() == expected);
  }
}

TEST_CASE("capture_if outside a capture runs its body eagerly", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::Stream stream;
  DeviceBuffer<int> flag(1), y(1);
  flag.set(0);  // not read: eager runs are unconditional (no host sync to read it)
  CHECK_FALSE(cx::capture_if(stream.get(), flag.get(), [&] { launch_add(stream.get(), y.get(), 5); }));
  stream.synchronize();
  CHECK(y.value() == 5);

  int host_flag = 1;
  CHECK_THROWS_AS(cx::capture_if(stream.get(), &host_flag, [] {}), std::invalid_argument);
}

TEST_CASE("capture_if nests: a conditional node inside a conditional body", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<int> outer(1), inner(1), y(1);
  const bool supported = cx::conditional_nodes_supported();
  cx::Graph graph = cx::capture(s, [&] {
    cx::capture_if(s, outer.get(), [&] {
      launch_add(s, y.get(), 1);
      cx::capture_if(s, inner.get(), [&] { launch_add(s, y.get(), 100); });
    });
  });
  CHECK(graph.node_count(cudaGraphNodeTypeConditional) == (supported ? 1u : 0u));
  cx::GraphExec exec = cx::instantiate(graph);
  for (int o : {0, 1}) {
    for (int i : {0, 1}) {
      outer.set(o);
      inner.set(i);
      y.set(0);
      exec.launch(s);
      stream.synchronize();
      const int expected = supported ? (o != 0 ? 1 + (i != 0 ? 100 : 0) : 0) : 101;
      INFO("outer " << o << " inner " << i);
      CHECK(y.value() == expected);
    }
  }
}

TEST_CASE("a bounded loop with one conditional node per window equals the unrolled loop", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::Stream stream;
  const cudaStream_t s = stream.get();
  const bool supported = cx::conditional_nodes_supported();
  const int n_iters = 10;
  struct Shape {
    int first_check, check_every;
  };
  for (Shape shape : {Shape{0, 1}, Shape{0, 4}, Shape{2, 3}, Shape{12, 1}}) {
    LoopState cond, unrolled, eager;
    int nodes = 0;
    cx::GraphExec cond_exec = cx::instantiate(cx::capture(s, [&] {
      nodes = enqueue_bounded_loop(s, cond, n_iters, shape.first_check, shape.check_every, Lowering::conditional);
    }));
    cx::GraphExec unrolled_exec = cx::instantiate(cx::capture(s, [&] {
      enqueue_bounded_loop(s, unrolled, n_iters, shape.first_check, shape.check_every, Lowering::unconditional);
    }));
    const int unchecked = std::min(shape.first_check, n_iters);
    const int windows = (n_iters - unchecked + shape.check_every - 1) / shape.check_every;
    CHECK(nodes == (supported ? windows : 0));

    for (int cap : {0, 3, 7, 20}) {  // cap lives in a stable buffer: no re-capture
      INFO("first_check " << shape.first_check << " check_every " << shape.check_every << " cap " << cap);
      cond.cap.set(cap);
      unrolled.cap.set(cap);
      eager.cap.set(cap);
      cond_exec.launch(s);
      unrolled_exec.launch(s);
      enqueue_bounded_loop(s, eager, n_iters, shape.first_check, shape.check_every, Lowering::conditional);
      stream.synchronize();
      const int x = std::min(n_iters, cap);
      CHECK(unrolled.x.value() == x);
      CHECK(cond.x.value() == x);  // the three lowerings agree on the result
      CHECK(eager.x.value() == x);
      CHECK(unrolled.iters.value() == n_iters);
      CHECK(eager.iters.value() == n_iters);  // eager on CUDA: every window (no host poll)
      CHECK(cond.iters.value() ==
            (supported ? expected_steps(n_iters, shape.first_check, shape.check_every, cap) : n_iters));
    }
  }
}

TEST_CASE("a producer records into a caller's open capture and is kept alive by the graph", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::release_retained_owners();
  const int destroyed_before = g_producers_destroyed.load();
  cx::Stream stream;  // the caller's stream, captured by the caller itself
  const cudaStream_t s = stream.get();
  DeviceBuffer<int> out(1);
  auto producer = std::make_shared<Producer>();
  std::weak_ptr<Producer> weak = producer;
  const bool supported = cx::conditional_nodes_supported();

  cx::check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  const cudaGraph_t capturing = cx::capture_graph(s);
  const bool conditional = producer->enqueue(s, out.get());
  cudaGraph_t raw = nullptr;
  cx::check(cudaStreamEndCapture(s, &raw), "cudaStreamEndCapture");
  cx::Graph graph(raw);
  CHECK(conditional == supported);
  CHECK(raw == capturing);  // pausing/resuming around the conditional node keeps the graph

  cx::GraphExec exec = cx::instantiate(graph);
  producer.reset();  // the caller drops its handle: the graph keeps the producer
  cx::release_retained_owners();
  REQUIRE_FALSE(weak.expired());

  out.set(0);
  int expected = 0;
  for (int replay = 1; replay <= 4; ++replay) {
    exec.launch(s);
    stream.synchronize();
    expected += ((replay % 2 == 1) || !supported ? 100 : 0) + replay;
    CHECK(out.value() == expected);
  }
  cx::release_retained_owners();
  CHECK_FALSE(weak.expired());

  graph.reset();
  exec.reset();
  CHECK(wait_released(weak));
  CHECK(g_producers_destroyed.load() == destroyed_before + 1);  // its cudaFree ran on this thread
}

TEST_CASE("retain keeps an owner alive until the graph and its executable graphs are gone", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::release_retained_owners();
  cx::Stream stream;
  DeviceBuffer<int> y(1);
  cx::Graph graph = cx::capture(stream.get(), [&] { launch_add(stream.get(), y.get(), 1); });
  auto owner = std::make_shared<std::vector<int>>(1000, 7);
  std::weak_ptr<std::vector<int>> weak = owner;
  cx::retain(graph.get(), owner);
  owner.reset();

  cx::GraphExec exec = cx::instantiate(graph);
  graph.reset();  // the user's graph handle is gone; the executable graph holds a reference
  cx::release_retained_owners();
  CHECK_FALSE(weak.expired());
  exec.launch(stream.get());
  stream.synchronize();
  cx::release_retained_owners();
  CHECK_FALSE(weak.expired());
  CHECK(y.value() == 1);

  exec.reset();
  CHECK(wait_released(weak));
}

TEST_CASE("errors inside a capture leave the stream usable", "[cuda][device]") {
  TG_REQUIRE_DEVICE();
  cx::Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<int> flag(1), y(1);

  SECTION("a throwing body aborts the capture") {
    CHECK_THROWS_AS(cx::capture(s,
                                [&] {
                                  launch_add(s, y.get(), 1);
                                  throw std::runtime_error("stage failed");
                                }),
                    std::runtime_error);
    CHECK_FALSE(cx::is_capturing(s));
    launch_add(s, y.get(), 2);
    stream.synchronize();
    CHECK(y.value() == 2);
  }
  SECTION("no nested capture, no host sync while capturing") {
    cx::StreamCapture capture(s);
    CHECK_THROWS_AS(cx::StreamCapture(s), std::logic_error);
    CHECK_THROWS_AS(stream.synchronize(), std::logic_error);
    CHECK(cx::is_capturing(s));
    launch_add(s, y.get(), 3);
    cx::GraphExec exec = cx::instantiate(capture.end());
    exec.launch(s);
    stream.synchronize();
    CHECK(y.value() == 3);
  }
  SECTION("a throwing conditional body resumes the enclosing capture") {
    flag.set(1);
    cx::StreamCapture capture(s);
    CHECK_THROWS_AS(cx::capture_if(s, flag.get(),
                                   [&] {
                                     launch_add(s, y.get(), 1000);
                                     throw std::runtime_error("window failed");
                                   }),
                    std::runtime_error);
    CHECK(cx::is_capturing(s));
    launch_add(s, y.get(), 4);
    cx::GraphExec exec = cx::instantiate(capture.end());
    y.set(0);
    exec.launch(s);
    stream.synchronize();
    // The half-recorded body stays in the graph; a caller that catches the error
    // should abort the capture (as StreamCapture's destructor does).
    CHECK(y.value() % 1000 == 4);
  }
}

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  g_device_available = err == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  std::vector<char*> args(argv, argv + argc);
  static char exclude_device[] = "~[device]";
  if (!g_device_available) {
    std::fprintf(stderr, "note: no CUDA device (%s): the [device] test cases are skipped\n",
                 err == cudaSuccess ? "0 devices" : cudaGetErrorName(err));
    if (argc == 1) args.push_back(exclude_device);
  }
  return Catch::Session().run(static_cast<int>(args.size()), args.data());
}
